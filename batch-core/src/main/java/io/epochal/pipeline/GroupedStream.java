package io.epochal.pipeline;

import io.epochal.api.Stable;
import io.epochal.state.MapState;
import io.epochal.state.State;
import io.epochal.state.StateFactory;

/**
 * A stream grouped by key: every record of one key is handled by the partition whose hash range holds
 * {@code farm_hash(key)} ({@link Partitioner}).
 *
 * @param <K> the key type
 * @param <T> the record type
 *
 * @since 0.1.0
 */
@Stable
public interface GroupedStream<K, T> {

  /**
   * Aggregates the records of each key into a map state. The batch is pre-aggregated per key and partition first,
   * so the state sees one {@code multiUpdate} per partition per batch, with one updater per key.
   *
   * @param name the state's name, not blank, written by no other node of the pipeline (also its table's name)
   * @param factory makes the map state of each partition
   * @param aggregator aggregates a key's records and combines the result with the key's stored value
   * @param <V> the value type
   * @return a reference to the map state, with its new-values stream
   * @throws IllegalArgumentException if {@code name} is blank or the state already has a writer
   */
  <V> MapStateRef<K, V> persistentAggregate(String name, StateFactory<? extends MapState<K, V>> factory,
      CombinerAggregator<? super T, V> aggregator);

  /**
   * Folds the records of each key, in emission order, into a map state.
   *
   * @param name the state's name, not blank, written by no other node of the pipeline (also its table's name)
   * @param factory makes the map state of each partition
   * @param aggregator folds a key's records into its stored value (or its initial value)
   * @param <V> the value type
   * @return a reference to the map state, with its new-values stream
   * @throws IllegalArgumentException if {@code name} is blank or the state already has a writer
   */
  <V> MapStateRef<K, V> persistentAggregate(String name, StateFactory<? extends MapState<K, V>> factory,
      ReducerAggregator<? super T, V> aggregator);

  /**
   * Writes each partition's records (all keys of that partition) into a state.
   *
   * @param name the state's name, not blank, written by no other node of the pipeline (also its table's name)
   * @param factory makes the state of each partition
   * @param updater writes a partition's records into its state
   * @param <S> the state type
   * @return a reference to the state, for {@link Stream#stateQuery}
   * @throws IllegalArgumentException if {@code name} is blank or the state already has a writer
   */
  <S extends State> StateRef<S> partitionPersist(String name, StateFactory<S> factory, StateUpdater<S, T> updater);

  /**
   * Back to an ungrouped stream of the same records.
   *
   * @return a stream of this stream's records, taken partition by partition
   */
  Stream<T> toStream();

  /**
   * Runs a keyed processor over a state: per partition with records, {@code fn} sees the records grouped by key (the
   * keys of this {@code groupBy}, computed once per record) between the state's {@code begin(epoch)} and
   * {@code end()}. The emitted records form a stream grouped by the same keys: each output stays attached to the key
   * (and partition) it was emitted for, in the same batch.
   *
   * @param name the state's name, not blank, written by no other node of the pipeline
   * @param factory makes the state of each partition
   * @param fn processes the records of each key
   * @param <S> the state type
   * @param <R> the output record type
   * @return the stream of the emitted records, grouped by the key each was emitted for
   * @throws IllegalArgumentException if {@code name} is blank or the state already has a writer
   * @since 0.3.0
   */
  <S extends State, R> GroupedStream<K, R> process(String name, StateFactory<S> factory,
      KeyedProcessFunction<S, K, T, R> fn);
}
