package io.epochal.pipeline.internal;

import io.epochal.store.CheckpointEpoch;
import io.epochal.store.ForwardingCheckpointEpoch;

/**
 * Internal. The epoch of an {@code AT_LEAST_ONCE} attempt: the store's epoch, except that txid-carrying maps apply updates to
 * cells already written for its txid instead of skipping them.
 */
final class ReapplyingEpoch extends ForwardingCheckpointEpoch {

  ReapplyingEpoch(CheckpointEpoch inner) {
    super(inner);
  }

  @Override
  public boolean skipsAppliedCells() {
    return false;
  }

  @Override
  public String toString() {
    return wrapped() + " (AT_LEAST_ONCE: applied cells are not skipped)";
  }
}
