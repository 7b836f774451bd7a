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
   */
  <V> MapStateRef<K, V> persistentAggregate(String name, StateFactory<? extends MapState<K, V>> factory,
      CombinerAggregator<? super T, V> aggregator);

  /** Folds the records of each key, in emission order, into a map state. */
  <V> MapStateRef<K, V> persistentAggregate(String name, StateFactory<? extends MapState<K, V>> factory,
      ReducerAggregator<? super T, V> aggregator);

  /** Writes each partition's records (all keys of that partition) into a state. */
  <S extends State> StateRef<S> partitionPersist(String name, StateFactory<S> factory, StateUpdater<S, T> updater);

  /** Back to an ungrouped stream of the same records. */
  Stream<T> toStream();

  /**
   * Runs a keyed processor over a state: per partition with records, {@code fn} sees the records grouped by key (the
   * keys of this {@code groupBy}, computed once per record) between the state's {@code begin(epoch)} and
   * {@code end()}. The emitted records form a stream grouped by the same keys: each output stays attached to the key
   * (and partition) it was emitted for, in the same batch.
   *
   * @param name the state's name, unique among the pipeline's states
   * @since 0.3.0
   */
  <S extends State, R> GroupedStream<K, R> process(String name, StateFactory<S> factory,
      KeyedProcessFunction<S, K, T, R> fn);
}
