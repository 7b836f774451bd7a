package io.epochal.store.table;

import io.epochal.api.Evolving;
import io.epochal.state.IBackingMap;

/**
 * A layer placed between a table-backed map state's txid rule and its table (metering, fault injection in tests):
 * {@code TableStates.builder(..).layer(injector::wrap)}. A generic method, so implement it with a method reference
 * or a class (not a lambda).
 *
 * <p>Implementations must be thread-safe; the layers they return are used like any {@link IBackingMap}.
 *
 * @since 0.1.0
 */
@FunctionalInterface
@Evolving
public interface BackingMapLayer {

  /**
   * Wraps the table-backed map of one state; called once per state when the state is built.
   *
   * @param <K> the state's key type
   * @param <C> the stored cell type (value, transactional or opaque cell)
   * @param inner the table-backed map (or the layer applied before this one) that the returned map must delegate to
   * @return a map that delegates to {@code inner}, adding its behaviour
   */
  <K, C> IBackingMap<K, C> wrap(IBackingMap<K, C> inner);
}
