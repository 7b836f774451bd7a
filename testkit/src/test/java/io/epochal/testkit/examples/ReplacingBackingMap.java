package io.epochal.testkit.examples;

import io.epochal.state.IBackingMap;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** A correct user backing map: {@code multiPut} replaces each cell, so a retried put is harmless. */
final class ReplacingBackingMap<C> implements IBackingMap<String, C> {
  private final Map<String, C> cells = new ConcurrentHashMap<>();

  @Override
  public Map<String, C> multiGet(Collection<? extends String> keys) {
    Map<String, C> found = new HashMap<>();
    for (String key : keys) {
      C cell = cells.get(key);
      if (cell != null) {
        found.put(key, cell);
      }
    }
    return java.util.Collections.unmodifiableMap(found);
  }

  @Override
  public void multiPut(Map<String, C> put) {
    cells.putAll(put);
  }
}
