package io.epochal.pipeline.internal;

import io.epochal.errors.BatchFailedException;
import io.epochal.errors.EpochalException;
import io.epochal.spout.BatchAttempt;
import io.epochal.store.Checkpoint;
import io.epochal.store.CheckpointEpoch;
import io.epochal.store.CheckpointStore;
import io.epochal.store.OutboxEntry;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's durable commits: a batch's epoch (a failure whose commit landed anyway counts as done), and the
 * empty epoch of a batch an {@code AT_MOST_ONCE} pipeline drops. Used by the coordinator thread only. Internal.
 */
final class DurableCommits {
  private static final Logger LOG = LoggerFactory.getLogger(DurableCommits.class);

  private final Coordinator.Config config;
  private final AttemptNumbers attempts;

  DurableCommits(Coordinator.Config config, AttemptNumbers attempts) {
    this.config = config;
    this.attempts = attempts;
  }

  /**
   * Commits {@code epoch} of batch {@code txid}: the one call that makes a batch durable. If it throws, the checkpoint
   * is re-read: a commit that landed (reply lost) counts as done.
   */
void commit(CheckpointEpoch epoch, long txid, byte[] metaBytes, List<OutboxEntry> outbox) {
  CheckpointStore store = config.checkpointStore();
  try {
    epoch.commit(metaBytes, outbox);
  } catch (RuntimeException e) {
    Checkpoint reread;
    try {
      reread = store.load(config.name());
    } catch (RuntimeException again) {
      e.addSuppressed(again);
      throw e;
    }
    if (reread.committedTxid() == txid) {
      LOG.warn("pipeline '{}': checkpoint commit of txid {} reported {}, but the store shows it committed",
          config.name(), txid, e.toString());
      return;
    }
    throw e;
  }
}

/**
 * Commits batch {@code txid} as an empty epoch with spout metadata {@code position}, retrying a retryable failure
 * under the retry policy (nothing of the batch is applied, so a retry cannot count anything twice).
 */
void commitDropped(long txid, byte[] position) {
  for (int tries = 1;; tries++) {
    CheckpointEpoch epoch = null;
    try {
      epoch = config.checkpointStore().openEpoch(config.name(), new BatchAttempt(txid, attempts.next(txid)));
      commit(epoch, txid, position, List.of());
      return;
    } catch (RuntimeException e) {
      if (epoch != null) {
        try {
          epoch.abort();
        } catch (RuntimeException again) {
          e.addSuppressed(again);
        }
      }
      if (!EpochalException.isRetryable(e)) {
        throw e;
      }
      if (tries >= config.retryPolicy().maxAttempts()) {
        throw new BatchFailedException(config.name(), txid, tries, e);
      }
      LOG.warn("pipeline '{}': commit of dropped txid {} failed, retrying: {}", config.name(), txid, e.toString());
      try {
        config.sleeper().sleep(config.retryPolicy().backoffAfter(tries));
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
        throw new BatchFailedException(config.name(), txid, tries, ie);
      }
    }
  }
}

  /** The cause reported for batch {@code txid}, dropped because an earlier run left it pending. */
  EpochalException pendingAtRestart(long txid, io.epochal.errors.ErrorContext context) {
    return new EpochalException("Pipeline '" + config.name() + "': batch txid " + txid + " was started by an earlier "
        + "run that stopped before committing it; AT_MOST_ONCE never replays a batch whose position was recorded",
        null, false, context);
  }
}
