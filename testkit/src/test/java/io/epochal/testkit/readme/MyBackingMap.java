package io.epochal.testkit.readme;

import io.epochal.state.IBackingMap;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The README's {@code MyBackingMap}: a correct user backing map ({@code multiPut} replaces each cell, so a retried
 * put is harmless) for the testkit snippets. Thread-safe.
 */
final class MyBackingMap<C> implements IBackingMap<String, C> {
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
    return Collections.unmodifiableMap(found);
  }

  @Override
  public void multiPut(Map<String, C> put) {
    cells.putAll(put);
  }
}
