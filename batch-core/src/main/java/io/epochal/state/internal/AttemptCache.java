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
 * <p>Lifecycle, driven by the owning state: {@link #begin(long)} at {@code beginCommit(t)}, {@link #clear()} at
 * {@code abort(t)}, nothing at {@code commit(t)} (reads after the commit of batch {@code t} still see this attempt's
 * cells), and {@link #serve(long)} at the start of every call, which drops the cells if they were written for
 * another txid. Cells enter the cache only through {@link #writeThrough}, after the store accepted them, so the cache
 * never holds a cell the store may lack.
 *
 * <p>Internal: not an API. Not thread-safe: owned by one state partition, used by one thread at a time. Null keys are
 * rejected with {@link NullPointerException}.
 *
 * @param <K> the key type
 * @param <C> the stored cell type
 * @since 0.1.0
 */
public final class AttemptCache<K, C> {
  private static final long NO_ATTEMPT = 0L;

  private final HashMap<K, C> cells = new HashMap<>();
  private long txid = NO_ATTEMPT;

  /** Starts an attempt of batch {@code txid}: drops every cached cell. */
  public void begin(long txid) {
    cells.clear();
    this.txid = txid;
  }

  /** Ends the current attempt without keeping anything (the attempt failed). */
  public void clear() {
    cells.clear();
    txid = NO_ATTEMPT;
  }

  /**
   * Prepares a call of batch {@code txid}: keeps the cached cells if they were written for {@code txid}, else drops
   * them (a call for another batch never sees them).
   */
  public void serve(long txid) {
    if (txid != this.txid) {
      cells.clear();
      this.txid = txid;
    }
  }

  /**
   * Like {@link Map#get}: the cell written for {@code key} in this attempt, or {@code null} if none was (internal
   * hot path; no allocation).
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
   * every key is cached). Call {@link #serve(long)} first.
   *
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
   */
  public void writeThrough(Map<K, C> written, IBackingMap<K, C> backing) {
    if (written.isEmpty()) {
      return;
    }
    backing.multiPut(written);
    cells.putAll(written);
  }

  @Override
  public String toString() {
    return "AttemptCache[txid=" + txid + ", " + cells.size() + " cells]";
  }
}
