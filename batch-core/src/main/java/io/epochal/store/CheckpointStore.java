package io.epochal.store;

import io.epochal.api.Stable;

/**
 * Persists a pipeline's progress. The coordinator calls {@link #recordPending} before emitting a new batch of a
 * transactional spout, opens the epoch of every attempt it applies ({@link #openEpoch}), and makes the batch durable
 * with the epoch's {@link CheckpointEpoch#commit} (which, by default, is {@link #commit}) after every state of the
 * batch applied it.
 *
 * <p>Each call is atomic: after a crash, {@link #load} returns the state before or after the call, never a mix.
 * Thread-safe.
 *
 * @since 0.1.0
 */
@Stable
public interface CheckpointStore {

  /**
   * Reads a pipeline's progress.
   *
   * @param pipeline the pipeline's name, the key of its checkpoint
   * @return the progress of {@code pipeline}, {@link Checkpoint#EMPTY} if it never ran
   * @throws io.epochal.errors.StoreException if the store cannot be read
   */
  Checkpoint load(String pipeline);

  /**
   * Records the metadata of started batch {@code txid} before any of its records is emitted; keeps the attempt
   * reservation.
   *
   * @param pipeline the pipeline's name
   * @param txid the started batch's txid, above the committed txid
   * @param metadata the batch's encoded spout metadata; replaces any recorded for {@code txid}
   * @throws io.epochal.errors.EpochalException (not retryable) if {@code txid} is already committed
   * @throws io.epochal.errors.StoreException if the store cannot be written
   */
  void recordPending(String pipeline, long txid, byte[] metadata);

  /**
   * Records batch {@code txid} as committed with its spout metadata, and drops pending metadata up to {@code txid};
   * keeps the attempt reservation.
   *
   * @param pipeline the pipeline's name
   * @param txid the committed batch's txid: the checkpoint's committed txid plus one
   * @param metadata the batch's encoded spout metadata
   * @throws io.epochal.errors.EpochalException (not retryable) if {@code txid} is not the committed txid plus one
   *     (commits are strictly ordered: another writer committed, or the checkpoint was reset)
   * @throws io.epochal.errors.StoreException if the store cannot be written; the outcome is then unknown and the
   *     coordinator re-reads the checkpoint with {@link #load}
   */
  void commit(String pipeline, long txid, byte[] metadata);

  /**
   * Records batch {@code txid} as committed with its spout metadata and its sink outputs: the checkpoint's
   * {@link Checkpoint#outbox()} becomes {@code outbox}, in the same atomic call (so a batch is never committed without
   * its outputs, nor its outputs kept without it). Stores that {@link #keepsOutbox() keep an outbox} implement it;
   * the default commits through {@link #commit(String, long, byte[])} when {@code outbox} is empty and throws
   * {@link UnsupportedOperationException} otherwise. Wrappers must forward it.
   *
   * @param pipeline the pipeline's name
   * @param txid the committed batch's txid: the checkpoint's committed txid plus one
   * @param metadata the batch's encoded spout metadata
   * @param outbox the batch's sink outputs, each entry of batch {@code txid}; empty if it had none
   * @throws io.epochal.errors.EpochalException (not retryable) if {@code txid} is not the committed txid plus one
   * @throws io.epochal.errors.StoreException if the store cannot be written; the outcome is then unknown
   * @since 0.4.0
   */
  default void commit(String pipeline, long txid, byte[] metadata, java.util.List<OutboxEntry> outbox) {
    if (!outbox.isEmpty()) {
      throw new UnsupportedOperationException(describe() + " keeps no outbox for sink outputs");
    }
    commit(pipeline, txid, metadata);
  }

  /**
   * Whether {@link #commit(String, long, byte[], java.util.List)} keeps sink outputs in the checkpoint, which an
   * exactly-once external sink ({@code io.epochal.sink.OutboxSink}) needs: a pipeline with such a sink on a store
   * without an outbox is refused when it is built. The default is false; wrappers must forward it.
   *
   * @return true if this store keeps each committed batch's sink outputs in its checkpoint
   * @since 0.4.0
   */
  default boolean keepsOutbox() {
    return false;
  }

  /**
   * Opens the epoch of attempt {@code attempt} of {@code pipeline}'s next batch: the states of the batch stage in it,
   * and its {@link CheckpointEpoch#commit(byte[], java.util.List)} makes the batch durable. The default epoch stages nothing and commits
   * through {@link #commit}. A store that stages state rows (a table checkpoint store) returns an epoch carrying its
   * staging; a wrapper must return {@code CheckpointEpoch.through(this, wrapped.openEpoch(..))} so that the states
   * keep the wrapped store's staging while commits pass through the wrapper.
   *
   * @param pipeline the pipeline's name
   * @param attempt the txid and attempt number of the batch attempt the epoch is for
   * @return the attempt's epoch, open until it commits or aborts
   * @throws io.epochal.errors.StoreException if the store cannot be reached
   * @since 0.3.0
   */
  default CheckpointEpoch openEpoch(String pipeline, io.epochal.spout.BatchAttempt attempt) {
    return CheckpointEpoch.of(this, pipeline, attempt, java.util.Optional.empty());
  }

  /**
   * Raises {@code pipeline}'s attempt reservation ({@link Checkpoint#attemptCeiling()},
   * {@link Checkpoint#txidWindow()}) to at least the given values, atomically and durably, leaving the rest of the
   * checkpoint as it is. The engine calls it before it numbers an emission above the reserved ceiling or runs more
   * batches in flight than the reserved window (normally once when a pipeline starts), so that a restarted pipeline
   * can number the attempts of every txid an earlier run may have started (those up to {@code committedTxid +
   * txidWindow}) above that run's attempts: the attempt number of a txid strictly grows, also across restarts.
   *
   * <p>The default throws {@link UnsupportedOperationException}: the engine then keeps the reservation in memory only
   * (attempts after a restart may repeat an earlier run's numbers) and logs a warning. Wrappers must forward it.
   *
   * @param pipeline the pipeline's name
   * @param attemptCeiling the highest attempt number the caller may number, {@code >= 0}
   * @param txidWindow the most batches the caller may have in flight above the committed txid, {@code >= 0}
   * @throws io.epochal.errors.StoreException if the store cannot be written
   * @since 0.2.0
   */
  default void reserveAttempts(String pipeline, long attemptCeiling, long txidWindow) {
    throw new UnsupportedOperationException(describe() + " keeps no attempt reservation");
  }

  /**
   * The current attempt of batch {@code txid} failed: drop whatever this store buffered for it (the epoch protocol
   * buffers every state row of the batch until {@link #commit}). The default does nothing.
   *
   * @param pipeline the pipeline's name
   * @param txid the txid of the failed attempt's batch; it is replayed under the same txid
   */
  default void abort(String pipeline, long txid) {
  }

  /**
   * The staging of type {@code type} this store's epochs of {@code pipeline} offer (the staging of every
   * {@link #openEpoch epoch} it opens for the pipeline), known before any batch so that states can bind to it when they
   * are made. A wrapper forwards it. The default offers none.
   *
   * @param pipeline the pipeline's name
   * @param type the staging type the state needs, e.g. a table store's {@code EpochBuffer}
   * @param <T> the staging type
   * @return the staging, shared by every epoch of {@code pipeline}; empty when this store stages nothing of that type
   */
  default <T> java.util.Optional<T> staging(String pipeline, Class<T> type) {
    return java.util.Optional.empty();
  }

  /**
   * A short description for logs and errors.
   *
   * @return a description naming the store (by default the simple name of its class)
   */
  default String describe() {
    return getClass().getSimpleName();
  }
}
