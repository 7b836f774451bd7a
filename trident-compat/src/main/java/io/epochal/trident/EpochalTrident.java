package io.epochal.trident;

import io.epochal.api.Evolving;
import io.epochal.codec.Codec;
import io.epochal.pipeline.KeyValue;
import io.epochal.pipeline.StateRef;
import io.epochal.pipeline.Stream;
import io.epochal.spout.OpaqueSpout;
import io.epochal.spout.Spout;
import io.epochal.spout.SpoutKind;
import io.epochal.spout.TransactionalSpout;
import io.epochal.state.IBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.StateContext;
import io.epochal.state.StateKind;
import io.epochal.state.opaque.OpaqueValue;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableStore;
import io.epochal.trident.internal.KryoValues;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.storm.trident.operation.CombinerAggregator;
import org.apache.storm.trident.operation.Filter;
import org.apache.storm.trident.operation.ReducerAggregator;
import org.apache.storm.trident.spout.IBatchSpout;
import org.apache.storm.trident.spout.IOpaquePartitionedTridentSpout;
import org.apache.storm.trident.spout.IPartitionedTridentSpout;
import org.apache.storm.trident.spout.ITridentSpout;
import org.apache.storm.trident.state.QueryFunction;
import org.apache.storm.trident.state.Serializer;
import org.apache.storm.trident.state.StateType;
import org.apache.storm.trident.state.StateUpdater;
import org.apache.storm.trident.testing.MemoryMapState;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.tuple.Fields;

/**
 * The one entry point of Storm Trident interop, in three directions (like Caffeine's {@code CaffeinatedGuava}: static
 * factories here, package-private adapters behind them).
 *
 * <p>What each direction offers, and where Epochal is stricter than Trident, is the
 * {@linkplain io.epochal.trident package overview}.
 *
 * <p>All methods reject null arguments with {@link NullPointerException}, except the {@code inputFields} of
 * {@link #each}, {@link #filter} and {@link #updater}, where null means all fields. The returned adapters are as
 * thread-safe as the Epochal contracts they implement require: operations are copied per thread or per state partition
 * (as Storm copies them per task), spouts are used by the coordinator thread only.
 *
 * @since 0.1.0
 */
@SuppressWarnings("rawtypes") // Trident's own types are raw (OpaqueValue, TransactionalValue, Serializer)
@Evolving
public final class EpochalTrident {
  private EpochalTrident() {
  }

  /**
   * A {@link Supplier} that Storm can serialize with a topology: how a Trident {@code StateFactory} built here gets its
   * store inside a Storm worker. Write it as a lambda or method reference; it must capture only serializable values.
   *
   * @param <T> the supplied type
   * @since 0.1.0
   */
  @FunctionalInterface
  public interface SerializableSupplier<T> extends Supplier<T>, Serializable {
  }

  // ================================================================== records, keys, functions

  /**
   * A tuple with the given fields and values, as the adapters emit them.
   *
   * @param fields the tuple's field names, in order
   * @param values one value per field, in the order of {@code fields}; copied
   * @return an immutable tuple whose values are read by position or by field name
   * @throws IllegalArgumentException if the numbers of fields and values differ
   */
  public static TridentTuple tuple(Fields fields, List<?> values) {
    return FieldsTuple.of(fields, values);
  }

  /**
   * Trident's {@code topology.newStream(id, spout)}: the stream of a spout made by {@code EpochalTrident.spout}, whose
   * fields are known while the pipeline is built. Every {@code Fields} reference of the adapters applied to it (and to
   * the streams {@link #each}, {@code filter}, {@code groupBy} and {@link #stateQuery} derive from it) is checked at
   * once: a field the stream does not have is refused with {@link IllegalArgumentException} naming it and the
   * available fields, as Trident refuses it, instead of failing when the first batch runs.
   *
   * @param builder the pipeline builder
   * @param spout a spout made by one of the {@code spout} factories of this class
   * @return the spout's stream, whose fields are the Trident spout's output fields
   * @throws IllegalArgumentException if {@code spout} was not made here (use {@link #withFields})
   */
  public static Stream<TridentTuple> newStream(io.epochal.pipeline.PipelineBuilder builder,
      Spout<TridentTuple, ?> spout) {
    return TridentStreams.newStream(builder, spout);
  }

