package io.epochal.pipeline;

import io.epochal.api.Stable;
import java.util.Objects;
import java.util.function.ToLongFunction;

/**
 * Common aggregators. Their arithmetic is exact: a result outside the {@code long} range throws
 * {@link ArithmeticException}, which the pipeline reports as a non-retryable
 * {@link io.epochal.errors.InvalidRecordException} naming the state, the key and the txid (a wrapped-around count is
 * never stored).
 *
 * <p>Stateless and thread-safe: static methods only.
 *
 * @since 0.1.0
 */
@Stable
public final class Aggregators {
  private Aggregators() {
  }

  /**
   * Counts records: {@code Long} per key.
   *
   * @param <T> the record type
   * @return an aggregator whose value is the number of records (0 for a key without records)
   */
  public static <T> CombinerAggregator<T, Long> count() {
    return new CombinerAggregator<>() {
      @Override
      public Long init(T record) {
        return 1L;
      }

      @Override
      public Long combine(Long left, Long right) {
        return add("count", left, right);
      }

      @Override
      public Long zero() {
        return 0L;
      }
    };
  }

  /**
   * Sums a long field of the records.
   *
   * @param field gives the field's value of a record
   * @param <T> the record type
   * @return an aggregator whose value is the exact sum of {@code field} over the records (0 for none)
   * @throws NullPointerException if {@code field} is null
   */
  public static <T> CombinerAggregator<T, Long> sumLong(ToLongFunction<? super T> field) {
    Objects.requireNonNull(field, "field");
    return new CombinerAggregator<>() {
      @Override
      public Long init(T record) {
        return field.applyAsLong(record);
      }

      @Override
      public Long combine(Long left, Long right) {
        return add("sumLong", left, right);
      }

      @Override
      public Long zero() {
        return 0L;
      }
    };
  }

  private static Long add(String aggregator, long left, long right) {
    long sum = left + right;
    if (((left ^ sum) & (right ^ sum)) < 0) { // Math.addExact's test, with a message naming the operands
      throw new ArithmeticException(aggregator + " overflowed: " + left + " + " + right
          + " is outside the long range [" + Long.MIN_VALUE + ", " + Long.MAX_VALUE + "]");
    }
    return sum;
  }
}
