package io.epochal.state;

import io.epochal.api.Stable;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;

/**
 * The base of a {@link MapState} layer (metering, logging, snapshots): forwards every call, including the whole
 * lifecycle ({@link #begin}, {@link #end}, {@link #abort}), to the wrapped state. Override what the layer
 * changes and call {@code super} to keep forwarding. Removal is forwarded to a {@link RemovableMapState}
 * ({@link #canRemove()} is false over another state); a layer that keeps values must override {@link #multiRemove} to
 * drop them. Thread-safety is the wrapped state's plus the subclass's.
 *
 * @param <K> the key type
 * @param <V> the value type
 * @since 0.3.0
 */
@Stable
public abstract class ForwardingMapState<K, V> implements RemovableMapState<K, V> {
  private final MapState<K, V> delegate;

  /**
   * A layer over {@code delegate}.
   *
   * @param delegate the wrapped state, which receives every call not overridden; not null
   * @throws NullPointerException if {@code delegate} is null
   */
  protected ForwardingMapState(MapState<K, V> delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** @return the wrapped state */
  public final MapState<K, V> wrapped() {
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

  /** @return whether the wrapped state is a {@link RemovableMapState} that can remove */
  @Override
  public boolean canRemove() {
    return delegate instanceof RemovableMapState<K, V> r && r.canRemove();
  }

  /** @throws UnsupportedOperationException if the wrapped state is not a {@link RemovableMapState} */
  @Override
  public void multiRemove(Collection<? extends K> keys) {
    if (!(delegate instanceof RemovableMapState<K, V> r)) {
      throw new UnsupportedOperationException(getClass().getSimpleName() + " over " + delegate + " cannot remove keys: "
          + "the wrapped state is not a RemovableMapState");
    }
    r.multiRemove(keys);
  }
}