  /**
   * Declares the fields of a stream of Trident tuples (for example tuples made by your own {@code map} with
   * {@link #tuple}, or the values of {@link #newValues}), so that the adapters applied to it are checked when the
   * pipeline is built, as with {@link #newStream}. Each record is checked against the declaration at run time: a
   * record with other fields stops the pipeline with {@link io.epochal.errors.InvalidRecordException}.
   *
   * @param stream a stream of Trident tuples
   * @param fields the fields every record of the stream has, in order
   * @return a stream whose fields are known ({@code stream} itself if its fields were already known and equal)
   * @throws IllegalArgumentException if the stream's fields are already known and differ
   */
  public static Stream<TridentTuple> withFields(Stream<TridentTuple> stream, Fields fields) {
    return TridentStreams.withFields(stream, fields);
  }

  /**
   * The group key of a tuple: the values of {@code groupFields}, as a {@code List<Object>} (Trident's positional key).
   * For {@link Stream#groupBy}: records of one key go to one partition ({@code farm_hash} of the key's parts, which
   * must be strings, integral numbers, booleans, doubles or byte arrays, and never null). On a stream of known fields
   * ({@link #newStream}) a missing field is refused when the pipeline is built, as Trident refuses it; otherwise the
   * first tuple without it stops the pipeline with {@link io.epochal.errors.InvalidRecordException} (never retried).
   *
   * @param groupFields the grouping fields, in key order
   * @return the key function, for {@code groupBy}
   */
  public static Function<TridentTuple, List<Object>> key(Fields groupFields) {
    return new Operations.Key(groupFields);
  }

  /**
   * Trident's {@code each(inputFields, function, functionFields)} as a {@code flatMap} function: the Trident function
   * sees the tuple projected to {@code inputFields} (all fields if null), and every value list it emits becomes a
   * tuple of the input's fields followed by {@code functionFields}. The function is copied and prepared once per
   * thread; {@code cleanup} is never called. Fields are checked as the class comment says.
   *
   * @param inputFields the fields the function sees, in that order; null for all of the tuple's fields
   * @param function the Trident function; must be serializable: each thread gets its own copy by Java serialization,
   *     as each Storm task does
   * @param functionFields the names of the values the function emits, appended to the input's fields; none of them
   *     may be a field of the input
   * @return the {@code flatMap} function: per tuple, the tuples made of the value lists the function emitted
   * @throws IllegalArgumentException if Storm could not copy the function (it is not serializable)
   */
  public static Function<TridentTuple, Iterable<TridentTuple>> each(Fields inputFields,
      org.apache.storm.trident.operation.Function function, Fields functionFields) {
    return Operations.each(inputFields, function, functionFields);
  }

  /**
   * Trident's {@code each(inputFields, filter)} as a {@code filter} predicate over the tuple projected to
   * {@code inputFields} (all fields if null). Copied and prepared once per thread. Fields are checked as the class
   * comment says.
   *
   * @param inputFields the fields the filter sees, in that order; null for all of the tuple's fields
   * @param filter the Trident filter; must be serializable
   * @return the predicate: true for a tuple the filter's {@code isKeep} keeps
   * @throws IllegalArgumentException if Storm could not copy the filter (it is not serializable)
   */
  public static Predicate<TridentTuple> filter(Fields inputFields, Filter filter) {
    return Operations.filter(inputFields, filter);
  }

  /**
   * Turns an aggregate's new values (Epochal's {@code newValuesStream()}) into Trident's shape: the grouping fields'
   * values followed by the value, with fields {@code groupFields} + {@code valueField}. A key of another size than
   * {@code groupFields} stops the pipeline with {@link io.epochal.errors.InvalidRecordException}.
   *
   * @param groupFields the grouping fields the aggregate's keys hold the values of, in key order
   * @param valueField one field: the name of the aggregated value
   * @param <V> the aggregated value type
   * @return the function from a new value to its Trident tuple
   * @throws IllegalArgumentException if {@code valueField} is not one field, or is one of {@code groupFields}
   */
  public static <V> Function<KeyValue<List<Object>, V>, TridentTuple> newValues(Fields groupFields, Fields valueField) {
    return TridentStreams.newValues(groupFields, valueField);
  }

  // ================================================================== aggregators, updaters, queries

