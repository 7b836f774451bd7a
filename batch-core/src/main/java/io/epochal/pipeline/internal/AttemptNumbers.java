package io.epochal.pipeline.internal;

import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.store.Checkpoint;
import io.epochal.store.CheckpointStore;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Numbers the attempts of a pipeline's txids: every emission of a txid gets a number above every earlier emission of
 * it, also across batches dropped behind a failed one and across restarts, as far as the checkpoint store keeps the
 * reservation ({@link CheckpointStore#reserveAttempts}). Used by the coordinator thread only. Internal.
 */
final class AttemptNumbers {
  private static final Logger LOG = LoggerFactory.getLogger(AttemptNumbers.class);

  private final String pipeline;
  private final CheckpointStore store;
  private final int maxBatchesInFlight;
  /** The attempt ceiling of earlier runs, as loaded: txids up to {@link #inheritedHorizon} start above it. */
  private final long inheritedCeiling;
  /** The last txid an earlier run may have started: the loaded committed txid plus the reserved window. */
  private final long inheritedHorizon;
  /** Attempt numbers reserved at a time: enough for one run's attempts of a txid unless failures pile up. */
  private final long attemptBlock;
  /** What this run reserved so far (initially what earlier runs reserved). */
  private long attemptCeiling;
  private long txidWindow;
  private boolean reservationsPersist = true;
  /** The highest attempt number this run started, per txid not yet committed. */
  private final TreeMap<Long, Integer> lastAttempt = new TreeMap<>();

  AttemptNumbers(String pipeline, CheckpointStore store, Checkpoint loaded, int maxAttempts, int maxBatchesInFlight) {
    this.pipeline = pipeline;
    this.store = store;
    this.maxBatchesInFlight = maxBatchesInFlight;
    this.inheritedCeiling = loaded.attemptCeiling();
    this.inheritedHorizon = loaded.committedTxid() + loaded.txidWindow();
    this.attemptCeiling = inheritedCeiling;
    this.txidWindow = loaded.txidWindow();
    this.attemptBlock = Math.max(1L, (long) maxAttempts * maxBatchesInFlight);
  }

  /**
   * The attempt number of a new emission of {@code txid}: above every earlier emission of it in this run, and above
   * the inherited ceiling if an earlier run may have started it; reserved in the checkpoint store before use.
   */
  int next(long txid) {
    Integer last = lastAttempt.get(txid);
    long floor = last != null ? last : txid <= inheritedHorizon ? inheritedCeiling : 0;
    long attempt = floor + 1;
    if (attempt > Integer.MAX_VALUE) {
      throw new EpochalException("Pipeline '" + pipeline + "': the attempt numbers of txid " + txid
          + " are exhausted (" + floor + " reserved by earlier runs and failures); no attempt number above them is "
          + "left. Run the pipeline under a new name (a new checkpoint).", null, false,
          ErrorContext.NONE.withPipeline(pipeline).withTxid(txid));
    }
    reserve(attempt);
    lastAttempt.put(txid, (int) attempt);
    return (int) attempt;
  }

  /** Batch {@code txid} committed: forget the numbers of it and every earlier txid. */
  void committed(long txid) {
    lastAttempt.headMap(txid, true).clear();
  }

  /**
   * Makes sure {@code attempt} and this run's window are covered by the persisted reservation (one write when not).
   * The window bounds which txids this run can start: never more than {@code maxBatchesInFlight} above the committed
   * txid, which only grows, so a later run knows every txid this one may have started.
   */
  private void reserve(long attempt) {
    long window = maxBatchesInFlight;
    if (attempt <= attemptCeiling && window <= txidWindow) {
      return;
    }
    long ceiling = attempt <= attemptCeiling ? attemptCeiling
        : Math.min(Integer.MAX_VALUE, attempt - 1 + attemptBlock);
    long reservedWindow = Math.max(window, txidWindow);
    if (reservationsPersist) {
      try {
        store.reserveAttempts(pipeline, ceiling, reservedWindow);
      } catch (UnsupportedOperationException e) {
        reservationsPersist = false;
        LOG.warn("pipeline '{}': checkpoint store {} does not keep attempt reservations, so after a restart an "
            + "attempt of a txid may repeat the number of an earlier run's attempt ({})", pipeline,
            store.describe(), e.getMessage());
      }
    }
    attemptCeiling = ceiling;
    txidWindow = reservedWindow;
  }
}
