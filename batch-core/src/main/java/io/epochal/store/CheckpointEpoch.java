package io.epochal.store;

import io.epochal.api.Stable;
import io.epochal.spout.BatchAttempt;
import io.epochal.state.Epoch;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The epoch of one batch attempt as its checkpoint store opened it ({@link CheckpointStore#openEpoch}): the states
 * of the batch stage in it, and {@link #commit(byte[])} is the one call that makes the batch durable (on a table
 * store with atomic multi-table commit: every staged row, the spout metadata and the txid in one store transaction).
 * {@link #abort()} drops what was staged. Thread-safe.
 *
 * @since 0.3.0
 */
@Stable
public interface CheckpointEpoch extends Epoch {

  /**
   * Makes the batch durable with its spout metadata and no sink outputs; drops pending metadata up to the txid.
   *
   * @param metadata the batch's encoded spout metadata, not null
   * @throws io.epochal.errors.EpochalException (not retryable) if the txid is not the committed txid plus one
   * @throws io.epochal.errors.StoreException if the store cannot be written; the outcome is then unknown and the
   *     coordinator re-reads the checkpoint
   */
  default void commit(byte[] metadata) {
    commit(metadata, List.of());
  }

  /**
   * Makes the batch durable with its spout metadata and its sink outputs (the checkpoint's outbox, see
   * {@link CheckpointStore#commit(String, long, byte[], List)}); drops pending metadata up to the txid.
   *
   * @param metadata the batch's encoded spout metadata, not null
   * @param outbox the batch's sink outputs, each entry of this epoch's txid; empty if it had none
   * @throws io.epochal.errors.EpochalException (not retryable) if the txid is not the committed txid plus one
   * @throws io.epochal.errors.StoreException if the store cannot be written; the outcome is then unknown and the
   *     coordinator re-reads the checkpoint
   * @throws UnsupportedOperationException if {@code outbox} is not empty and the store keeps no outbox
   * @since 0.4.0
   */
  void commit(byte[] metadata, List<OutboxEntry> outbox);

  /** The attempt failed: drops whatever was staged in this epoch. */
  void abort();

  /**
   * The epoch of a store without staging: {@link #commit} is {@code store.commit(pipeline, txid, metadata)}.
   *
   * @param store the store that {@link #commit} and {@link #abort} call, not null
   * @param pipeline the pipeline's name, not null
   * @param attempt the batch attempt the epoch is for, not null
   * @param staging what the epoch stages in (empty for none)
   * @return a new epoch whose {@link #staging} offers {@code staging}'s value to a type it is an instance of
   */
  static CheckpointEpoch of(CheckpointStore store, String pipeline, BatchAttempt attempt, Optional<?> staging) {
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(pipeline, "pipeline");
    Objects.requireNonNull(attempt, "attempt");
    Objects.requireNonNull(staging, "staging");
    return new CheckpointEpoch() {
      @Override
      public String pipeline() {
        return pipeline;
      }

      @Override
      public BatchAttempt attempt() {
        return attempt;
      }

      @Override
      public <T> Optional<T> staging(Class<T> type) {
        return staging.filter(type::isInstance).map(type::cast);
      }

      @Override
      public void commit(byte[] metadata, List<OutboxEntry> outbox) {
        store.commit(pipeline, attempt.txid(), Objects.requireNonNull(metadata, "metadata"),
            Objects.requireNonNull(outbox, "outbox"));
      }

      @Override
      public void abort() {
        store.abort(pipeline, attempt.txid());
      }

      @Override
      public String toString() {
        return "epoch of pipeline '" + pipeline + "', " + attempt + " on " + store.describe();
      }
    };
  }

  /**
   * The epoch {@code inner} (opened by a wrapped store) committed and aborted through {@code outer} (the wrapper):
   * a {@link CheckpointStore} wrapper returns this from {@code openEpoch}, so its {@code commit} and {@code abort}
   * still see the batch while the states keep the inner epoch's staging.
   *
   * @param outer the wrapping store, whose {@code commit} and {@code abort} the epoch calls
   * @param inner the epoch the wrapped store opened, not null; its pipeline, attempt, staging and flags are kept
   * @return a new epoch with {@code inner}'s staging, committed and aborted through {@code outer}
   */
  static CheckpointEpoch through(CheckpointStore outer, CheckpointEpoch inner) {
    Objects.requireNonNull(inner, "inner");
    CheckpointEpoch committer = of(outer, inner.pipeline(), inner.attempt(), Optional.empty());
    return new ForwardingCheckpointEpoch(inner) {
      @Override
      public void commit(byte[] metadata, List<OutboxEntry> outbox) {
        committer.commit(metadata, outbox);
      }

      @Override
      public void abort() {
        committer.abort();
      }

      @Override
      public String toString() {
        return inner + " through " + outer.describe();
      }
    };
  }
}
