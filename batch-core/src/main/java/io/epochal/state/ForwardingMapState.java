package io.epochal.state;

import java.util.Collection;
import java.util.Map;
import java.util.Objects;

/**
 * The base of a {@link MapState} layer (metering, logging, snapshots): forwards every call, including the whole
 * lifecycle ({@link #beginCommit}, {@link #commit}, {@link #abort}), to the wrapped state. Override what the layer
 * changes and call {@code super} to keep forwarding. Thread-safety is the wrapped state's plus the subclass's.
 *
 * @param <K> the key type
 * @param <V> the value type
 * @since 0.3.0
 */
public abstract class ForwardingMapState<K, V> implements MapState<K, V> {
  private final MapState<K, V> delegate;

  protected ForwardingMapState(MapState<K, V> delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** @return the wrapped state */
  public final MapState<K, V> wrapped() {
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
