package io.epochal.pipeline;

import io.epochal.api.Stable;
import io.epochal.state.MapState;

/**
 * A keyed state made by {@code persistentAggregate}.
 *
 * @param <K> the key type
 * @param <V> the value type
 *
 * @since 0.1.0
 */
@Stable
public interface MapStateRef<K, V> extends StateRef<MapState<K, V>> {

  /**
   * The new value of every key the batch updated, emitted after the update (Trident's {@code newValuesStream}).
   *
   * @return a stream of (key, value after the batch's update) pairs, one per key updated in the batch
   */
  Stream<KeyValue<K, V>> newValuesStream();
}
