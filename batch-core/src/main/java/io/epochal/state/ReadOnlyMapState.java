package io.epochal.state;

import java.util.Collection;
import java.util.Map;

/**
 * A keyed state that can be read in bulk.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public interface ReadOnlyMapState<K, V> extends State {

  /**
   * Reads keys as seen by batch {@code txid}: see the txid rules of the implementation (an opaque map returns the
   * value from before {@code txid} for a key that an earlier failed attempt of {@code txid} wrote).
   *
   * @return an unmodifiable map holding the keys that have a value; absent keys have none
   * @throws NullPointerException if {@code keys} is null
   * @throws io.epochal.errors.InvalidRecordException (not retryable) if a key is null or has no value equality (the
   *     maps of Epochal check; see {@link io.epochal.pipeline.Bytes})
   * @throws io.epochal.errors.StateAheadException if a stored txid is ahead of {@code txid} (opaque maps)
   */
  Map<K, V> multiGet(long txid, Collection<? extends K> keys);
}
