package io.epochal.state.transactional;

import io.epochal.api.Stable;
import io.epochal.state.IBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.StateContext;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;
import io.epochal.state.TxidMap;
import java.util.function.Function;

/**
 * A {@link MapState} that stores {@link TransactionalValue} cells {@code (value, txid)} and applies each batch at most
 * once per key: Trident's {@code TransactionalMap}, with a detected "state ahead" case. Exactly-once with a
 * transactional spout (the same records for a txid on every replay); not with an opaque one.
 *
 * <p>Rules for batch {@code t} and a key, in every call:
 * <ul>
 *   <li>written earlier in this attempt (see below): reads and updates build on that value, and it is written again;
 *   <li>no stored cell: {@code multiGet} reports it absent; {@code multiUpdate} stores {@code (update(empty), t)};
 *   <li>stored txid {@code < t}: {@code multiUpdate} stores {@code (update(value), t)};
 *   <li>stored txid {@code == t} (a replay): {@code multiUpdate} <b>skips</b> the key (returns the stored value and
 *       does not write it);
 *   <li>stored txid {@code > t}: every call throws {@link io.epochal.errors.StateAheadException} naming the table, the key and both
 *       txids, before writing anything;
 *   <li>{@code multiGet} otherwise returns the stored value, and {@code multiPut(v)} stores {@code (v, t)} (no skip).
 * </ul>
 *
 * <p>Per-attempt cache: the cells this instance wrote in the epoch of batch {@code t} (given to {@link #begin}) are
 * kept from the write until {@link #end} or {@link #abort}, so reads later in the same epoch (a {@code lookup} after
 * the update) see them. A second update of a key in one attempt therefore builds on the first. The skip is
 * per key and per batch, though: update a key at most once per batch (as an aggregation does, one
 * {@code multiUpdate} per partition per batch) if attempts can fail between the two updates, since a replay skips
 * every update of a key the failed attempt wrote.
 *
 * <p>Each call makes at most one {@code multiGet} on the backing map (for the keys not cached) and at most one
 * {@code multiPut} (only the keys it changes). Atomicity is the backing map's: a failed {@code multiPut} may have
 * written some cells, which the replay then skips.
 *
 * <p>The rules are the shared {@link TxidMap}'s, driven by {@link TransactionalValue#rule()}.
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
@Stable
public final class TransactionalMap<K, V> extends TxidMap<K, V, TransactionalValue<V>> {

  private TransactionalMap(IBackingMap<K, TransactionalValue<V>> backing, String table) {
    super(backing, table, TransactionalValue.rule(), "TransactionalMap");
  }

  /**
   * Layers the transactional rule over a store.
   *
   * @param <K> the key type
   * @param <V> the value type
   * @param backing the store of cells; the map reads and writes only through it and keeps no cell beyond the
   *     per-attempt cache
   * @param tableName the table named in error messages
   * @return a new map, not yet in an epoch (call {@link #begin} before reading or writing)
   * @throws NullPointerException if an argument is null
   */
  public static <K, V> TransactionalMap<K, V> over(IBackingMap<K, TransactionalValue<V>> backing, String tableName) {
    return new TransactionalMap<>(backing, tableName);
  }

  /**
   * A factory making one map per partition over the same store; the table name is the state's name.
   *
   * @param <K> the key type
   * @param <V> the value type
   * @param backing the store of cells, shared by every partition's map
   * @return a factory of {@link StateKind#TRANSACTIONAL} map states
   * @throws NullPointerException if {@code backing} is null
   */
  public static <K, V> StateFactory<MapState<K, V>> factory(IBackingMap<K, TransactionalValue<V>> backing) {
    return factory("TransactionalMap", StateKind.TRANSACTIONAL, backing, TransactionalMap::over);
  }

  /**
   * A factory making one map per partition, each over the store {@code backingPerPartition} returns for the
   * partition's context; the table name is the state's name.
   *
   * @param <K> the key type
   * @param <V> the value type
   * @param backingPerPartition returns the store of cells for a partition's context, called once per state made;
   *     must not return null
   * @return a factory of {@link StateKind#TRANSACTIONAL} map states
   * @throws NullPointerException if {@code backingPerPartition} is null, or returns null when a state is made
   */
  public static <K, V> StateFactory<MapState<K, V>> factory(
      Function<? super StateContext, ? extends IBackingMap<K, TransactionalValue<V>>> backingPerPartition) {
    return factory("TransactionalMap", StateKind.TRANSACTIONAL, backingPerPartition, TransactionalMap::over);
  }
}
