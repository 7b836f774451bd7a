package io.epochal.pipeline.internal;

import io.epochal.spout.BatchAttempt;
import io.epochal.store.CheckpointEpoch;
import io.epochal.store.OutboxEntry;
import java.util.List;
import java.util.Optional;

/**
 * Internal. The epoch of an {@code AT_LEAST_ONCE} attempt: the store's epoch, except that txid-carrying maps apply updates to
 * cells already written for its txid instead of skipping them.
 */
final class ReapplyingEpoch implements CheckpointEpoch {
  private final CheckpointEpoch inner;

  ReapplyingEpoch(CheckpointEpoch inner) {
    this.inner = inner;
  }

  @Override
  public String pipeline() {
    return inner.pipeline();
  }

  @Override
  public BatchAttempt attempt() {
    return inner.attempt();
  }

  @Override
  public <T> Optional<T> staging(Class<T> type) {
    return inner.staging(type);
  }

  @Override
  public boolean readOnly() {
    return inner.readOnly();
  }

  @Override
  public boolean skipsAppliedCells() {
    return false;
  }

  @Override
  public void commit(byte[] metadata, List<OutboxEntry> outbox) {
    inner.commit(metadata, outbox);
  }

  @Override
  public void abort() {
    inner.abort();
  }

  @Override
  public String toString() {
    return inner + " (AT_LEAST_ONCE: applied cells are not skipped)";
  }
}
