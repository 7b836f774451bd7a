package io.epochal.pipeline;

import io.epochal.api.Stable;

/**
 * What one {@code run} call did.
 *
 * @param firstTxid the first txid committed by the call, 0 if none
 * @param lastTxid the last committed txid after the call
 * @param batches batches committed by the call
 * @param failedAttempts attempts that failed and were replayed during the call
 * @param records records of the committed batches
 *
 * @since 0.1.0
 */
@Stable
public record RunSummary(long firstTxid, long lastTxid, long batches, long failedAttempts, long records) {
}
