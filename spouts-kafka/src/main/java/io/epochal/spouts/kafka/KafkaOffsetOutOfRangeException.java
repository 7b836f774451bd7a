package io.epochal.spouts.kafka;

import io.epochal.api.Evolving;

/**
 * An offset the spout must read is not in the partition's log: below its start (retention or {@code deleteRecords}
 * deleted records that were never committed) or past its end (the topic was deleted and created again, or the log
 * was truncated). Names topic, partition, offset and the log's current start and end.
 *
 * <p>Under {@link OffsetOutOfRangePolicy#FAIL} (the default, the only one that keeps exactly-once): below the start
 * is not retryable, the records are gone; past the end is retryable (a partition leader that has not caught up yet),
 * and stops the pipeline once the retry policy is exhausted.
 *
 * @since 0.1.0
 */
@Evolving
public final class KafkaOffsetOutOfRangeException extends KafkaSpoutException {
  private static final long serialVersionUID = 1L;

  /** The log's first offset when the error was detected. */
  private final long logStart;
  /** The log's end offset when the error was detected. */
  private final long logEnd;

  /**
   * Makes the error for an offset outside the log: retryable if it is past {@code logEnd} (the log may catch up),
   * non-retryable otherwise (below the log start, the records were deleted).
   *
   * @param spout the spout's name
   * @param topic the topic
   * @param partition the partition
   * @param offset the offset that is out of range
   * @param logStart the log's first offset now
   * @param logEnd the log's end offset now (the last stable offset under {@code read_committed})
   * @param txid the batch's txid, or 0
   * @param cause the client's failure, or {@code null}
   */
  public KafkaOffsetOutOfRangeException(String spout, String topic, int partition, long offset, long logStart,
      long logEnd, long txid, Throwable cause) {
    super(message(spout, topic, partition, offset, logStart, logEnd, txid), cause, offset > logEnd, spout, topic,
        partition, offset, txid);
    this.logStart = logStart;
    this.logEnd = logEnd;
  }

  private static String message(String spout, String topic, int partition, long offset, long logStart, long logEnd,
      long txid) {
    String where = "Kafka spout '" + spout + "': offset " + offset + " of " + topic + "-" + partition
        + (txid > 0 ? " (txid " + txid + ")" : "") + " is ";
    if (offset < logStart) {
      return where + "below the log start " + logStart + " (log end " + logEnd + "): records [" + offset + ", "
          + logStart + ") were deleted by retention before the pipeline committed them. They cannot be counted; "
          + "raise the topic's retention, or accept the loss with OffsetOutOfRangePolicy.RESET_TO_EARLIEST "
          + "(not exactly-once).";
    }
    return where + "past the log end " + logEnd + " (log start " + logStart + "): the topic was deleted and created "
        + "again, or its log was truncated. The committed offsets do not belong to this log.";
  }

  /**
   * The start of the partition's log.
   *
   * @return the log's first offset when the error was detected
   */
  public long logStart() {
    return logStart;
  }

  /**
   * The end of the partition's log.
   *
   * @return the log's end offset when the error was detected
   */
  public long logEnd() {
    return logEnd;
  }

  /**
   * Tells whether records were lost to retention.
   *
   * @return whether the offset is below the log start (deleted records) rather than past the log end
   */
  public boolean deletedByRetention() {
    return offset().orElseThrow() < logStart;
  }
}
