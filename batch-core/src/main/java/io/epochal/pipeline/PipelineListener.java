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

  /** Batch {@code report.txid()} is committed. */
  default void onBatchCommitted(BatchReport report) {
  }

  /**
   * An attempt failed: it is replayed, or, when the failure is not retryable or retries are exhausted, the pipeline
   * stops after this call. Called on the coordinator thread, after the attempt was aborted.
   */
  default void onAttemptFailed(BatchAttempt attempt, Throwable cause) {
  }
}
