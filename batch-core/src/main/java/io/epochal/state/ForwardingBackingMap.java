package io.epochal.state;

import io.epochal.api.Stable;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;

/**
 * The base of an {@link IBackingMap} layer (metering, caching, fault injection): forwards every call, including the
 * whole lifecycle ({@link #begin}, {@link #end}, {@link #abort}), to the wrapped map. Override what the layer
 * changes and call {@code super} to keep forwarding. Thread-safety is the wrapped map's plus the subclass's.
 *
 * @param <K> the key type
 * @param <C> the cell type
 * @since 0.3.0
 */
@Stable
public abstract class ForwardingBackingMap<K, C> implements IBackingMap<K, C> {
  private final IBackingMap<K, C> delegate;

  /**
   * A layer over {@code delegate}.
   *
   * @param delegate the wrapped map, which receives every call not overridden; not null
   * @throws NullPointerException if {@code delegate} is null
   */
  protected ForwardingBackingMap(IBackingMap<K, C> delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** @return the wrapped map */
  public final IBackingMap<K, C> wrapped() {
    return delegate;
  }

  @Override
  public Map<K, C> multiGet(Collection<? extends K> keys) {
    return delegate.multiGet(keys);
  }

  @Override
  public void multiPut(Map<K, C> cells) {
    delegate.multiPut(cells);
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
  public String describe() {
    return getClass().getSimpleName() + " over " + delegate.describe();
  }
}
