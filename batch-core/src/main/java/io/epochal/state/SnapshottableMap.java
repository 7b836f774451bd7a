package io.epochal.state;

import io.epochal.api.Stable;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link MapState} with one distinguished key holding a global aggregate ({@link #get}, {@link #update},
 * {@link #set}), like Trident's {@code SnapshottableMap}. Every call goes through the wrapped map, so the global
 * value obeys the same txid rules as any key. Not thread-safe, like the map it wraps.
 *
 * @param <K> the key type
 * @param <V> the value type
 *
 * @since 0.1.0
 */
@Stable
public final class SnapshottableMap<K, V> implements MapState<K, V> {
  private final MapState<K, V> delegate;
  private final K globalKey;

  /**
   * @param delegate the map holding the value
   * @param globalKey the key under which the global value is stored
   */
  public SnapshottableMap(MapState<K, V> delegate, K globalKey) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.globalKey = Objects.requireNonNull(globalKey, "globalKey");
  }

  /** @return the global value as seen by the open epoch's batch */
  public Optional<V> get() {
    return Optional.ofNullable(delegate.multiGet(List.of(globalKey)).get(globalKey));
  }

  /**
   * Updates the global value for the open epoch's batch; returns the new value.
   *
   * @param updater the function from the global value before the update (empty if none) to its new value
   * @return the global value after the update
   */
  public V update(ValueUpdater<V> updater) {
    return delegate.multiUpdate(Map.of(globalKey, updater)).get(globalKey);
  }

  /**
   * Replaces the global value for the open epoch's batch.
   *
   * @param value the new global value, not null
   */
  public void set(V value) {
    delegate.multiPut(Map.of(globalKey, value));
  }

  /** @return the wrapped map */
  public MapState<K, V> wrapped() {
    return delegate;
  }

  @Override
  public void begin(Epoch epoch) {
    delegate.begin(epoch);
  }

  @Override
  public void end() {
    delegate.end();
  }

  @Override
  public void abort() {
    delegate.abort();
  }

  @Override
  public Map<K, V> multiGet(Collection<? extends K> keys) {
    return delegate.multiGet(keys);
  }

  @Override
  public Map<K, V> multiUpdate(Map<K, ? extends ValueUpdater<V>> updaters) {
    return delegate.multiUpdate(updaters);
  }

  @Override
  public void multiPut(Map<K, V> values) {
    delegate.multiPut(values);
  }
}