  /**
   * A Trident combiner over whole tuples; see {@link #combiner(Fields, CombinerAggregator)}.
   *
   * @param aggregator the Trident combiner; its {@code init} sees every field of the tuple; must be pure
   * @param <V> the aggregated value type
   * @return the Epochal combiner, for {@code persistentAggregate}
   */
  public static <V> io.epochal.pipeline.CombinerAggregator<TridentTuple, V> combiner(CombinerAggregator<V> aggregator) {
    return new Operations.Combiner<>(null, aggregator);
  }

  /**
   * A Trident {@code CombinerAggregator} (for example {@code Count}, {@code Sum}) as an Epochal one, for
   * {@code persistentAggregate}: {@code init} sees the tuple projected to {@code inputFields} (Trident's
   * {@code persistentAggregate(factory, inputFields, aggregator, outputFields)}). Epochal pre-aggregates per batch and
   * partition exactly as Trident does, so the aggregator must be pure. {@code inputFields} is checked as the class
   * comment says.
   *
   * @param inputFields the fields {@code init} sees, in that order
   * @param aggregator the Trident combiner; must be pure
   * @param <V> the aggregated value type
   * @return the Epochal combiner, for {@code persistentAggregate}
   */
  public static <V> io.epochal.pipeline.CombinerAggregator<TridentTuple, V> combiner(Fields inputFields,
      CombinerAggregator<V> aggregator) {
    return Operations.Combiner.over(inputFields, aggregator);
  }

  /**
   * A Trident reducer over whole tuples; see {@link #reducer(Fields, ReducerAggregator)}.
   *
   * @param aggregator the Trident reducer; its {@code reduce} sees every field of the tuple
   * @param <V> the aggregated value type
   * @return the Epochal reducer, for {@code persistentAggregate}
   */
  public static <V> io.epochal.pipeline.ReducerAggregator<TridentTuple, V> reducer(ReducerAggregator<V> aggregator) {
    return new Operations.Reducer<>(null, aggregator);
  }

  /**
   * A Trident {@code ReducerAggregator} as an Epochal one: the batch's tuples of each key, projected to
   * {@code inputFields}, are folded in emission order over the stored value (or {@code init()}). {@code inputFields}
   * is checked as the class comment says.
   *
   * @param inputFields the fields {@code reduce} sees, in that order
   * @param aggregator the Trident reducer
   * @param <V> the aggregated value type
   * @return the Epochal reducer, for {@code persistentAggregate}
   */
  public static <V> io.epochal.pipeline.ReducerAggregator<TridentTuple, V> reducer(Fields inputFields,
      ReducerAggregator<V> aggregator) {
    return Operations.Reducer.over(inputFields, aggregator);
  }

  /**
   * A Trident {@code StateUpdater} (for example {@code MapCombinerAggStateUpdater} or your own) as an Epochal one, for
   * {@code partitionPersist}. It is called once per batch per partition with records, between the state's
   * {@code beginCommit} and {@code commit}, with the tuples projected to {@code inputFields} (all fields if null) and
   * the partition's Trident state: the state made by a Trident {@code StateFactory} ({@link #tridentState}), or a
   * Trident {@code MapState} view of an Epochal map with {@code List<Object>} keys. The updater is copied and prepared
   * once per partition. Tuples it emits are dropped: Epochal's {@code partitionPersist} has no output stream. On an
   * {@link #opaqueState} or {@link #transactionalState} the view is also a Trident {@code RemovableMapState}.
   * {@code inputFields} is checked as the class comment says.
   *
   * @param inputFields the fields the updater sees, in that order; null for all of the tuple's fields
   * @param updater the Trident state updater; must be serializable
   * @param <S> the Epochal state type of the {@code partitionPersist}
   * @return the Epochal updater, for {@code partitionPersist}
   * @throws IllegalArgumentException if Storm could not copy the updater (it is not serializable)
   */
  public static <S extends io.epochal.state.State> io.epochal.pipeline.StateUpdater<S, TridentTuple> updater(
      Fields inputFields, StateUpdater<?> updater) {
    return Operations.updater(inputFields, updater);
  }

