package io.epochal.state;

/**
 * A piece of state updated by batches. The engine drives each state partition as {@code beginCommit(t)}, then the
 * batch's reads and updates, then {@code commit(t)}, strictly in txid order, and only for partitions that received
 * at least one record in batch {@code t}. A failed attempt is followed by {@link #abort(long)} and later by a new
 * {@code beginCommit(t)} of the same txid.
 *
 * <p>Implementations are used by one thread at a time (the engine never calls one partition's state concurrently)
 * but may be called from different threads over their lifetime; they must publish their effects safely.
 */
public interface State {

  /** Starts applying batch {@code txid}. Clears anything cached for a previous batch or attempt. */
  void beginCommit(long txid);

  /** Ends applying batch {@code txid}; the engine records the batch as committed only after every state's commit. */
  void commit(long txid);

  /**
   * The current attempt of batch {@code txid} failed somewhere (in this state or elsewhere). Drops whatever the
   * attempt cached. The default does nothing, which is right for states without per-attempt caches.
   */
  default void abort(long txid) {
  }
}
