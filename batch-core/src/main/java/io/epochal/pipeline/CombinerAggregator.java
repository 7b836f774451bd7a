package io.epochal.pipeline;

/**
 * An associative, commutative aggregation: {@code init} turns a record into a partial value, {@code combine} merges
 * two. Lets the engine pre-aggregate each batch per partition before touching state, so a state sees one update per
 * key per batch. Must be pure.
 *
 * @param <T> the record type
 * @param <V> the value type
 */
public interface CombinerAggregator<T, V> {

  /** The partial value of one record; never null. */
  V init(T record);

  /** Merges two partial values; never null. Associative and commutative. */
  V combine(V left, V right);

  /** The neutral element, the value of a key with no records. */
  V zero();
}
