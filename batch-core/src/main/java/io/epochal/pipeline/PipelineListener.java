package io.epochal.pipeline;

import io.epochal.spout.BatchAttempt;

/**
 * Observes a running pipeline (progress output, metrics export). Called on the coordinator thread; must be quick and
 * must not throw.
 */
public interface PipelineListener {

  /** Batch {@code report.txid()} is committed. */
  default void onBatchCommitted(BatchReport report) {
  }

  /** An attempt failed and will be retried (or the pipeline stops if retries are exhausted). */
  default void onAttemptFailed(BatchAttempt attempt, Throwable cause) {
  }
}
