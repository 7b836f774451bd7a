package io.epochal.state;

import io.epochal.api.Stable;

/**
 * A piece of state updated by batches. For each batch the engine opens one {@link Epoch} (its txid and attempt) and
 * drives each state partition the batch reaches as {@link #begin(Epoch) begin(epoch)}, then the batch's reads and
 * updates, then {@link #end()}, strictly in txid order: the epoch is the only way a state learns the txid, and every
 * call between {@code begin} and {@code end} acts for it. A failed attempt is followed by {@link #abort()} and later
 * by a new {@code begin} with the next attempt's epoch of the same txid.
 *
 * <p>Neither {@code begin} nor {@code end} makes anything durable: the batch becomes durable only when the engine
 * commits the epoch through the pipeline's checkpoint store, after every state's {@code end}; until then an
 * {@code abort()} may still follow {@code end()}.
 *
 * <p>Implementations are used by one thread at a time (the engine never calls one partition's state concurrently)
 * but may be called from different threads over their lifetime; they must publish their effects safely.
 *
 * @since 0.5.0
 */
@Stable
public interface State {

  /**
   * Starts applying the batch of {@code epoch} to this partition. Clears anything cached for a previous batch or
   * attempt. The engine checked the epoch's txid when it opened it; states trust it.
   *
   * @param epoch the epoch of the batch attempt to apply (a read-only epoch to read outside a batch)
   * @throws NullPointerException if {@code epoch} is null
   */
  void begin(Epoch epoch);

  /**
   * This partition's part of the batch is applied. Not durable: the engine's commit of the epoch (through the
   * checkpoint store) is the only step that makes a batch durable, and an {@link #abort()} may still follow.
   */
  void end();

  /**
   * The current attempt failed somewhere (in this state or elsewhere), possibly after {@link #end()}: drops whatever
   * the attempt cached or staged. A no-op when no epoch is open; the default does nothing, which is right for states
   * without per-attempt caches.
   */
  default void abort() {
  }
}