  /**
   * Trident's {@code stateQuery(state, inputFields, queryFunction, functionFields)} on an Epochal stream: each tuple
   * goes to the partition of its key (the values of {@code inputFields}), {@code batchRetrieve} is called once per
   * batch and partition with the projected tuples, and {@code execute} once per tuple; every value list it emits
   * becomes a tuple of the input's fields followed by {@code functionFields}. The query sees the partition's Trident
   * state as for {@link #updater}, after the batch's writes (Epochal runs queries after the writers declared before
   * them). Copied and prepared once per partition. On a stream of known fields the result knows its fields too
   * (the input's followed by {@code functionFields}); fields are checked as the class comment says.
   *
   * @param stream the tuples to query with
   * @param state the state to query, as {@code persistentAggregate} or {@code partitionPersist} declared it
   * @param inputFields the fields of the key (which selects the partition) and of the tuples the query sees, in order
   * @param function the Trident query function; must be serializable
   * @param functionFields the names of the values {@code execute} emits, appended to the input's fields
   * @param <S> the Epochal state type
   * @return the stream of result tuples, in the same batch
   */
  public static <S extends io.epochal.state.State> Stream<TridentTuple> stateQuery(Stream<TridentTuple> stream,
      StateRef<S> state, Fields inputFields, QueryFunction<?, ?> function, Fields functionFields) {
    return TridentStreams.stateQuery(stream, state, inputFields, function, functionFields);
  }

  // ================================================================== states on the Epochal engine

  /**
   * Epochal's {@code OpaqueMap} over a Trident {@code IBackingMap<OpaqueValue>} (the store your Trident
   * {@code OpaqueMap.build(...)} wrapped), one map per partition over the same store. Cells stay Storm
   * {@code OpaqueValue}s in your store, so Trident and Epochal can read each other's data; values read back have
   * integral numbers widened to {@code Long}. A cell without a value ({@code [txid, null, prev]}, written by Storm's
   * {@code MemoryMapState.multiRemove} or a Trident updater returning null) keeps its txid and prev: a later batch
   * reads the key as absent, a replay of its batch reads {@code prev}, and one from a batch ahead raises
   * {@link io.epochal.errors.StateAheadException}, exactly as Trident's {@code OpaqueMap} reads it. Trident
   * {@code StateUpdater}s on such a state see a Trident {@code RemovableMapState} and may remove keys the same way. A
   * cell with a null txid raises {@link io.epochal.errors.StateCorruptedException}.
   *
   * @param backing the Trident store of opaque cells, shared by every partition's map
   * @param <V> the value type (untyped in Trident; {@code Long} for {@code Count})
   * @return the state factory, for {@code persistentAggregate} or {@code partitionPersist}
   */
  public static <V> io.epochal.state.StateFactory<MapState<List<Object>, V>> opaqueState(
      org.apache.storm.trident.state.map.IBackingMap<org.apache.storm.trident.state.OpaqueValue> backing) {
    return TridentMapStates.opaque(backing);
  }

  /**
   * {@link #opaqueState(org.apache.storm.trident.state.map.IBackingMap)} with one Trident store per partition.
   *
   * @param backingPerPartition makes a partition's Trident store of opaque cells from the partition's context (its
   *     index, count and state name), when the engine makes that partition's state
   * @param <V> the value type
   * @return the state factory, for {@code persistentAggregate} or {@code partitionPersist}
   */
  public static <V> io.epochal.state.StateFactory<MapState<List<Object>, V>> opaqueState(
      Function<? super StateContext, ? extends org.apache.storm.trident.state.map.IBackingMap<
          org.apache.storm.trident.state.OpaqueValue>> backingPerPartition) {
    return TridentMapStates.opaque(backingPerPartition);
  }

  /**
   * Epochal's {@code TransactionalMap} over a Trident {@code IBackingMap<TransactionalValue>}, one map per partition
   * over the same store; see {@link #opaqueState(org.apache.storm.trident.state.map.IBackingMap)} for the cells.
   *
   * @param backing the Trident store of transactional cells, shared by every partition's map
   * @param <V> the value type
   * @return the state factory, for {@code persistentAggregate} or {@code partitionPersist}
   */
  public static <V> io.epochal.state.StateFactory<MapState<List<Object>, V>> transactionalState(
      org.apache.storm.trident.state.map.IBackingMap<org.apache.storm.trident.state.TransactionalValue> backing) {
    return TridentMapStates.transactional(backing);
  }

