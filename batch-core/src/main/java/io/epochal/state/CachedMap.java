package io.epochal.state;

import io.epochal.api.Stable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A read-through, write-through LRU cache of cells over another {@link IBackingMap} (least recently used cells are evicted first). Place it under
 * the txid layer ({@code OpaqueMap.over(new CachedMap<>(store, n))}) so that hot keys are not read from the store on
 * every batch.
 *
 * <p>Never stale for writes made through it: a {@link #multiPut} updates the cache only after the store accepted it,
 * and a failed {@code multiPut} evicts its keys (the store may hold some of them). Never ahead of the store either: the
 * cells the current attempt wrote are evicted when the attempt is aborted ({@link #abort}, forwarded by the map state
 * over it), also after the state's {@code end}, since the batch is durable only after the checkpoint commit; so over an
 * epoch-buffered map (whose aborted writes never reach the store) a replay reads what was committed. A
 * {@link #multiRemove} (forwarded to a {@link RemovableBackingMap} store) drops its keys from the cache before and
 * after the store's deletion, so a removed key is read from the store again. Writes made to the store by anyone else
 * are not seen until evicted: one writer per table. Thread-safe.
 *
 * @param <K> the key type
 * @param <C> the cell type
 *
 * @since 0.1.0
 */
@Stable
public final class CachedMap<K, C> extends ForwardingBackingMap<K, C> implements RemovableBackingMap<K, C> {
  /** The cached cells in access order, at most {@code maximumSize} (guarded by itself). */
  private final LinkedHashMap<K, C> cache;
  private long hits; // guarded by cache
  private long misses; // guarded by cache
  private long evictions; // guarded by cache
  /** The keys written since the last batch known to be durable (guarded by {@code this}). */
  private final Set<K> uncommitted = new HashSet<>();
  private long attemptTxid;

  /**
   * @param delegate the store
   * @param maximumSize the number of cells kept, at least 1
   * @throws IllegalArgumentException if {@code maximumSize < 1}
   */
  public CachedMap(IBackingMap<K, C> delegate, long maximumSize) {
    super(delegate);
    if (maximumSize < 1) {
      throw new IllegalArgumentException("maximumSize must be at least 1, was " + maximumSize);
    }
    this.cache = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<K, C> eldest) {
        boolean evict = size() > maximumSize;
        if (evict) {
          evictions++;
        }
        return evict;
      }
    };
  }

  /**
   * Hit, miss and eviction counters of one {@link CachedMap}.
   *
   * @param hits keys served from the cache
   * @param misses keys read from the store
   * @param evictions cells evicted to stay within the maximum size
   */
  public record Stats(long hits, long misses, long evictions) {
  }

  @Override
  public Map<K, C> multiGet(Collection<? extends K> keys) {
    Map<K, C> result = new HashMap<>(Math.max(16, keys.size() * 2));
    List<K> missing = new ArrayList<>();
    synchronized (cache) {
      for (K key : keys) {
        C cell = cache.get(Objects.requireNonNull(key, "key"));
        if (cell != null) {
          result.put(key, cell);
        } else {
          missing.add(key);
        }
      }
      hits += keys.size() - missing.size();
      misses += missing.size();
    }
    if (!missing.isEmpty()) {
      Map<K, C> loaded = super.multiGet(missing);
      synchronized (cache) {
        cache.putAll(loaded);
      }
      result.putAll(loaded);
    }
    return java.util.Collections.unmodifiableMap(result);
  }

  @Override
  public void multiPut(Map<K, C> cells) {
    try {
      super.multiPut(cells);
    } catch (RuntimeException e) {
      synchronized (cache) {
        cache.keySet().removeAll(cells.keySet());
      }
      throw e;
    }
    synchronized (this) {
      uncommitted.addAll(cells.keySet());
    }
    synchronized (cache) {
      cache.putAll(cells);
    }
  }

  /**
   * Drops the keys from the cache, deletes them from the store, and drops them again (a concurrent read may have
   * cached them meanwhile); a failed deletion leaves them uncached too.
   *
   * @throws UnsupportedOperationException if the store is not a {@link RemovableBackingMap}
   */
  @Override
  public void multiRemove(Collection<? extends K> keys) {
    if (!(wrapped() instanceof RemovableBackingMap<K, C> store)) {
      throw new UnsupportedOperationException("CachedMap over " + wrapped().describe() + " cannot remove keys: the "
          + "store is not a RemovableBackingMap");
    }
    synchronized (cache) {
      cache.keySet().removeAll(keys);
    }
    try {
      store.multiRemove(keys);
    } finally {
      synchronized (cache) {
        cache.keySet().removeAll(keys);
      }
    }
  }

  /**
   * A new batch starts: every earlier batch is durable, so what it wrote stays cached (a read-only epoch changes
   * nothing).
   */
  @Override
  public void begin(Epoch epoch) {
    synchronized (this) {
      if (!epoch.readOnly() && epoch.txid() != attemptTxid) {
        uncommitted.clear();
        attemptTxid = epoch.txid();
      }
    }
    super.begin(epoch);
  }

  /** Evicts every cell written since the last durable batch, then forwards. */
  @Override
  public void abort() {
    synchronized (this) {
      synchronized (cache) {
        cache.keySet().removeAll(uncommitted);
      }
      uncommitted.clear();
    }
    super.abort();
  }

  /** @return the hit/miss/eviction counters of this cache so far */
  public Stats stats() {
    synchronized (cache) {
      return new Stats(hits, misses, evictions);
    }
  }

  @Override
  public String describe() {
    return "CachedMap over " + wrapped().describe();
  }
}
