package io.epochal.pipeline;

/**
 * What one committed batch did.
 *
 * @param txid the batch's txid
 * @param attempts how many attempts it took (1 when nothing failed)
 * @param records how many records the spout emitted in the committed attempt
 * @param commitNanos how long the commit phase (state writes and checkpoint) took
 */
public record BatchReport(long txid, int attempts, long records, long commitNanos) {
}