  /**
   * Epochal's {@code NonTransactionalMap} over a Trident {@code IBackingMap} of plain values: replays are applied
   * again, so a pipeline using it must opt in to {@code AT_LEAST_ONCE}.
   *
   * @param backing the Trident store of plain values, shared by every partition's map
   * @param <V> the value type
   * @return the state factory, for {@code persistentAggregate} or {@code partitionPersist}
   */
  public static <V> io.epochal.state.StateFactory<MapState<List<Object>, V>> nonTransactionalState(
      org.apache.storm.trident.state.map.IBackingMap<?> backing) {
    return TridentMapStates.nonTransactional(backing);
  }

  /**
   * A whole Trident {@code StateFactory} (your {@code RedisMapState.Factory}, {@code MemoryMapState.Factory}, a custom
   * non-map state) as an Epochal state factory: each partition gets {@code makeState(conf, metrics, partition,
   * partitions)} of its own copy of the factory, and the engine drives it with {@code beginCommit(t)},
   * {@code commit(t)} in txid order as Trident does. Trident map states also serve {@code persistentAggregate} and
   * {@code lookup}; other states serve {@link #updater} and {@link #stateQuery}. The Trident state's own semantics
   * apply (a Trident {@code TransactionalMap} still re-bases a value whose txid is ahead). After an attempt in which a
   * call into a partition's Trident state threw, the partition gets a fresh state from {@code makeState} before the
   * replay: a Trident {@code CachedMap} may hold cells whose store write failed.
   *
   * @param factory the Trident state factory; must be serializable (each partition gets its own copy)
   * @param kind what the Trident state does with a replayed batch (Trident does not declare it): {@code OPAQUE} for
   *     {@code OpaqueMap.build(..)} and {@code MemoryMapState}, {@code TRANSACTIONAL} for
   *     {@code TransactionalMap.build(..)}, {@code NON_TRANSACTIONAL} otherwise; the pipeline builder checks the
   *     pairing with the spout from it
   * @param conf the Storm configuration passed to {@code makeState}
   * @param <V> the value type of the map view
   * @return the Epochal state factory
   * @throws IllegalArgumentException if Storm could not copy the factory (it is not serializable)
   */
  public static <V> io.epochal.state.StateFactory<MapState<List<Object>, V>> tridentState(
      org.apache.storm.trident.state.StateFactory factory, StateKind kind, Map<String, Object> conf) {
    return TridentMapStates.trident(factory, kind, conf);
  }

  /**
   * {@link #tridentState(org.apache.storm.trident.state.StateFactory, StateKind, Map)} with an empty configuration.
   *
   * @param factory the Trident state factory; must be serializable
   * @param kind what the Trident state does with a replayed batch ({@code OPAQUE}, {@code TRANSACTIONAL} or
   *     {@code NON_TRANSACTIONAL}, as for the other overload)
   * @param <V> the value type of the map view
   * @return the Epochal state factory
   * @throws IllegalArgumentException if Storm could not copy the factory (it is not serializable)
   */
  public static <V> io.epochal.state.StateFactory<MapState<List<Object>, V>> tridentState(
      org.apache.storm.trident.state.StateFactory factory, StateKind kind) {
    return tridentState(factory, kind, Map.of());
  }

  /**
   * Storm's test state {@code MemoryMapState.Factory} (always an {@code OpaqueMap} in Storm) as an Epochal opaque
   * state; see {@link #tridentState(org.apache.storm.trident.state.StateFactory, StateKind, Map)}.
   *
   * @param factory Storm's in-memory test state factory
   * @param <V> the value type
   * @return the Epochal state factory, of kind {@code OPAQUE}
   */
  public static <V> io.epochal.state.StateFactory<MapState<List<Object>, V>> tridentState(
      MemoryMapState.Factory factory) {
    return tridentState(factory, StateKind.OPAQUE, Map.of());
  }

