package io.epochal.flow;

import io.epochal.api.Evolving;
import io.epochal.codec.Codec;
import java.time.Duration;
import java.util.Objects;

/**
 * Reads a computation's input with an event-time delay ({@link Flow#process(io.epochal.pipeline.Stream, String,
 * java.util.function.Function, java.util.function.Supplier, FlowStates, WatermarkStrategy, DelaySpec)}): a record
 * with timestamp {@code ts} reaches {@link KeyedProcessor#process} only in the first batch after whose records the
 * computation's watermark is at least {@code ts + delay} (as YTsaurus Flow reads a factors stream one hour late).
 *
 * <p>Until then the record is buffered durably: encoded with {@code records} into the computation's internal
 * tables, in the batch's epoch (committed with the checkpoint, restored after a restart, never held only in heap).
 * Each batch releases at most {@code maxReleasedPerBatch} records per partition, read {@code pageSize} at a time, in
 * order of {@code ts + delay} and then of arrival; the rest are released in the next batches, still in order.
 *
 * <p>Immutable and thread-safe.
 *
 * @param delay the event-time delay, at least 0 (millisecond precision)
 * @param records encodes the buffered records; must round-trip them ({@code decode(encode(r))} equal to {@code r})
 * @param maxReleasedPerBatch the most records one partition releases in one batch, at least 1
 * @param pageSize the most buffered records read in one lookup, in {@code [1, 65536]}
 * @param <T> the record type
 * @since 0.5.0
 */
@Evolving
public record DelaySpec<T>(Duration delay, Codec<T> records, int maxReleasedPerBatch, int pageSize) {
  /** The default bound of released records per partition and batch. */
  public static final int DEFAULT_MAX_RELEASED_PER_BATCH = 10_000;
  /** The default page size. */
  public static final int DEFAULT_PAGE_SIZE = 1024;

  /**
   * Validates a delay.
   *
   * @param delay the event-time delay, at least 0; used at millisecond precision ({@link #millis()})
   * @param records encodes the buffered records into the computation's delay tables; must round-trip them
   * @param maxReleasedPerBatch the most records one partition releases in one batch, at least 1
   * @param pageSize the most buffered records read in one lookup, in {@code [1, 65536]}
   * @throws NullPointerException if {@code delay} or {@code records} is null
   * @throws IllegalArgumentException if {@code delay} is negative, {@code maxReleasedPerBatch} below 1 or
   *     {@code pageSize} outside {@code [1, 65536]}
   */
  public DelaySpec {
    Objects.requireNonNull(delay, "delay");
    Objects.requireNonNull(records, "records");
    if (delay.isNegative()) {
      throw new IllegalArgumentException("delay must not be negative, was " + delay);
    }
    if (maxReleasedPerBatch < 1) {
      throw new IllegalArgumentException("maxReleasedPerBatch must be >= 1, was " + maxReleasedPerBatch);
    }
    if (pageSize < 1 || pageSize > 65_536) {
      throw new IllegalArgumentException("pageSize must be in [1, 65536], was " + pageSize);
    }
  }

  /**
   * A delay with the default bounds ({@value #DEFAULT_MAX_RELEASED_PER_BATCH} released per partition and batch,
   * pages of {@value #DEFAULT_PAGE_SIZE}).
   *
   * @param delay the event-time delay, at least 0: a record with timestamp {@code ts} is processed once the watermark
   *     reaches {@code ts + delay}
   * @param records encodes the buffered records; must round-trip them
   * @param <T> the record type
   * @return a new delay spec
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code delay} is negative
   */
  public static <T> DelaySpec<T> of(Duration delay, Codec<T> records) {
    return new DelaySpec<>(delay, records, DEFAULT_MAX_RELEASED_PER_BATCH, DEFAULT_PAGE_SIZE);
  }

  /**
   * Returns a copy with another bound of released records per partition and batch.
   *
   * @param max the most records one partition releases in one batch, at least 1
   * @return a new delay spec, equal to this one but for {@code maxReleasedPerBatch}
   * @throws IllegalArgumentException if {@code max} is below 1
   */
  public DelaySpec<T> withMaxReleasedPerBatch(int max) {
    return new DelaySpec<>(delay, records, max, pageSize);
  }

  /**
   * Returns a copy with another page size.
   *
   * @param size the most buffered records read in one lookup, in {@code [1, 65536]}
   * @return a new delay spec, equal to this one but for {@code pageSize}
   * @throws IllegalArgumentException if {@code size} is outside {@code [1, 65536]}
   */
  public DelaySpec<T> withPageSize(int size) {
    return new DelaySpec<>(delay, records, maxReleasedPerBatch, size);
  }

  /** @return the delay in milliseconds */
  public long millis() {
    return delay.toMillis();
  }
}
