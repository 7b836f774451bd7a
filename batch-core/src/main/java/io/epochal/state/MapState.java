package io.epochal.state;

import io.epochal.api.Stable;
import java.util.Map;

/**
 * A keyed state updated in bulk by the batch of the epoch given to {@link #begin(Epoch)}. Implementations decide
 * what a replay of a batch does (apply again, skip, or recompute from the previous value) and say so in their
 * Javadoc.
 *
 * @param <K> the key type
 * @param <V> the value type
 *
 * @since 0.1.0
 */
@Stable
public interface MapState<K, V> extends ReadOnlyMapState<K, V> {

  /**
   * Applies one updater per key for the open epoch's batch. A second call for the same key within one attempt builds
   * on the first call's result.
   *
   * @param updaters for each key, the function from its value before the update (empty if none) to its new value
   * @return an unmodifiable map of every given key to its value after the update
   * @throws NullPointerException if an argument or an updater is null
   * @throws IllegalStateException if no epoch is open, or the open epoch is {@linkplain Epoch#readOnly read-only}
   * @throws io.epochal.errors.InvalidRecordException (not retryable) if a key is null or has no value equality, or an
   *     updater returns null
   * @throws io.epochal.errors.StateAheadException if a stored txid is ahead of the epoch's
   */
  Map<K, V> multiUpdate(Map<K, ? extends ValueUpdater<V>> updaters);

  /**
   * Replaces the values of the given keys for the open epoch's batch.
   *
   * @param values the new value of each key, replacing whatever it had
   * @throws NullPointerException if an argument is null
   * @throws IllegalStateException if no epoch is open, or the open epoch is {@linkplain Epoch#readOnly read-only}
   * @throws io.epochal.errors.InvalidRecordException (not retryable) if a key or a value is null, or a key has no
   *     value equality
   * @throws io.epochal.errors.StateAheadException if a stored txid is ahead of the epoch's
   */
  void multiPut(Map<K, V> values);
}
