package io.epochal.state.internal;

import io.epochal.state.IBackingMap;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The cells a txid-carrying map state ({@code TransactionalMap}, {@code OpaqueMap}) wrote through one backing map in
 * the current attempt of one batch. It lets a second update of a key in the same attempt build on the first (a
 * stored cell already at txid {@code t} would otherwise read as "written by an earlier attempt": skipped by the
 * transactional rule, recomputed from {@code prev} by the opaque rule), and it spares the store a second read of
 * those keys.
 *
 * <p>Lifecycle, driven by the owning state: {@link #clear()} at {@code begin(epoch)}, {@code end()} and
 * {@code abort()}, so the cells are those of the one open epoch. Cells enter the cache only through
 * {@link #writeThrough}, after the store accepted them, so the cache never holds a cell the store may lack.
 *
 * <p>Internal: not an API. Not thread-safe: owned by one state partition, used by one thread at a time. Null keys are
 * rejected with {@link NullPointerException}.
 *
 * @param <K> the key type
 * @param <C> the stored cell type
 * @since 0.1.0
 */
public final class AttemptCache<K, C> {
  private final HashMap<K, C> cells = new HashMap<>();

  /** Drops every cached cell (an epoch begins or ends, or the attempt failed). */
  public void clear() {
    cells.clear();
  }

  /**
   * Like {@link Map#get}: the cell written for {@code key} in this attempt, or {@code null} if none was (internal
   * hot path; no allocation).
   *
   * @param key the key
   * @return the cell written for {@code key} in this attempt, or {@code null} if none was
   */
  public C get(K key) {
    return cells.get(key);
  }

  /** @return the number of cells written in this attempt */
  public int size() {
    return cells.size();
  }

  /**
   * Reads the stored cells of the given keys that are not cached, in at most one {@code backing.multiGet} (none if
   * every key is cached).
   *
   * @param keys the keys to read, none null
   * @param backing the store read for the uncached keys
   * @return the stored cells of the uncached keys that have one
   * @throws NullPointerException if {@code keys} or one of its elements is null
   */
  public Map<K, C> readUncached(Collection<? extends K> keys, IBackingMap<K, C> backing) {
    Objects.requireNonNull(keys, "keys");
    if (cells.isEmpty()) {
      for (K key : keys) {
        Objects.requireNonNull(key, "key");
      }
      return keys.isEmpty() ? Map.of() : backing.multiGet(keys);
    }
    List<K> uncached = new ArrayList<>(keys.size());
    for (K key : keys) {
      if (!cells.containsKey(Objects.requireNonNull(key, "key"))) {
        uncached.add(key);
      }
    }
    return uncached.isEmpty() ? Map.of() : backing.multiGet(uncached);
  }

  /**
   * Writes {@code written} in one {@code backing.multiPut} (none if it is empty) and, once the store accepted it,
   * caches every cell. If the store throws, nothing is cached and the exception propagates.
   *
   * @param written the new cell of each key written in this call
   * @param backing the store written to
   */
  public void writeThrough(Map<K, C> written, IBackingMap<K, C> backing) {
    if (written.isEmpty()) {
      return;
    }
    backing.multiPut(written);
    cells.putAll(written);
  }

  /**
   * Drops the cached cells of {@code keys} (they are being deleted from the store).
   *
   * @param keys the keys whose cells to drop
   */
  public void drop(Collection<? extends K> keys) {
    if (!cells.isEmpty()) {
      keys.forEach(cells::remove);
    }
  }

  @Override
  public String toString() {
    return "AttemptCache[" + cells.size() + " cells]";
  }
}
