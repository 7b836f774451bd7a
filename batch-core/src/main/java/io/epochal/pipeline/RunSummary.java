package io.epochal.pipeline;

import io.epochal.api.Stable;

/**
 * What one {@code run} call did.
 *
 * @param firstTxid the first txid committed by the call, 0 if none
 * @param lastTxid the last committed txid after the call
 * @param batches batches committed by the call (not counting batches an {@code AT_MOST_ONCE} pipeline dropped)
 * @param failedAttempts attempts that failed during the call (and were replayed or, {@code AT_MOST_ONCE}, dropped)
 * @param records records of the committed batches
 *
 * @since 0.1.0
 */
@Stable
public record RunSummary(long firstTxid, long lastTxid, long batches, long failedAttempts, long records) {
}
