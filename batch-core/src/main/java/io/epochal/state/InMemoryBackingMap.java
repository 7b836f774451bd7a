package io.epochal.state;

import io.epochal.api.Stable;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An {@link IBackingMap} on a {@link ConcurrentHashMap}: the in-memory store for tests and examples. Each instance is
 * its own store (no JVM-wide static map, unlike Trident's {@code MemoryMapState}); share one instance between
 * pipeline runs to model a store that survives a restart.
 *
 * <p>Thread-safe. Each {@code multiPut} writes its cells one by one (not atomically), like most real stores.
 *
 * @param <K> the key type
 * @param <C> the stored cell type
 *
 * @since 0.1.0
 */
@Stable
public final class InMemoryBackingMap<K, C> implements RemovableBackingMap<K, C> {
  private final ConcurrentHashMap<K, C> cells = new ConcurrentHashMap<>();
  private final String name;

  /** An empty store named {@code "in-memory"} in error messages. */
  public InMemoryBackingMap() {
    this("in-memory");
  }

  /**
   * An empty store.
   *
   * @param name the name shown in error messages, not null
   */
  public InMemoryBackingMap(String name) {
    this.name = Objects.requireNonNull(name, "name");
  }

  @Override
  public Map<K, C> multiGet(Collection<? extends K> keys) {
    Map<K, C> found = new HashMap<>(Math.max(16, keys.size() * 2));
    for (K key : keys) {
      C cell = cells.get(Objects.requireNonNull(key, "key"));
      if (cell != null) {
        found.put(key, cell);
      }
    }
    return Collections.unmodifiableMap(found);
  }

  @Override
  @SuppressWarnings("unchecked")
  public List<C> multiGetOrdered(List<? extends K> keys) {
    Object[] found = new Object[keys.size()];
    int i = 0;
    for (K key : keys) {
      found[i++] = cells.get(Objects.requireNonNull(key, "key"));
    }
    return (List<C>) Collections.unmodifiableList(Arrays.asList(found));
  }

  @Override
  public void multiPut(Map<K, C> newCells) {
    newCells.forEach((key, cell) ->
        cells.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(cell, "cell")));
  }

  /**
   * Removes the given keys and their cells, at once for each key (not atomically for all); absent keys are ignored.
   *
   * @param keys the keys to remove, none null
   */
  @Override
  public void multiRemove(Collection<? extends K> keys) {
    keys.forEach(key -> cells.remove(Objects.requireNonNull(key, "key")));
  }

  /** @return an immutable copy of every stored cell */
  public Map<K, C> snapshot() {
    return Map.copyOf(cells);
  }

  /** @return the number of stored cells */
  public int size() {
    return cells.size();
  }

  @Override
  public String describe() {
    return name;
  }

  @Override
  public String toString() {
    return "InMemoryBackingMap[" + name + ", " + cells.size() + " cells]";
  }
}
