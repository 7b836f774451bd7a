package io.epochal.state;

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
 */
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

  /** @return the global value as seen by batch {@code txid} */
  public Optional<V> get(long txid) {
    return Optional.ofNullable(delegate.multiGet(txid, List.of(globalKey)).get(globalKey));
  }

  /** Updates the global value for batch {@code txid}; returns the new value. */
  public V update(long txid, ValueUpdater<V> updater) {
    return delegate.multiUpdate(txid, Map.of(globalKey, updater)).get(globalKey);
  }

  /** Replaces the global value for batch {@code txid}. */
  public void set(long txid, V value) {
    delegate.multiPut(txid, Map.of(globalKey, value));
  }

  /** @return the wrapped map */
  public MapState<K, V> wrapped() {
    return delegate;
  }

  @Override
  public void beginCommit(long txid) {
    delegate.beginCommit(txid);
  }

  @Override
  public void commit(long txid) {
    delegate.commit(txid);
  }

  @Override
  public void abort(long txid) {
    delegate.abort(txid);
  }

  @Override
  public Map<K, V> multiGet(long txid, Collection<? extends K> keys) {
    return delegate.multiGet(txid, keys);
  }

  @Override
  public Map<K, V> multiUpdate(long txid, Map<K, ? extends ValueUpdater<V>> updaters) {
    return delegate.multiUpdate(txid, updaters);
  }

  @Override
  public void multiPut(long txid, Map<K, V> values) {
    delegate.multiPut(txid, values);
  }
}
