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

  /** @return a map that delegates to {@code inner} (the table-backed map), adding its behaviour */
  <K, C> IBackingMap<K, C> wrap(IBackingMap<K, C> inner);
}
