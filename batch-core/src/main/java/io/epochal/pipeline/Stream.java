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

  /** One output record per input record. */
  <R> Stream<R> map(Function<? super T, ? extends R> fn);

  /** Zero or more output records per input record, in iteration order. */
  <R> Stream<R> flatMap(Function<? super T, ? extends Iterable<? extends R>> fn);

  /** Keeps the records matching {@code predicate}. */
  Stream<T> filter(Predicate<? super T> predicate);

  /**
   * Groups records by key; records of one key go to one partition, chosen by the key's {@code farm_hash}. Keys must
   * have value equality and a stable hash: {@link String}, integral numbers, {@link Boolean}, {@link Double},
   * {@link Bytes} (for bytes) or a {@link java.util.List} of those. A null key, an array such as {@code byte[]} (two
   * equal arrays would be two keys), another unsupported type, or a string with an unpaired surrogate (no UTF-8 form)
   * fails the batch at its first record with {@link io.epochal.errors.InvalidRecordException}, not retried.
   */
  <K> GroupedStream<K, T> groupBy(Function<? super T, ? extends K> keyFn);

  /**
   * Writes the records into a state: each partition's records of a batch go to {@code updater}, which runs between
   * the state's {@code begin(epoch)} and {@code end()}. Records are spread over partitions in emission order
   * (round-robin by position); use {@link GroupedStream#partitionPersist} to partition by key.
   */
  <S extends State> StateRef<S> partitionPersist(String name, StateFactory<S> factory, StateUpdater<S, T> updater);

  /**
   * Reads a state: each record goes to the partition of {@code keyFn(record)}, and {@code query} returns one result
   * per record.
   */
  <S extends State, K, R> Stream<R> stateQuery(StateRef<S> state, Function<? super T, ? extends K> keyFn,
      QueryFunction<S, T, R> query);

  /**
   * Looks up each record's key in a map state and combines the record with the value found (a lookup join).
   * Runs after every writer declared before it, so it sees the values this batch wrote to the state.
   */
  <K, V, R> Stream<R> lookup(StateRef<? extends ReadOnlyMapState<K, V>> state, Function<? super T, ? extends K> keyFn,
      BiFunction<? super T, Optional<V>, ? extends R> combiner);

  /**
   * Aggregates all records of the stream into one global value stored under {@code globalKey} of a map state (a
   * non-grouped {@code persistentAggregate}).
   */
  <V> MapStateRef<String, V> aggregate(String name, StateFactory<? extends MapState<String, V>> factory,
      CombinerAggregator<? super T, V> aggregator);

  /**
   * This stream's records of every batch followed by {@code other}'s: the union of two streams of one pipeline, for
   * example those of two sources ({@code shows.merge(clicks)}). A grouped input is taken partition by partition.
   *
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
   * @throws IllegalArgumentException if {@code name} is blank or already used by another sink
   * @since 0.3.0
   */
  void to(String name, io.epochal.sink.Sink<? super T> sink);
}