  /**
   * Continues a state Trident wrote: batch {@code t} of the Epochal pipeline reads and writes the cells as batch
   * {@code lastTridentTxid + t}. Epochal pipelines number batches from 1, so without this the cells of Trident's
   * batches 1..N would be "ahead" of the pipeline and stop it with {@link io.epochal.errors.StateAheadException}.
   * Use the same value for the whole life of the state (every restart). The result stays bound to the same
   * checkpoint store when {@code factory} is table-backed.
   *
   * @param lastTridentTxid the last txid Trident committed to the state (its coordinator's {@code currtx} in
   *     ZooKeeper; any larger value also works), at least 0
   * @param factory the state factory over the cells Trident wrote (for example {@link #opaqueState})
   * @param <K> the key type
   * @param <V> the value type
   * @return a state factory whose states read and write {@code factory}'s cells at txid {@code lastTridentTxid + t}
   * @throws IllegalArgumentException if {@code lastTridentTxid < 0}
   */
  public static <K, V> io.epochal.state.StateFactory<MapState<K, V>> continueAfter(long lastTridentTxid,
      io.epochal.state.StateFactory<? extends MapState<K, V>> factory) {
    return ShiftedStates.shift(factory, lastTridentTxid);
  }

  // ================================================================== spouts

  /**
   * A Trident {@code IBatchSpout} (for example {@code FixedBatchSpout}) as a transactional Epochal spout: the batch id
   * is the txid and a replay calls {@code emitBatch} with the same id, so the spout must re-emit the same tuples for
   * the same id (as {@code FixedBatchSpout} does) — use {@link #spout(String, IBatchSpout, SpoutKind)} with
   * {@code NON_TRANSACTIONAL} otherwise. {@code open} precedes the first batch, {@code ack(txid)} follows each commit.
   * An empty batch means "no new data now": the txid is not used.
   *
   * @param name the spout's name in the pipeline (its checkpoint key)
   * @param spout the Trident batch spout; must re-emit the same tuples for the same batch id
   * @return the transactional Epochal spout
   */
  public static TransactionalSpout<TridentTuple, ?> spout(String name, IBatchSpout spout) {
    return BatchSpoutAdapters.transactional(name, spout);
  }

  /**
   * A Trident {@code IBatchSpout} as a {@code TRANSACTIONAL} (see {@link #spout(String, IBatchSpout)}) or
   * {@code NON_TRANSACTIONAL} Epochal spout.
   *
   * @param name the spout's name in the pipeline (its checkpoint key)
   * @param spout the Trident batch spout
   * @param kind {@code TRANSACTIONAL} if the spout re-emits the same tuples for the same batch id,
   *     {@code NON_TRANSACTIONAL} otherwise
   * @return the Epochal spout of that kind
   * @throws IllegalArgumentException for {@code OPAQUE}: an {@code IBatchSpout} has no position to continue from
   */
  public static Spout<TridentTuple, ?> spout(String name, IBatchSpout spout, SpoutKind kind) {
    return BatchSpoutAdapters.of(name, spout, kind);
  }

  /**
   * A generic Trident {@code ITridentSpout} (coordinator + emitter) as an Epochal spout. Per new txid the coordinator's
   * {@code isReady(txid)} and {@code initializeTransaction(txid, previous metadata, null)} fix the batch's metadata,
   * and the emitter's {@code emitBatch(attempt, metadata, collector)} emits it (again on every replay); after the
   * commit {@code ICommitterTridentSpout.Emitter.commit(attempt)}, then both {@code success} calls. The coordinator
   * and the emitter get Storm's contexts: component {@code $spoutcoord-<name>} and component {@code <name>}, one task
   * each (Storm's {@code FeederBatchSpout} and {@code FeederCommitterBatchSpout} run as they do on Storm). Metadata is
   * kept as JSON (as Trident keeps it in ZooKeeper) when it reads back equal from JSON, by Java serialization
   * otherwise; other metadata is refused.
   *
   * @param name the spout's name in the pipeline (its checkpoint key, and the component name of Storm's contexts)
   * @param spout the Trident spout (coordinator and emitter)
   * @param kind {@code TRANSACTIONAL} if the same metadata always emits the same tuples, {@code NON_TRANSACTIONAL}
   *     otherwise
   * @throws IllegalArgumentException for {@code OPAQUE}: a generic Trident spout keeps its position itself; use an
   *     {@code IOpaquePartitionedTridentSpout}
   * @return the Epochal spout of that kind
   */
  public static Spout<TridentTuple, ?> spout(String name, ITridentSpout<?> spout, SpoutKind kind) {
    return TridentSpoutAdapters.of(name, spout, kind);
  }

