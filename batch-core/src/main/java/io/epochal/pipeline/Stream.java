package io.epochal.pipeline;

import io.epochal.api.Stable;
import io.epochal.state.MapState;
import io.epochal.state.ReadOnlyMapState;
import io.epochal.state.State;
import io.epochal.state.StateFactory;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A typed stream of records inside a pipeline. Operations are declared once and run for every batch; a declared
 * stream is immutable, each operation returns a new stream.
 *
 * <p>Null policy: functions must not return null records or keys; a null is a batch-time
 * {@link io.epochal.errors.InvalidRecordException} that stops the pipeline (records are never dropped silently).
 *
 * @param <T> the record type
 *
 * @since 0.1.0
 */
@Stable
public interface Stream<T> {

  /**
   * One output record per input record.
   *
   * @param fn makes the output record of an input record; must not return null
   * @param <R> the output record type
   * @return the stream of the output records, in input order
   */
  <R> Stream<R> map(Function<? super T, ? extends R> fn);

  /**
   * Zero or more output records per input record, in iteration order.
   *
   * @param fn gives the output records of an input record; must not return null nor yield a null record
   * @param <R> the output record type
   * @return the stream of the output records, input by input
   */
  <R> Stream<R> flatMap(Function<? super T, ? extends Iterable<? extends R>> fn);

  /**
   * Keeps the records matching {@code predicate}.
   *
   * @param predicate true for the records to keep
   * @return the stream of the kept records, in input order
   */
  Stream<T> filter(Predicate<? super T> predicate);

  /**
   * Groups records by key; records of one key go to one partition, chosen by the key's {@code farm_hash}. Keys must
   * have value equality and a stable hash: {@link String}, integral numbers, {@link Boolean}, {@link Double},
   * {@link Bytes} (for bytes) or a {@link java.util.List} of those. A null key, an array such as {@code byte[]} (two
   * equal arrays would be two keys), another unsupported type, or a string with an unpaired surrogate (no UTF-8 form)
   * fails the batch at its first record with {@link io.epochal.errors.InvalidRecordException}, not retried.
   *
   * @param keyFn gives the key of a record; runs once per record
   * @param <K> the key type
   * @return the grouped stream, on which keyed states and processors are declared
   */
  <K> GroupedStream<K, T> groupBy(Function<? super T, ? extends K> keyFn);

  /**
   * Writes the records into a state: each partition's records of a batch go to {@code updater}, which runs between
   * the state's {@code begin(epoch)} and {@code end()}. Records are spread over partitions in emission order
   * (round-robin by position); use {@link GroupedStream#partitionPersist} to partition by key.
   *
   * @param name the state's name, not blank, written by no other node of the pipeline (also its table's name)
   * @param factory makes the state of each partition
   * @param updater writes a partition's records into its state
   * @param <S> the state type
   * @return a reference to the state, for {@link #stateQuery}
   * @throws IllegalArgumentException if {@code name} is blank or the state already has a writer
   */
  <S extends State> StateRef<S> partitionPersist(String name, StateFactory<S> factory, StateUpdater<S, T> updater);

  /**
   * Reads a state: each record goes to the partition of {@code keyFn(record)}, and {@code query} returns one result
   * per record.
   *
   * @param state the state to read, declared earlier in this pipeline
   * @param keyFn gives the key of a record, which chooses the state partition it is read from
   * @param query reads the state for a partition's records
   * @param <S> the state type
   * @param <K> the key type
   * @param <R> the result type
   * @return the stream of the results, one per record
   * @throws IllegalArgumentException if {@code state} is not declared in this pipeline
   */
  <S extends State, K, R> Stream<R> stateQuery(StateRef<S> state, Function<? super T, ? extends K> keyFn,
      QueryFunction<S, T, R> query);

  /**
   * Looks up each record's key in a map state and combines the record with the value found (a lookup join).
   * Runs after every writer declared before it, so it sees the values this batch wrote to the state.
   *
   * @param state the map state to read, declared earlier in this pipeline
   * @param keyFn gives the key to look up for a record
   * @param combiner makes the output record of a record and the key's value (empty if the key has none)
   * @param <K> the key type
   * @param <V> the value type
   * @param <R> the output record type
   * @return the stream of the combined records, one per record
   * @throws IllegalArgumentException if {@code state} is not declared in this pipeline
   */
  <K, V, R> Stream<R> lookup(StateRef<? extends ReadOnlyMapState<K, V>> state, Function<? super T, ? extends K> keyFn,
      BiFunction<? super T, Optional<V>, ? extends R> combiner);

  /**
   * Aggregates all records of the stream into one global value stored under the key {@code "$GLOBAL"} of a map state
   * (a non-grouped {@code persistentAggregate}: every record goes to that key's partition).
   *
   * @param name the state's name, not blank, written by no other node of the pipeline
   * @param factory makes the map state
   * @param aggregator aggregates the records into the global value
   * @param <V> the value type
   * @return a reference to the map state, with its new-values stream
   * @throws IllegalArgumentException if {@code name} is blank or the state already has a writer
   */
  <V> MapStateRef<String, V> aggregate(String name, StateFactory<? extends MapState<String, V>> factory,
      CombinerAggregator<? super T, V> aggregator);

  /**
   * This stream's records of every batch followed by {@code other}'s: the union of two streams of one pipeline, for
   * example those of two sources ({@code shows.merge(clicks)}). A grouped input is taken partition by partition.
   *
   * @param other the stream whose records follow this stream's in each batch
   * @return the union of the two streams
   * @throws IllegalArgumentException if {@code other} belongs to another pipeline
   * @since 0.4.0
   */
  Stream<T> merge(Stream<? extends T> other);

  /**
   * Sends the records of every batch to {@code sink}, an output of the pipeline: staged in the batch's epoch during its
   * commit phase, visible only once the epoch committed ({@link io.epochal.sink.Sink#afterCommit}); a failed
   * attempt's records are dropped ({@link io.epochal.sink.Sink#abort}) and staged again by the replay.
   *
   * @param name the sink's name, unique among the pipeline's sinks
   * @param sink the output the records are staged in and published by
   * @throws IllegalArgumentException if {@code name} is blank or already used by another sink
   * @since 0.3.0
   */
  void to(String name, io.epochal.sink.Sink<? super T> sink);
}
