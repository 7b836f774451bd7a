package io.epochal.pipeline;

import io.epochal.api.Stable;

/**
 * What one committed batch did, with the time each phase took.
 *
 * @param txid the batch's txid
 * @param attempts how many attempts it took (1 when nothing failed)
 * @param records how many records the spouts emitted in the committed attempt
 * @param commitNanos how long the commit phase (state writes and the durable commit) took
 * @param emitNanos how long the spouts took to emit the committed attempt
 * @param processNanos how long the process phase (the operations before the states) took
 * @param stateNanos how long the states took to stage or write the batch, within {@code commitNanos}
 * @param durableNanos how long the durable commit (checkpoint, epoch) took, within {@code commitNanos}
 * @param outputs how many records the batch's sinks staged
 *
 * @since 0.1.0
 */
@Stable
public record BatchReport(long txid, int attempts, long records, long commitNanos, long emitNanos,
    long processNanos, long stateNanos, long durableNanos, long outputs) {

  /**
   * A report without the phase timings and outputs (all zero).
   *
   * @param txid the batch's txid
   * @param attempts how many attempts it took (1 when nothing failed)
   * @param records how many records the spouts emitted in the committed attempt
   * @param commitNanos how long the commit phase took
   */
  public BatchReport(long txid, int attempts, long records, long commitNanos) {
    this(txid, attempts, records, commitNanos, 0, 0, 0, 0, 0);
  }
}
