package io.epochal.pipeline;

import java.util.Objects;
import java.util.function.ToLongFunction;

/** Common aggregators. */
public final class Aggregators {
  private Aggregators() {
  }

  /** Counts records: {@code Long} per key. */
  public static <T> CombinerAggregator<T, Long> count() {
    return new CombinerAggregator<>() {
      @Override
      public Long init(T record) {
        return 1L;
      }

      @Override
      public Long combine(Long left, Long right) {
        return left + right;
      }

      @Override
      public Long zero() {
        return 0L;
      }
    };
  }

  /** Sums a long field of the records. */
  public static <T> CombinerAggregator<T, Long> sumLong(ToLongFunction<? super T> field) {
    Objects.requireNonNull(field, "field");
    return new CombinerAggregator<>() {
      @Override
      public Long init(T record) {
        return field.applyAsLong(record);
      }

      @Override
      public Long combine(Long left, Long right) {
        return left + right;
      }

      @Override
      public Long zero() {
        return 0L;
      }
    };
  }
}
