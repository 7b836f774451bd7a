package io.epochal.state;

import io.epochal.api.Stable;
import java.util.Optional;

/**
 * Computes a key's new value from its stored value. Must be a pure function of its argument: a map state may call
 * it again for a replayed batch.
 *
 * @param <V> the value type
 *
 * @since 0.1.0
 */
@FunctionalInterface
@Stable
public interface ValueUpdater<V> {

  /**
   * @param stored the current value, empty if the key has none
   * @return the new value, never null: the map states of Epochal refuse a null with the non-retryable
   *     {@link io.epochal.errors.InvalidRecordException} naming the table, the key and the txid
   */
  V update(Optional<V> stored);
}
