package io.epochal.spout;

import io.epochal.api.Stable;

/**
 * One source partition's positions, as {@link LagReporting#sourceLag()} reports them: the end of the partition now
 * (Kafka: the end offset, the last stable offset under {@code read_committed}; a YTsaurus queue: the tablet's total
 * row count) and the position the pipeline's last committed batch ends at. Both are offsets of the source, so
 * {@link #lag()} counts offsets: records, except offsets without a record (transaction markers, compacted or aborted
 * records).
 *
 * <p>Immutable and thread-safe.
 *
 * @param end the offset after the last record of the partition now, {@code >= 0}
 * @param committed the offset the last committed batch ends at (where the next batch starts), {@code >= 0}
 * @since 0.5.0
 */
@Stable
public record PartitionLag(long end, long committed) {

  /**
   * Checks both positions.
   *
   * @param end the offset after the last record of the partition now, {@code >= 0}
   * @param committed the offset the last committed batch ends at, {@code >= 0}
   * @throws IllegalArgumentException if a position is negative
   */
  public PartitionLag {
    if (end < 0 || committed < 0) {
      throw new IllegalArgumentException("Positions must be >= 0: end " + end + ", committed " + committed);
    }
  }

  /** @return the offsets after the committed position up to the end, {@code end - committed}, or 0 if negative */
  public long lag() {
    return Math.max(0, end - committed);
  }
}
