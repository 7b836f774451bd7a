package io.epochal.testkit.examples;

import io.epochal.state.IBackingMap;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A wrong user backing map: reads go through a cache that is filled on a miss and never updated by {@code multiPut},
 * so the map never sees its own writes. It is wrong on every run, with or without faults: a reference run of the
 * same input is just as wrong, so only a model of the pipeline catches it.
 */
final class ReadCachingBackingMap<C> implements IBackingMap<String, C> {
  private final Map<String, C> cells = new ConcurrentHashMap<>();
  private final Map<String, Map<String, C>> cache = new ConcurrentHashMap<>();

  @Override
  public Map<String, C> multiGet(Collection<? extends String> keys) {
    Map<String, C> found = new HashMap<>();
    for (String key : keys) {
      Map<String, C> cached = cache.computeIfAbsent(key, k -> {
        C cell = cells.get(k);
        return cell == null ? Map.of() : Map.of(k, cell);
      });
      found.putAll(cached);
    }
    return java.util.Collections.unmodifiableMap(found);
  }

  @Override
  public void multiPut(Map<String, C> put) {
    cells.putAll(put); // the bug: the cache keeps the old answers
  }
}
