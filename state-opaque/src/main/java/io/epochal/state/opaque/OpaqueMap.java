package io.epochal.state.opaque;

import static io.epochal.state.internal.TxidMapCore.capacity;

import io.epochal.errors.StateAheadException;
import io.epochal.state.IBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.StateContext;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;
import io.epochal.state.ValueUpdater;
import io.epochal.state.internal.TxidMapCore;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * A {@link MapState} that stores {@link OpaqueValue} cells {@code (curr, prev, txid)} and recomputes a replayed batch
 * from the value the key had before it: Trident's {@code OpaqueMap}, with a typed "state ahead" error. Exactly-once
 * with an opaque spout (a replay may carry different records) as well as with a transactional one.
 *
 * <p>Rules for batch {@code t} and a key, in every call (see {@link OpaqueValue} for the pure rule):
 * <ul>
 *   <li>written earlier in this attempt (see below): reads and updates build on that cell's {@code curr}, and the
 *       new cell keeps its {@code prev};
 *   <li>no stored cell: {@code multiGet} reports it absent; an update builds on nothing and stores
 *       {@code (new, empty, t)};
 *   <li>stored txid {@code < t}: reads and updates see {@code curr}; the new cell is {@code (new, curr, t)};
 *   <li>stored txid {@code == t} (written by an earlier, failed attempt): reads and updates see {@code prev} (absent
 *       if empty), discarding that attempt's value; the new cell is {@code (new, prev, t)};
 *   <li>stored txid {@code > t}: every call throws {@link StateAheadException} naming the table, the key and both
 *       txids, before writing anything.
 * </ul>
 * {@code multiPut(v)} is {@code multiUpdate} with "replace by {@code v}". Every key given to an update or put is
 * written (there is no skip).
 *
 * <p>Per-attempt cache: the cells this instance wrote for batch {@code t} are kept from the write until the next
 * {@link #beginCommit}, {@link #abort}, or call for another txid; {@link #commit} keeps them, so reads after the
 * commit of {@code t} see them. A second update of a key in one attempt builds on the first ({@code +1} then
 * {@code +2} gives 3), and a replay after a failure between the two recomputes both from {@code prev}.
 *
 * <p>Replays: a key written by a failed attempt of {@code t} is repaired only when a later attempt of {@code t}
 * writes it again; if the successful attempt does not touch it, the failed attempt's value becomes the key's
 * {@code curr} for batch {@code t + 1} (as in Trident: the per-key protocol cannot tell the two apart).
 *
 * <p>Each call makes at most one {@code multiGet} on the backing map (for the keys not cached) and at most one
 * {@code multiPut}. Atomicity is the backing map's: a failed {@code multiPut} may have written some cells, which the
 * replay recomputes from {@code prev}.
 *
 * <p>Not thread-safe: one instance per partition, driven by one thread at a time. Null arguments and updaters are
 * rejected with {@link NullPointerException}; null keys, keys without value equality (arrays: see
 * {@link io.epochal.pipeline.Bytes}), null values and null values returned by updaters with the non-retryable
 * {@link io.epochal.errors.InvalidRecordException} naming the table, the key and the txid. A txid below 1 is rejected
 * with {@link IllegalArgumentException}.
 *
 * @param <K> the key type
 * @param <V> the value type
 * @since 0.1.0
 */
public final class OpaqueMap<K, V> implements MapState<K, V> {
  private final TxidMapCore<K, OpaqueValue<V>> core;

  private OpaqueMap(IBackingMap<K, OpaqueValue<V>> backing, String table) {
    this.core = new TxidMapCore<>(backing, table, OpaqueValue::txid);
  }

  /**
   * Layers the opaque rule over a store.
   *
   * @param backing the store of cells
   * @param tableName the table named in error messages
   * @throws NullPointerException if an argument is null
   */
  public static <K, V> OpaqueMap<K, V> over(IBackingMap<K, OpaqueValue<V>> backing, String tableName) {
    return new OpaqueMap<>(backing, tableName);
  }

  /**
   * A factory making one map per partition over the same store; the table name is the state's name.
   *
   * @throws NullPointerException if {@code backing} is null
   */
  public static <K, V> StateFactory<MapState<K, V>> factory(IBackingMap<K, OpaqueValue<V>> backing) {
    return TxidMapCore.factory("OpaqueMap", StateKind.OPAQUE, backing, OpaqueMap::over);
  }

  /**
   * A factory making one map per partition, each over the store {@code backingPerPartition} returns for the
   * partition's context; the table name is the state's name.
   *
   * @throws NullPointerException if {@code backingPerPartition} is null, or returns null when a state is made
   */
  public static <K, V> StateFactory<MapState<K, V>> factory(
      Function<? super StateContext, ? extends IBackingMap<K, OpaqueValue<V>>> backingPerPartition) {
    return TxidMapCore.factory("OpaqueMap", StateKind.OPAQUE, backingPerPartition, OpaqueMap::over);
  }

  @Override
  public void beginCommit(long txid) {
    core.beginCommit(txid);
  }

  /** Keeps this attempt's cells: reads after the commit of the same batch still see them. */
  @Override
  public void commit(long txid) {
    core.commit(txid);
  }

  @Override
  public void abort(long txid) {
    core.abort(txid);
  }

  /**
   * @return an unmodifiable map of the given keys that have a value as seen by batch {@code txid}
   * @throws StateAheadException if a stored txid is ahead of {@code txid}
   */
  @Override
  public Map<K, V> multiGet(long txid, Collection<? extends K> keys) {
    core.serve(txid);
    Map<K, OpaqueValue<V>> stored = core.readUncached(keys);
    Map<K, V> result = new HashMap<>(capacity(keys.size()));
    for (K key : keys) {
      OpaqueValue<V> cell = core.cached(key);
      if (cell != null) {
        result.put(key, cell.curr());
        continue;
      }
      cell = stored.get(key);
      if (cell == null) {
        continue;
      }
      core.checkNotAhead(key, cell, txid);
      Optional<V> base = cell.base(txid);
      if (base.isPresent()) {
        result.put(key, base.get());
      }
    }
    return Collections.unmodifiableMap(result);
  }

  /**
   * @return an unmodifiable map of every given key to its value after the update
   * @throws StateAheadException if a stored txid is ahead of {@code txid}; nothing is written
   */
  @Override
  public Map<K, V> multiUpdate(long txid, Map<K, ? extends ValueUpdater<V>> updaters) {
    core.serve(txid);
    Map<K, OpaqueValue<V>> stored = core.readUncached(Objects.requireNonNull(updaters, "updaters").keySet());
    int n = updaters.size();
    Map<K, V> result = new HashMap<>(capacity(n));
    Map<K, OpaqueValue<V>> written = new HashMap<>(capacity(n));
    for (Map.Entry<K, ? extends ValueUpdater<V>> entry : updaters.entrySet()) {
      K key = entry.getKey();
      ValueUpdater<V> updater = Objects.requireNonNull(entry.getValue(), "updater");
      OpaqueValue<V> cell = core.cached(key);
      Optional<V> base;
      Optional<V> before;
      if (cell != null) {
        base = Optional.of(cell.curr());
        before = cell.prev();
      } else {
        cell = stored.get(key);
        if (cell == null) {
          base = Optional.empty();
        } else {
          core.checkNotAhead(key, cell, txid);
          base = cell.base(txid);
        }
        before = base;
      }
      V value = core.requireUpdated(key, updater.update(base), txid);
      result.put(key, value);
      written.put(key, new OpaqueValue<>(value, before, txid));
    }
    core.writeThrough(written);
    return Collections.unmodifiableMap(result);
  }

  /**
   * Sets every given key to its value for batch {@code txid}, under the same rules as {@link #multiUpdate}.
   *
   * @throws StateAheadException if a stored txid is ahead of {@code txid}; nothing is written
   */
  @Override
  public void multiPut(long txid, Map<K, V> values) {
    core.serve(txid);
    Map<K, OpaqueValue<V>> stored = core.readUncached(Objects.requireNonNull(values, "values").keySet());
    Map<K, OpaqueValue<V>> written = new HashMap<>(capacity(values.size()));
    for (Map.Entry<K, V> entry : values.entrySet()) {
      K key = entry.getKey();
      V value = core.requireValue(key, entry.getValue(), txid);
      OpaqueValue<V> cell = core.cached(key);
      if (cell == null) {
        cell = stored.get(key);
        if (cell != null) {
          core.checkNotAhead(key, cell, txid);
        }
      }
      written.put(key, cell == null ? OpaqueValue.first(value, txid) : cell.next(txid, value));
    }
    core.writeThrough(written);
  }

  /** @return the wrapped store */
  public IBackingMap<K, OpaqueValue<V>> wrapped() {
    return core.backing();
  }

  /** @return the table named in error messages */
  public String tableName() {
    return core.tableName();
  }

  @Override
  public String toString() {
    return core.describe("OpaqueMap");
  }
}
