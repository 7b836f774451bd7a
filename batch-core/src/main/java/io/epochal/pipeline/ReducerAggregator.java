package io.epochal.pipeline;

import io.epochal.api.Stable;

/**
 * A sequential aggregation folded over the records of a key, starting from the stored value or {@link #init()}.
 * Cannot be pre-aggregated; the engine groups the batch's records by key and folds them in emission order. Pure.
 *
 * <p>A null from {@code reduce}, or an {@link ArithmeticException}, fails the batch with
 * {@link io.epochal.errors.InvalidRecordException} naming the pipeline, the state, the key and the txid, not retried.
 *
 * @param <T> the record type
 * @param <V> the value type
 *
 * @since 0.1.0
 */
@Stable
public interface ReducerAggregator<T, V> {

  /**
   * The value of a key that has none yet.
   *
   * @return the starting value of the fold for a key without a stored value
   */
  V init();

  /**
   * Folds one record into a value.
   *
   * @param current the key's value so far: the stored value, {@link #init()}, or the previous record's result
   * @param record the key's next record, in emission order
   * @return the value with {@code record} folded in, never null
   */
  V reduce(V current, T record);
}