  /**
   * A Trident transactional partitioned spout (Storm 2.7+ batch-wide emitter) as a transactional Epochal spout: a new
   * batch is {@code emitBatchNew(attempt, collector, partitions, last metadata per partition)} and its returned
   * per-partition metadata is recorded before the batch is processed; replays call {@code reEmitPartitionBatch} per
   * partition of the batch. Partition metadata is kept as JSON, keyed by partition id.
   *
   * @param name the spout's name in the pipeline (its checkpoint key)
   * @param spout the Trident transactional partitioned spout
   * @return the transactional Epochal spout
   */
  public static TransactionalSpout<TridentTuple, ?> spout(String name, IPartitionedTridentSpout<?, ?, ?> spout) {
    return PartitionedSpoutAdapters.transactional(name, spout);
  }

  /**
   * A Trident opaque partitioned spout (Storm 2.7+ batch-wide emitter; the Kafka Trident spout's shape) as an opaque
   * Epochal spout: every attempt is {@code emitBatchNew} from the metadata after the previous batch (the committed one
   * on a replay) and the returned per-partition metadata is committed with the batch, in the store, where Trident
   * writes it to ZooKeeper. On the per-key protocol Epochal refuses an opaque spout with an opaque map (a hole Trident
   * has); use a table-backed state on the epoch protocol, or opt in to {@code AT_LEAST_ONCE}.
   *
   * @param name the spout's name in the pipeline (its checkpoint key)
   * @param spout the Trident opaque partitioned spout
   * @return the opaque Epochal spout
   */
  public static OpaqueSpout<TridentTuple, ?> spout(String name, IOpaquePartitionedTridentSpout<?, ?, ?> spout) {
    return PartitionedSpoutAdapters.opaque(name, spout);
  }

  // ================================================================== their data

  /**
   * Trident's opaque JSON cell {@code [currTxid, curr, prev]} ({@code JSONOpaqueSerializer}, e.g. {@code [7,12,5]},
   * first write {@code [1,3,null]}) as an Epochal {@link OpaqueValue}; integral numbers decode as {@code Long}. A
   * cell with a null txid or value raises {@link io.epochal.codec.CodecException}. Id
   * {@code "trident-json-opaque:v1"}.
   *
   * @param <V> the value type the JSON decodes to ({@code Long}, {@code Double}, {@code String}, {@code List},
   *     {@code Map})
   * @return the codec of opaque cells, id {@code "trident-json-opaque:v1"}
   */
  public static <V> Codec<OpaqueValue<V>> opaqueJsonCodec() {
    return TridentJsonCodec.opaqueOf();
  }

  /**
   * Trident's transactional JSON cell {@code [txid, val]} ({@code JSONTransactionalSerializer}) as an Epochal
   * {@link TransactionalValue}; integral numbers decode as {@code Long}, and a cell with a null txid or value raises
   * {@link io.epochal.codec.CodecException}, as for {@link #opaqueJsonCodec()}.
   *
   * @param <V> the value type the JSON decodes to
   * @return the codec of transactional cells, id {@code "trident-json-transactional:v1"}
   */
  public static <V> Codec<TransactionalValue<V>> transactionalJsonCodec() {
    return TridentJsonCodec.transactionalOf();
  }

  /**
   * A bare JSON value ({@code JSONNonTransactionalSerializer}), integral numbers as {@code Long}: also the value codec
   * of Epochal table-backed states that store JSON. Encoding refuses anything but JSON values. Id
   * {@code "trident-json:v1"}.
   *
   * @param <V> the value type the JSON decodes to
   * @return the codec of bare JSON values
   */
  public static <V> Codec<V> jsonValueCodec() {
    return TridentJsonCodec.valueOf();
  }

  /**
   * Cells stored as bytes by Trident (a key-value store holding the JSON serializers' output) as an Epochal backing
   * map of cells: {@code EpochalTrident.encoded(bytesStore, EpochalTrident.opaqueJsonCodec())} under
   * {@code OpaqueMap}. Undecodable bytes raise {@link io.epochal.errors.StateCorruptedException}.
   *
   * @param bytes the store of encoded cells; its lifecycle calls are forwarded to it
   * @param codec decodes the stored bytes into cells and encodes the cells written
   * @param <K> the key type
   * @param <C> the cell type (for example {@code OpaqueValue<V>})
   * @return a backing map of cells over {@code bytes}, as thread-safe as {@code bytes} and {@code codec}
   */
  public static <K, C> IBackingMap<K, C> encoded(IBackingMap<K, byte[]> bytes, Codec<C> codec) {
    return new EncodedBackingMap<>(bytes, codec);
  }

