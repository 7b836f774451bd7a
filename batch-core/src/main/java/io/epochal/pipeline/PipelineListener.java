package io.epochal.pipeline;

import io.epochal.api.Stable;
import io.epochal.spout.BatchAttempt;

/**
 * Observes a running pipeline (progress output, metrics export). Called on the coordinator thread; must be quick and
 * must not throw.
 *
 * @since 0.1.0
 */
@Stable
public interface PipelineListener {

  /**
   * Batch {@code report.txid()} is committed.
   *
   * @param report the committed batch's txid, attempts, record counts and phase timings
   */
  default void onBatchCommitted(BatchReport report) {
  }

  /**
   * An attempt failed: it is replayed, or, when the failure is not retryable or retries are exhausted, the pipeline
   * stops after this call. Called on the coordinator thread, after the attempt was aborted.
   *
   * @param attempt the txid and attempt number that failed
   * @param cause the attempt's failure
   */
  default void onAttemptFailed(BatchAttempt attempt, Throwable cause) {
  }

  /**
   * An {@link Guarantee#AT_MOST_ONCE} pipeline dropped batch {@code txid}: its position was recorded before it was
   * processed, so instead of replaying it the pipeline committed the txid with that position and without the batch's
   * records (on the per-key protocol, state cells the failed attempt already wrote stay as written). Called after
   * that commit, on the coordinator thread; {@link #onBatchCommitted} is not called for the txid.
   *
   * @param txid the dropped batch's txid, now committed without its records
   * @param cause the failure of the batch's attempt (after {@link #onAttemptFailed} for it), or, for a batch an
   *     earlier run left pending, an {@link io.epochal.errors.EpochalException} saying so
   * @since 0.6.0
   */
  default void onBatchDropped(long txid, Throwable cause) {
  }
}
