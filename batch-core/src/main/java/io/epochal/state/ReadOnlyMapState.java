package io.epochal.state;

import io.epochal.api.Stable;
import java.util.Collection;
import java.util.Map;

/**
 * A keyed state that can be read in bulk, for the epoch given to {@link #begin(Epoch)}.
 *
 * @param <K> the key type
 * @param <V> the value type
 *
 * @since 0.1.0
 */
@Stable
public interface ReadOnlyMapState<K, V> extends State {

  /**
   * Reads keys as seen by the open epoch's batch: see the txid rules of the implementation (an opaque map returns the
   * value from before the batch for a key that an earlier failed attempt of the batch wrote). To read committed
   * values outside a pipeline, begin a read-only epoch ({@link Epoch#readAfter}).
   *
   * @param keys the keys to read
   * @return an unmodifiable map holding the keys that have a value; absent keys have none
   * @throws NullPointerException if {@code keys} is null
   * @throws IllegalStateException if no epoch is open (outside {@code begin..end})
   * @throws io.epochal.errors.InvalidRecordException (not retryable) if a key is null or has no value equality (the
   *     maps of Epochal check; see {@link io.epochal.pipeline.Bytes})
   * @throws io.epochal.errors.StateAheadException if a stored txid is ahead of the epoch's (opaque maps)
   */
  Map<K, V> multiGet(Collection<? extends K> keys);
}
