package io.epochal.pipeline;

import io.epochal.api.Stable;

/**
 * A snapshot of a pipeline's counters since it was built.
 *
 * @param batchesCommitted batches committed by this pipeline instance
 * @param failedAttempts attempts that failed and were replayed (the "replays survived")
 * @param recordsCommitted records emitted by committed attempts
 * @param lastCommittedTxid the last committed txid (including batches committed before a restart)
 * @param totalCommitNanos time spent in commit phases
 * @param maxCommitNanos the longest commit phase
 *
 * @since 0.1.0
 */
@Stable
public record PipelineMetrics(long batchesCommitted, long failedAttempts, long recordsCommitted,
    long lastCommittedTxid, long totalCommitNanos, long maxCommitNanos) {
}
