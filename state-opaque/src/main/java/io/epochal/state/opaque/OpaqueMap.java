package io.epochal.state.opaque;

import io.epochal.api.Stable;
import io.epochal.state.IBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.StateContext;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;
import io.epochal.state.TxidMap;
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
 *   <li>stored txid {@code > t}: every call throws {@link io.epochal.errors.StateAheadException} naming the table, the key and both
 *       txids, before writing anything.
 * </ul>
 * {@code multiPut(v)} is {@code multiUpdate} with "replace by {@code v}". Every key given to an update or put is
 * written (there is no skip).
 *
 * <p>Per-attempt cache: the cells this instance wrote in the epoch of batch {@code t} (given to {@link #begin}) are
 * kept from the write until {@link #end} or {@link #abort}, so reads later in the same epoch (a {@code lookup} after
 * the update) see them. A second update of a key in one attempt builds on the first ({@code +1} then
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
 * <p>The rules are the shared {@link TxidMap}'s, driven by {@link OpaqueValue#rule()}.
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
public final class OpaqueMap<K, V> extends TxidMap<K, V, OpaqueValue<V>> {

  private OpaqueMap(IBackingMap<K, OpaqueValue<V>> backing, String table) {
    super(backing, table, OpaqueValue.rule(), "OpaqueMap");
  }

  /**
   * Layers the opaque rule over a store.
   *
   * @param <K> the key type
   * @param <V> the value type
   * @param backing the store of cells; the map reads and writes only through it and keeps no cell beyond the
   *     per-attempt cache
   * @param tableName the table named in error messages
   * @return a new map, not yet in an epoch (call {@link #begin} before reading or writing)
   * @throws NullPointerException if an argument is null
   */
  public static <K, V> OpaqueMap<K, V> over(IBackingMap<K, OpaqueValue<V>> backing, String tableName) {
    return new OpaqueMap<>(backing, tableName);
  }

  /**
   * A factory making one map per partition over the same store; the table name is the state's name.
   *
   * @param <K> the key type
   * @param <V> the value type
   * @param backing the store of cells, shared by every partition's map
   * @return a factory of {@link StateKind#OPAQUE} map states
   * @throws NullPointerException if {@code backing} is null
   */
  public static <K, V> StateFactory<MapState<K, V>> factory(IBackingMap<K, OpaqueValue<V>> backing) {
    return factory("OpaqueMap", StateKind.OPAQUE, backing, OpaqueMap::over);
  }

  /**
   * A factory making one map per partition, each over the store {@code backingPerPartition} returns for the
   * partition's context; the table name is the state's name.
   *
   * @param <K> the key type
   * @param <V> the value type
   * @param backingPerPartition returns the store of cells for a partition's context, called once per state made;
   *     must not return null
   * @return a factory of {@link StateKind#OPAQUE} map states
   * @throws NullPointerException if {@code backingPerPartition} is null, or returns null when a state is made
   */
  public static <K, V> StateFactory<MapState<K, V>> factory(
      Function<? super StateContext, ? extends IBackingMap<K, OpaqueValue<V>>> backingPerPartition) {
    return factory("OpaqueMap", StateKind.OPAQUE, backingPerPartition, OpaqueMap::over);
  }
}
