package io.epochal.state.internal;

import io.epochal.errors.ErrorContext;
import io.epochal.errors.InvalidRecordException;
import io.epochal.errors.StateAheadException;
import io.epochal.state.Epoch;
import io.epochal.state.IBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.RemovableBackingMap;
import io.epochal.state.RemovableMapState;
import io.epochal.state.RemovableStateFactory;
import io.epochal.state.BucketEntry;
import io.epochal.state.StateContext;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * What a txid-carrying map state ({@code TransactionalMap}, {@code OpaqueMap}) does apart from its txid rule: it holds
 * the backing map and the table named in errors, runs the {@link AttemptCache} through the state lifecycle, checks
 * txids and what updaters return, builds the "state ahead" error, and makes the map's {@link StateFactory}s. The map
 * itself keeps only the rule that turns a stored or cached cell into a value and a new cell.
 *
 * <p>Use: {@link #begin}, {@link #end} and {@link #abort} from the state's own lifecycle methods; in every call,
 * {@link #txid(String)} or {@link #writeTxid(String)} first (the open epoch's txid, or an {@link IllegalStateException}
 * outside {@code begin..end}), then {@link #readUncached(Collection)} once, {@link #cached(Object)} per key, and
 * {@link #writeThrough(Map)} once with the new cells. The txid is the engine's, checked when it opened the epoch.
 *
 * <p>Internal: not an API. Not thread-safe: owned by one state partition, used by one thread at a time.
 *
 * @param <K> the key type
 * @param <C> the stored cell type
 * @since 0.1.0
 */
public final class TxidMapCore<K, C> {
  private final IBackingMap<K, C> backing;
  private final String table;
  private final ToLongFunction<? super C> txidOf;
  private final AttemptCache<K, C> attempt = new AttemptCache<>();
  private final ErrorContext keyContext;
  private final OpenEpoch open;

  /**
   * @param backing the store of cells
   * @param tableName the table named in error messages
   * @param txidOf the txid a cell was written for
   * @throws NullPointerException if {@code backing} or {@code tableName} is null
   */
  public TxidMapCore(IBackingMap<K, C> backing, String tableName, ToLongFunction<? super C> txidOf) {
    this.backing = Objects.requireNonNull(backing, "backing");
    this.table = Objects.requireNonNull(tableName, "tableName");
    this.txidOf = txidOf;
    this.keyContext = ErrorContext.of(table, null);
    this.open = new OpenEpoch("the map of table '" + table + "' over " + backing.describe());
  }

  /** @return the store of cells */
  public IBackingMap<K, C> backing() {
    return backing;
  }

  /** @return the table named in error messages */
  public String tableName() {
    return table;
  }

  /**
   * {@code begin(epoch)}: starts the epoch's batch (drops the cache) and begins the backing map's layers.
   *
   * @param epoch the epoch the state was begun with, not null
   */
  public void begin(Epoch epoch) {
    open.begin(epoch);
    attempt.clear();
    backing.begin(epoch);
  }

  /** {@code end()}: the partition's part of the batch is applied; no epoch is open afterwards. */
  public void end() {
    open.close();
    attempt.clear();
    backing.end();
  }

  /** {@code abort()}: drops the attempt's cells, and the backing map's layers drop theirs. */
  public void abort() {
    open.close();
    attempt.clear();
    backing.abort();
  }

  /**
   * The open epoch's txid, for a call that may only read.
   *
   * @param call the state's method being called, named in the error (e.g. {@code "multiGet"})
   * @return the txid of the open epoch, for call {@code call}
   * @throws IllegalStateException if no epoch is open
   */
  public long txid(String call) {
    return open.require(call).txid();
  }

  /**
   * The open epoch's txid, for a call that writes.
   *
   * @param call the state's method being called, named in the error (e.g. {@code "multiUpdate"})
   * @return the txid of the open epoch, for writing call {@code call}
   * @throws IllegalStateException if no epoch is open or it is read-only
   */
  public long writeTxid(String call) {
    return open.requireWritable(call).txid();
  }

  /**
   * Whether updates skip cells already written for the open epoch's txid.
   *
   * @param call the state's method being called, named in the error
   * @return whether the open epoch skips cells already written for its txid ({@link Epoch#skipsAppliedCells})
   * @throws IllegalStateException if no epoch is open
   */
  public boolean skipsApplied(String call) {
    return open.require(call).skipsAppliedCells();
  }

  /**
   * The stored cells of the keys not cached in this attempt, in at most one {@code multiGet} of the backing map.
   *
   * @param keys the keys the call reads or updates
   * @return the stored cells of the uncached keys that have one
   * @throws NullPointerException if {@code keys} is null (message {@code keys})
   * @throws InvalidRecordException naming the table if a key is null or has no value equality (an array, a class
   *     keeping {@code Object.equals}): see {@link ValueKeys}
   */
  public Map<K, C> readUncached(Collection<? extends K> keys) {
    Objects.requireNonNull(keys, "keys");
    for (K key : keys) {
      ValueKeys.require(key, keyContext);
    }
    return attempt.readUncached(keys, backing);
  }

  /**
   * The stored cells of the keys by position, for the keys not cached in this attempt ({@code null} for a key
   * without a stored cell and for a cached key: read it with {@link #cached}), in at most one read of the backing
   * map.
   *
   * @param keys the keys the call updates, in the order of the call's loop
   * @return one element per key
   * @throws InvalidRecordException naming the table if a key is null or has no value equality
   */
  public List<C> readUncachedOrdered(List<K> keys) {
    for (K key : keys) {
      ValueKeys.require(key, keyContext);
    }
    return attempt.readUncachedOrdered(keys, backing);
  }

  /**
   * The cell this attempt wrote for a key.
   *
   * @param key a key already checked by {@link #readUncached}
   * @return the cell written for {@code key} in this attempt, or {@code null}
   */
  public C cached(K key) {
    return attempt.get(key);
  }

  /**
   * Writes the new cells in one {@code multiPut} (none if empty) and caches them once the store accepted them.
   *
   * @param written the new cell of each key the call changes
   */
  public void writeThrough(Map<K, C> written) {
    attempt.writeThrough(written, backing);
  }

  /**
   * Whether the backing map deletes.
   *
   * @return true if the backing map is a {@link RemovableBackingMap}
   */
  public boolean canRemove() {
    return backing instanceof RemovableBackingMap;
  }

  /**
   * Deletes the keys from the store in one {@code multiRemove} (none if empty) after dropping them from the attempt's
   * cache.
   *
   * @param keys the keys to delete, checked like {@link #readUncached}'s
   * @param mapName the map's name for the error, e.g. {@code "TransactionalMap"}
   * @throws UnsupportedOperationException naming the map if the backing map cannot delete
   */
  public void removeThrough(Collection<? extends K> keys, String mapName) {
    Objects.requireNonNull(keys, "keys");
    if (!(backing instanceof RemovableBackingMap<K, C> removable)) {
      throw new UnsupportedOperationException(describe(mapName) + " cannot remove keys: its backing map "
          + backing.describe() + " is not a RemovableBackingMap");
    }
    for (K key : keys) {
      ValueKeys.require(key, keyContext);
    }
    attempt.drop(keys);
    if (!keys.isEmpty()) {
      removable.multiRemove(keys);
    }
  }

  /**
   * Refuses a stored cell ahead of the batch.
   *
   * @param key the cell's key
   * @param stored the cell read from the store
   * @param txid the txid of the open epoch
   * @throws StateAheadException naming the table, the key and both txids if {@code stored} was written for a batch
   *     after {@code txid}
   */
  public void checkNotAhead(K key, C stored, long txid) {
    if (txidOf.applyAsLong(stored) > txid) {
      throw ahead(key, stored, txid);
    }
  }

  /**
   * The "state ahead" error of a cell.
   *
   * @param key the cell's key
   * @param stored the cell read from the store, written for a batch after {@code txid}
   * @param txid the txid of the open epoch
   * @return the error for a {@code stored} cell written for a batch after {@code txid}
   */
  public StateAheadException ahead(K key, C stored, long txid) {
    return new StateAheadException(table, key, txidOf.applyAsLong(stored), txid);
  }

  /**
   * Refuses a null result of an updater.
   *
   * @param key the key updated
   * @param value what the updater returned
   * @param txid the txid of the open epoch
   * @param <V> the value type
   * @return {@code value}, what the updater of {@code key} returned for batch {@code txid}
   * @throws InvalidRecordException (not retryable) naming the table, the key and the txid if {@code value} is null
   */
  public <V> V requireUpdated(K key, V value, long txid) {
    if (value == null) {
      throw new InvalidRecordException("updater returned null for key '" + key + "' of table '" + table + "' (txid "
          + txid + "); null values are errors, never stored or dropped", null, keyContext.withKey(key).withTxid(txid));
    }
    return value;
  }

  /**
   * Refuses a null value put.
   *
   * @param key the key put
   * @param value the value put
   * @param txid the txid of the open epoch
   * @param <V> the value type
   * @return {@code value}, the value put for {@code key} in batch {@code txid}
   * @throws InvalidRecordException (not retryable) naming the table, the key and the txid if {@code value} is null
   */
  public <V> V requireValue(K key, V value, long txid) {
    if (value == null) {
      throw new InvalidRecordException("null value put for key '" + key + "' of table '" + table + "' (txid " + txid
          + "); null values are errors, never stored or dropped", null, keyContext.withKey(key).withTxid(txid));
    }
    return value;
  }

  /**
   * The map's description.
   *
   * @param mapName the map's name, e.g. {@code "OpaqueMap"}
   * @return {@code mapName[table over store]}, the map's {@code toString()}
   */
  public String describe(String mapName) {
    return mapName + "[" + table + " over " + backing.describe() + "]";
  }

  /**
   * A {@code HashMap} capacity.
   *
   * @param expectedSize the number of entries the map will hold, {@code >= 0}
   * @return the initial capacity of a {@code HashMap} that holds {@code expectedSize} entries without resizing
   */
  public static int capacity(int expectedSize) {
    return (int) (expectedSize / 0.75f) + 1;
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
   * @throws NullPointerException if {@code backing} is null
   */
  public static <K, V, C> StateFactory<MapState<K, V>> factory(String mapName, StateKind kind,
      IBackingMap<K, C> backing, BiFunction<IBackingMap<K, C>, String, ? extends MapState<K, V>> over) {
    Objects.requireNonNull(backing, "backing");
    return new Factory<>(context -> backing, over, kind, mapName + " over " + backing.describe());
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
   * @throws NullPointerException if {@code backingPerPartition} is null
   */
  public static <K, V, C> StateFactory<MapState<K, V>> factory(String mapName, StateKind kind,
      Function<? super StateContext, ? extends IBackingMap<K, C>> backingPerPartition,
      BiFunction<IBackingMap<K, C>, String, ? extends MapState<K, V>> over) {
    Objects.requireNonNull(backingPerPartition, "backingPerPartition");
    return new Factory<>(backingPerPartition, over, kind, mapName + " over a store per partition");
  }

  /**
   * The map factory: also a {@link RemovableStateFactory}, whose bucket states are maps of the same rule over the same
   * store (the bucket entries are keys of their own type in it, {@link BucketEntry}, with the state name's
   * {@code "#buckets"} table name in errors).
   */
  private static final class Factory<K, V, C> implements RemovableStateFactory<K, V> {
    private final Function<? super StateContext, ? extends IBackingMap<K, C>> backingPerPartition;
    private final BiFunction<IBackingMap<K, C>, String, ? extends MapState<K, V>> over;
    private final StateKind kind;
    private final String description;

    Factory(Function<? super StateContext, ? extends IBackingMap<K, C>> backingPerPartition,
        BiFunction<IBackingMap<K, C>, String, ? extends MapState<K, V>> over, StateKind kind, String description) {
      this.backingPerPartition = backingPerPartition;
      this.over = over;
      this.kind = kind;
      this.description = description;
    }

    @Override
    public RemovableMapState<K, V> makeState(StateContext context) {
      Objects.requireNonNull(context, "context");
      return removable(over.apply(backing(context), context.stateName()));
    }

    private IBackingMap<K, C> backing(StateContext context) {
      return Objects.requireNonNull(backingPerPartition.apply(context),
          () -> "the backing map function returned null for " + context);
    }

    private static <A, B> RemovableMapState<A, B> removable(MapState<A, B> state) {
      Objects.requireNonNull(state, "the map function returned null");
      if (state instanceof RemovableMapState<A, B> r) {
        return r;
      }
      // another map than a TxidMap: forwarded as is, and it cannot remove (canRemove() is false)
      return new io.epochal.state.ForwardingMapState<>(state) {
        @Override
        public String toString() {
          return state.toString();
        }
      };
    }

    /**
     * Bucket states over the same store: the txid rule is generic in its value type, so the map {@code over} makes
     * for the keys serves for entries of type {@code BucketEntry -> K} too.
     */
    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public StateFactory<RemovableMapState<BucketEntry, K>> buckets() {
      Factory<K, V, C> keys = this;
      return new StateFactory<>() {
        @Override
        public RemovableMapState<BucketEntry, K> makeState(StateContext context) {
          Objects.requireNonNull(context, "context");
          IBackingMap raw = keys.backing(context);
          return removable((MapState<BucketEntry, K>) (MapState) keys.over.apply(raw, context.stateName()
              + "#buckets"));
        }

        @Override
        public StateKind kind() {
          return kind;
        }

        @Override
        public String describe() {
          return "buckets of " + description;
        }
      };
    }

    @Override
    public StateKind kind() {
      return kind;
    }

    @Override
    public String describe() {
      return description;
    }

    @Override
    public String toString() {
      return description;
    }
  }
}
