package io.epochal.pipeline;

import io.epochal.api.Stable;

/**
 * An associative, commutative aggregation: {@code init} turns a record into a partial value, {@code combine} merges
 * two. Lets the engine pre-aggregate each batch per partition before touching state, so a state sees one update per
 * key per batch. Must be pure.
 *
 * <p>A null from {@code init} or {@code combine}, or an {@link ArithmeticException} (e.g. an overflow), fails the batch
 * in which it happens with {@link io.epochal.errors.InvalidRecordException} naming the pipeline, the state, the key and
 * the txid; it is not retried (the same input gives the same result) and nothing of the batch is committed.
 *
 * @param <T> the record type
 * @param <V> the value type
 *
 * @since 0.1.0
 */
@Stable
public interface CombinerAggregator<T, V> {

  /**
   * The partial value of one record.
   *
   * @param record a record of the batch
   * @return the record's partial value, never null
   */
  V init(T record);

  /**
   * Merges two partial values. Associative and commutative.
   *
   * @param left a partial value (or the key's stored value)
   * @param right another partial value
   * @return the merged value, never null
   */
  V combine(V left, V right);

  /**
   * The neutral element, the value of a key with no records.
   *
   * @return the value {@code v} for which {@code combine(zero(), v)} equals {@code v}
   */
  V zero();
}
