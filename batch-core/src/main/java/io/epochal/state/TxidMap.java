package io.epochal.state;

import io.epochal.api.Stable;
import io.epochal.errors.StateAheadException;
import io.epochal.state.internal.OrderedCells;
import io.epochal.state.internal.TxidMapCore;
import io.epochal.state.internal.UpdatedValues;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A {@link MapState} storing txid-carrying cells {@code C} in an {@link IBackingMap}, driven by a {@link TxidRule}: the
 * one implementation of Trident's {@code TransactionalMap} and {@code OpaqueMap}, which only choose their rule. For
 * batch {@code t} and a key, in every call:
 * <ul>
 *   <li>a cell written earlier in this attempt: reads see its {@linkplain TxidRule#value value}, updates build on it
 *       and write {@link TxidRule#next} of it;
 *   <li>no stored cell: reads report the key absent, updates build on empty;
 *   <li>a stored cell ahead of {@code t}: every call throws {@link StateAheadException} naming the table, the key
 *       and both txids, before writing anything;
 *   <li>otherwise reads see {@link TxidRule#base}; an update the rule {@linkplain TxidRule#skips skips} returns the
 *       stored value and writes nothing (unless the epoch does not {@linkplain Epoch#skipsAppliedCells skip applied
 *       cells}: an {@code AT_LEAST_ONCE} pipeline's); other updates build on {@code base} and write
 *       {@link TxidRule#next};
 *       {@code multiPut(v)} writes {@code next(cell, v, t)} (no skip).
 * </ul>
 *
 * <p>Removal ({@link #multiRemove}): deletes the keys from the backing map when it is a {@link RemovableBackingMap}
 * (no tombstone cell: see {@link RemovableMapState} for what that means on replay), and drops them from the attempt's
 * cache, so a later update of the batch builds on empty; over another backing map {@link #canRemove()} is false.
 *
 * <p>Per-attempt cache: the cells this instance wrote for batch {@code t} are kept from the write until the next
 * {@link #end} or {@link #abort}. Each call makes at most one {@code multiGet} on the backing map (for the keys not
 * cached) and at most one {@code multiPut} (only the keys it changes). The whole lifecycle ({@code begin},
 * {@code end}, {@code abort}) is forwarded to the backing map. Calls act for the epoch given to {@link #begin}; outside
 * {@code begin..end}, and writes in a {@linkplain Epoch#readOnly read-only} epoch, throw
 * {@link IllegalStateException}.
 *
 * <p>Not thread-safe: one instance per partition, driven by one thread at a time. Null arguments and updaters are
 * rejected with {@link NullPointerException}; null keys, keys without value equality, null values and null values
 * returned by updaters with the non-retryable {@link io.epochal.errors.InvalidRecordException} naming the table, the
 * key and the txid.
 *
 * @param <K> the key type
 * @param <V> the value type
 * @param <C> the stored cell type
 * @since 0.3.0
 */
@Stable
public abstract class TxidMap<K, V, C> implements RemovableMapState<K, V> {
  private final TxidMapCore<K, C> core;
  private final TxidRule<V, C> rule;
  private final String mapName;

  /**
   * @param backing the store of cells
   * @param tableName the table named in error messages
   * @param rule the cell rule
   * @param mapName the map's name in {@code toString()}, e.g. {@code "OpaqueMap"}
   * @throws NullPointerException if an argument is null
   */
  protected TxidMap(IBackingMap<K, C> backing, String tableName, TxidRule<V, C> rule, String mapName) {
    this.rule = Objects.requireNonNull(rule, "rule");
    this.mapName = Objects.requireNonNull(mapName, "mapName");
    this.core = new TxidMapCore<>(backing, tableName, rule::txid);
  }

  /**
   * A factory making one map per partition over the same store, described as {@code mapName over <store>}; the
   * table name is the state's name.
   *
   * @param mapName the map's name in the factory's description, e.g. {@code "OpaqueMap"}
   * @param kind the replay behaviour of the maps, as the factory declares it
   * @param backing the store every partition's map reads and writes
   * @param over makes the map over a store and a table name
   * @param <K> the key type
   * @param <V> the value type
   * @param <C> the stored cell type
   * @return a factory that needs no staging
   * @throws NullPointerException if an argument is null
   */
  protected static <K, V, C> StateFactory<MapState<K, V>> factory(String mapName, StateKind kind,
      IBackingMap<K, C> backing, BiFunction<IBackingMap<K, C>, String, ? extends MapState<K, V>> over) {
    return TxidMapCore.factory(mapName, kind, backing, over);
  }

  /**
   * A factory making one map per partition, each over the store {@code backingPerPartition} returns for the
   * partition's context (a null store fails {@code makeState} naming the context); the table name is the state's name.
   *
   * @param mapName the map's name in the factory's description, e.g. {@code "OpaqueMap"}
   * @param kind the replay behaviour of the maps, as the factory declares it
   * @param backingPerPartition gives the store of each partition's map, from the partition's context
   * @param over makes the map over a store and a table name
   * @param <K> the key type
   * @param <V> the value type
   * @param <C> the stored cell type
   * @return a factory that needs no staging
   * @throws NullPointerException if an argument is null
   */
  protected static <K, V, C> StateFactory<MapState<K, V>> factory(String mapName, StateKind kind,
      Function<? super StateContext, ? extends IBackingMap<K, C>> backingPerPartition,
      BiFunction<IBackingMap<K, C>, String, ? extends MapState<K, V>> over) {
    return TxidMapCore.factory(mapName, kind, backingPerPartition, over);
  }

  @Override
  public final void begin(Epoch epoch) {
    core.begin(epoch);
  }

  @Override
  public final void end() {
    core.end();
  }

  @Override
  public final void abort() {
    core.abort();
  }

  /**
   * @return an unmodifiable map of the given keys that have a value as seen by the open epoch's batch
   * @throws StateAheadException if a stored txid is ahead of the epoch's
   */
  @Override
  public final Map<K, V> multiGet(Collection<? extends K> keys) {
    long txid = core.txid("multiGet");
    Map<K, C> stored = core.readUncached(keys);
    Map<K, V> result = new HashMap<>(TxidMapCore.capacity(keys.size()));
    for (K key : keys) {
      C cell = core.cached(key);
      if (cell != null) {
        result.put(key, rule.value(cell));
        continue;
      }
      cell = stored.get(key);
      if (cell == null) {
        continue;
      }
      core.checkNotAhead(key, cell, txid);
      Optional<V> base = rule.base(cell, txid);
      if (base.isPresent()) {
        result.put(key, base.get());
      }
    }
    return Collections.unmodifiableMap(result);
  }

  /**
   * @return an unmodifiable map of every given key to its value after the update (the stored value for a skipped key)
   * @throws StateAheadException if a stored txid is ahead of the epoch's; nothing is written
   */
  @Override
  @SuppressWarnings("unchecked")
  public final Map<K, V> multiUpdate(Map<K, ? extends ValueUpdater<V>> updaters) {
    long txid = core.writeTxid("multiUpdate");
    boolean skipApplied = core.skipsApplied("multiUpdate");
    // The keys and their updaters side by side, in the updaters' order: the store is read by position and the
    // written cells keep that order (no hash map of stored cells, none of written cells).
    int n = Objects.requireNonNull(updaters, "updaters").size();
    Object[] keys = new Object[n];
    Object[] fns = new Object[n];
    int count = 0;
    for (Map.Entry<K, ? extends ValueUpdater<V>> entry : updaters.entrySet()) {
      keys[count] = entry.getKey();
      fns[count] = entry.getValue();
      count++;
    }
    List<K> keyList = (List<K>) Arrays.asList(keys);
    List<C> stored = core.readUncachedOrdered(keyList);
    boolean[] skippedAt = null;
    Object[] skippedValues = null;
    OrderedCells<K, C> written = new OrderedCells<>(n);
    for (int i = 0; i < n; i++) {
      K key = (K) keys[i];
      ValueUpdater<V> updater = Objects.requireNonNull((ValueUpdater<V>) fns[i], "updater");
      C cell = core.cached(key);
      Optional<V> base;
      if (cell != null) {
        base = Optional.of(rule.value(cell));
      } else {
        cell = stored.get(i);
        if (cell == null) {
          base = Optional.empty();
        } else {
          core.checkNotAhead(key, cell, txid);
          if (skipApplied && rule.skips(cell, txid)) {
            if (skippedAt == null) {
              skippedAt = new boolean[n];
              skippedValues = new Object[n];
            }
            skippedAt[i] = true;
            skippedValues[i] = rule.value(cell);
            continue;
          }
          base = rule.base(cell, txid);
        }
      }
      V value = core.requireUpdated(key, updater.update(base), txid);
      written.add(key, rule.next(cell, value, txid));
    }
    core.writeThrough(written);
    if (skippedAt == null) {
      // The common case, no key skipped: a view of the written cells' values (value(next(cell, v, t)) is v, as the
      // per-attempt cache already relies on), in the updaters' order; the cache now owns `written`.
      return new UpdatedValues<>(written, Map.of(), rule::value);
    }
    // A replay that skipped keys: every key in the updaters' order, as a failure-free attempt's result iterates
    // (callers hand the values on in this order, e.g. to a sink).
    Map<K, V> result = new LinkedHashMap<>(TxidMapCore.capacity(n));
    for (int i = 0; i < n; i++) {
      K key = (K) keys[i];
      result.put(key, skippedAt[i] ? (V) skippedValues[i] : rule.value(written.get(key)));
    }
    return Collections.unmodifiableMap(result);
  }

  /**
   * Sets every given key to its value for the open epoch's batch {@code t}: writes {@code next(cell, value, t)}, never
   * skips.
   *
   * @throws StateAheadException if a stored txid is ahead of {@code t}; nothing is written
   */
  @Override
  public final void multiPut(Map<K, V> values) {
    long txid = core.writeTxid("multiPut");
    Map<K, C> stored = core.readUncached(Objects.requireNonNull(values, "values").keySet());
    Map<K, C> written = new HashMap<>(TxidMapCore.capacity(values.size()));
    for (Map.Entry<K, V> entry : values.entrySet()) {
      K key = entry.getKey();
      V value = core.requireValue(key, entry.getValue(), txid);
      C cell = core.cached(key);
      if (cell == null) {
        cell = stored.get(key);
        if (cell != null) {
          core.checkNotAhead(key, cell, txid);
        }
      }
      written.put(key, rule.next(cell, value, txid));
    }
    core.writeThrough(written);
  }

  /** @return true if the backing map is a {@link RemovableBackingMap} */
  @Override
  public final boolean canRemove() {
    return core.canRemove();
  }

  /**
   * Deletes the keys from the backing map for the open epoch's batch, and from the attempt's cache.
   *
   * @throws UnsupportedOperationException naming the map if the backing map is not a {@link RemovableBackingMap}
   */
  @Override
  public final void multiRemove(Collection<? extends K> keys) {
    core.writeTxid("multiRemove");
    core.removeThrough(keys, mapName);
  }

  /** @return the wrapped store */
  public final IBackingMap<K, C> wrapped() {
    return core.backing();
  }

  /** @return the table named in error messages */
  public final String tableName() {
    return core.tableName();
  }

  @Override
  public String toString() {
    return core.describe(mapName);
  }
}
