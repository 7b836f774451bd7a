package io.epochal.state.internal;

import io.epochal.state.IBackingMap;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
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
  /** Beyond this many written maps in one attempt, they are merged into one (bounds the cost of a lookup). */
  static final int MAX_SEGMENTS = 4;
  /**
   * The maps of cells written in this attempt, oldest first, held by reference (no copy: the common attempt writes
   * once per key, and copying every cell into a cache no later call reads was a hash insertion per key for nothing).
   * A key written twice is in two maps; the newest map holds its current cell.
   */
  private final ArrayList<Map<K, C>> segments = new ArrayList<>(MAX_SEGMENTS + 1);

  /** Drops every cached cell (an epoch begins or ends, or the attempt failed). */
  public void clear() {
    segments.clear();
  }

  /**
   * Like {@link Map#get}: the cell written for {@code key} in this attempt, or {@code null} if none was (internal
   * hot path; no allocation).
   *
   * @param key the key
   * @return the cell written for {@code key} in this attempt, or {@code null} if none was
   */
  public C get(K key) {
    for (int i = segments.size() - 1; i >= 0; i--) {
      C cell = segments.get(i).get(key);
      if (cell != null) {
        return cell;
      }
    }
    return null;
  }

  private boolean contains(K key) {
    for (int i = segments.size() - 1; i >= 0; i--) {
      if (segments.get(i).containsKey(key)) {
        return true;
      }
    }
    return false;
  }

  /** @return the number of keys written in this attempt */
  public int size() {
    merge();
    return segments.isEmpty() ? 0 : segments.get(0).size();
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
    if (segments.isEmpty()) {
      for (K key : keys) {
        Objects.requireNonNull(key, "key");
      }
      return keys.isEmpty() ? Map.of() : backing.multiGet(keys);
    }
    List<K> uncached = new ArrayList<>(keys.size());
    for (K key : keys) {
      if (!contains(Objects.requireNonNull(key, "key"))) {
        uncached.add(key);
      }
    }
    return uncached.isEmpty() ? Map.of() : backing.multiGet(uncached);
  }

  /**
   * Reads the stored cells of the given keys by position, for the keys not cached: element {@code i} is the stored
   * cell of the {@code i}-th key, or {@code null} if it has none or is cached (read it with {@link #get}). At most
   * one read of the store: {@code backing.multiGetOrdered} when nothing is cached (the common first call of an
   * attempt), else {@code backing.multiGet} of the uncached keys.
   *
   * @param keys the keys to read, none null
   * @param backing the store read for the uncached keys
   * @return one element per key: its stored cell, or {@code null}
   * @throws NullPointerException if one of the keys is null
   */
  public List<C> readUncachedOrdered(List<K> keys, IBackingMap<K, C> backing) {
    if (segments.isEmpty()) {
      for (K key : keys) {
        Objects.requireNonNull(key, "key");
      }
      return keys.isEmpty() ? List.of() : backing.multiGetOrdered(keys);
    }
    Map<K, C> stored = readUncached(keys, backing);
    List<C> cells = new ArrayList<>(keys.size());
    for (K key : keys) {
      cells.add(stored.get(key));
    }
    return cells;
  }

  /**
   * Writes {@code written} in one {@code backing.multiPut} (none if it is empty) and, once the store accepted it,
   * caches every cell. If the store throws, nothing is cached and the exception propagates. The store receives an
   * unmodifiable view (a store that tries to change the map it is given fails loudly), and the cache keeps
   * {@code written} itself: the caller hands it over and must not change it afterwards.
   *
   * @param written the new cell of each key written in this call, none null; owned by the cache from now on
   * @param backing the store written to
   */
  public void writeThrough(Map<K, C> written, IBackingMap<K, C> backing) {
    if (written.isEmpty()) {
      return;
    }
    backing.multiPut(Collections.unmodifiableMap(written));
    segments.add(written);
    if (segments.size() > MAX_SEGMENTS) {
      merge();
    }
  }

  /** Merges the written maps into one, newer cells over older ones. */
  private void merge() {
    if (segments.size() > 1) {
      HashMap<K, C> merged = copy();
      segments.clear();
      segments.add(merged);
    }
  }

  /** @return a new map of every cached cell, newer cells over older ones (the written maps are left as they are) */
  private HashMap<K, C> copy() {
    int total = 0;
    for (Map<K, C> m : segments) {
      total += m.size();
    }
    HashMap<K, C> all = new HashMap<>(TxidMapCore.capacity(total));
    for (Map<K, C> m : segments) {
      all.putAll(m);
    }
    return all;
  }


  /**
   * Drops the cached cells of {@code keys} (they are being deleted from the store).
   *
   * @param keys the keys whose cells to drop
   */
  public void drop(Collection<? extends K> keys) {
    boolean cached = false;
    for (K key : keys) {
      if (contains(key)) {
        cached = true;
        break;
      }
    }
    if (!cached) {
      return;
    }
    // A copy: the written maps are never changed once handed over (a multiUpdate's result is a view of one).
    HashMap<K, C> kept = copy();
    keys.forEach(kept::remove);
    segments.clear();
    if (!kept.isEmpty()) {
      segments.add(kept);
    }
  }

  @Override
  public String toString() {
    return "AttemptCache[" + segments.size() + " written maps]";
  }
}
