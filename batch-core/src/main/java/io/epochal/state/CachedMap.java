package io.epochal.state;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A read-through, write-through LRU cache of cells over another {@link IBackingMap}, on Caffeine. Place it under
 * the txid layer ({@code OpaqueMap.over(new CachedMap<>(store, n))}) so that hot keys are not read from the store on
 * every batch.
 *
 * <p>Never stale for writes made through it: a {@link #multiPut} updates the cache only after the store accepted
 * it, and a failed {@code multiPut} evicts its keys (the store may hold some of them). Writes made to the store by
 * anyone else are not seen until evicted: one writer per table. Thread-safe.
 *
 * @param <K> the key type
 * @param <C> the cell type
 */
public final class CachedMap<K, C> implements IBackingMap<K, C> {
  private final IBackingMap<K, C> delegate;
  private final Cache<K, C> cache;

  /**
   * @param delegate the store
   * @param maximumSize the number of cells kept, at least 1
   * @throws IllegalArgumentException if {@code maximumSize < 1}
   */
  public CachedMap(IBackingMap<K, C> delegate, long maximumSize) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    if (maximumSize < 1) {
      throw new IllegalArgumentException("maximumSize must be at least 1, was " + maximumSize);
    }
    this.cache = Caffeine.newBuilder().maximumSize(maximumSize).recordStats().build();
  }

  @Override
  public Map<K, C> multiGet(Collection<? extends K> keys) {
    Map<K, C> result = new HashMap<>(Math.max(16, keys.size() * 2));
    List<K> misses = new ArrayList<>();
    for (K key : keys) {
      C cell = cache.getIfPresent(Objects.requireNonNull(key, "key"));
      if (cell != null) {
        result.put(key, cell);
      } else {
        misses.add(key);
      }
    }
    if (!misses.isEmpty()) {
      Map<K, C> loaded = delegate.multiGet(misses);
      cache.putAll(loaded);
      result.putAll(loaded);
    }
    return result;
  }

  @Override
  public void multiPut(Map<K, C> cells) {
    try {
      delegate.multiPut(cells);
    } catch (RuntimeException e) {
      cache.invalidateAll(cells.keySet());
      throw e;
    }
    cache.putAll(cells);
  }

  /** @return the wrapped store */
  public IBackingMap<K, C> wrapped() {
    return delegate;
  }

  /** @return Caffeine's hit/miss/eviction counters of this cache */
  public com.github.benmanes.caffeine.cache.stats.CacheStats stats() {
    return cache.stats();
  }

  @Override
  public String describe() {
    return "CachedMap over " + delegate.describe();
  }
}
