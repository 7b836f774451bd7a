package io.epochal.pipeline;

import io.epochal.state.MapState;

/**
 * A keyed state made by {@code persistentAggregate}.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public interface MapStateRef<K, V> extends StateRef<MapState<K, V>> {

  /** The new value of every key the batch updated, emitted after the update (Trident's {@code newValuesStream}). */
  Stream<KeyValue<K, V>> newValuesStream();
}