  /**
   * Trident's {@code List<Object>} keys in one {@code string} key column {@code key} holding the key as a JSON array;
   * the key mapping of {@link #stormState} tables, for opening them from an Epochal pipeline with
   * {@code TableStates.builder(EpochalTrident.keyCodec(), EpochalTrident.jsonValueCodec()).table(path)}.
   * Integral key parts read back as {@code Long}.
   *
   * @return the key codec of Trident's {@code List<Object>} keys (a shared, stateless instance)
   */
  public static KeyCodec<List<Object>> keyCodec() {
    return JsonKeyCodec.INSTANCE;
  }

  /**
   * A drop-in replacement for Storm's JSON serializer of {@code type} (same bytes) that reads integral numbers back as
   * {@code Long}, for teams staying on Storm whose {@code Count} fails after a reload with
   * {@code ClassCastException: Integer cannot be cast to Long} (Storm 2.6+). Pass it where a state's options take a
   * {@code Serializer}.
   *
   * @param type the cell layout to write and read: {@code OPAQUE}, {@code TRANSACTIONAL} or {@code NON_TRANSACTIONAL}
   * @return the serializer
   */
  public static Serializer longSafeSerializer(StateType type) {
    return new LongSafeJsonSerializer(type);
  }

  // ================================================================== our state on their cluster

  /**
   * Starts a Trident {@code StateFactory} storing Epochal cells in table {@code table} of an Epochal
   * {@link TableStore} (in-memory, RocksDB, YTsaurus). In each Storm worker, the store is obtained once per
   * {@code storeName} from {@code store} and shared by every state partition and table of that name (a RocksDB
   * directory can be opened once per process); it is never closed, since Storm states have no lifecycle.
   *
   * <pre>{@code
   * TridentState counts = stream.groupBy(new Fields("word")).persistentAggregate(
   *     EpochalTrident.stormState("wc", () -> RocksDbTableStore.builder(dir).build(), "word_counts").opaque(),
   *     new Count(), new Fields("count"));
   * }</pre>
   *
   * @param storeName the store's name in the worker
   * @param store makes the store, in the worker
   * @param table the table's path
   * @return the builder of the state's options and factories
   * @throws IllegalArgumentException if {@code storeName} or {@code table} is blank
   */
  public static StormStateBuilder stormState(String storeName, SerializableSupplier<? extends TableStore> store,
      String table) {
    return new StormStateBuilder(storeName, store, table);
  }

  /**
   * A Trident {@code StateFactory} of Epochal {@code OpaqueMap}s over the Epochal backing maps {@code backing}
   * supplies (called once per state partition, in the worker).
   *
   * @param backing makes the Epochal backing map of opaque cells of a state partition; must capture only serializable
   *     values
   * @return the serializable Trident state factory
   */
  public static org.apache.storm.trident.state.StateFactory stormOpaqueState(
      SerializableSupplier<? extends IBackingMap<List<Object>, OpaqueValue<Object>>> backing) {
    return StormStateFactory.over(StormStateFactory.Kind.OPAQUE, backing, "epochal-opaque");
  }

  /**
   * As {@link #stormOpaqueState}, with Epochal {@code TransactionalMap}s.
   *
   * @param backing makes the Epochal backing map of transactional cells of a state partition; must capture only
   *     serializable values
   * @return the serializable Trident state factory
   */
  public static org.apache.storm.trident.state.StateFactory stormTransactionalState(
      SerializableSupplier<? extends IBackingMap<List<Object>, TransactionalValue<Object>>> backing) {
    return StormStateFactory.over(StormStateFactory.Kind.TRANSACTIONAL, backing, "epochal-transactional");
  }

  /**
   * Kryo values, for {@link StormStateBuilder#valueCodec}: {@code EpochalTrident.kryoValues()}.
   *
   * @return a serializable supplier of the Kryo value codec (for values that are not JSON values)
   */
  public static SerializableSupplier<Codec<Object>> kryoValues() {
    return KryoValues.INSTANCE;
  }
}
