package io.epochal.trident;

import io.epochal.pipeline.CombinerAggregator;
import io.epochal.pipeline.GroupedStream;
import io.epochal.pipeline.MapStateRef;
import io.epochal.pipeline.QueryFunction;
import io.epochal.pipeline.ReducerAggregator;
import io.epochal.pipeline.StateRef;
import io.epochal.pipeline.StateUpdater;
import io.epochal.pipeline.Stream;
import io.epochal.state.MapState;
import io.epochal.state.ReadOnlyMapState;
import io.epochal.state.State;
import io.epochal.state.StateFactory;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.tuple.Fields;

/**
 * A stream of Trident tuples whose fields are known while the pipeline is built (Trident's {@code Stream} knows its
 * output fields): every {@code EpochalTrident} adapter applied to it ({@code each}, {@code filter}, {@code key},
 * {@code combiner}, {@code reducer}, {@code updater}, {@code stateQuery}) has its {@code Fields} checked at once,
 * refused with {@link IllegalArgumentException} as Trident refuses them. The fields flow on through
 * {@code each} (input fields + function fields), {@code filter}s and {@code groupBy}/{@code toStream}; other functions
 * make tuples of unknown fields, and the streams they return are plain (checked on the records). Immutable; as
 * thread-safe as the pipeline builder it belongs to (not at all).
 */
final class FieldsStream implements Stream<TridentTuple> {
  private final Stream<TridentTuple> delegate;
  private final Fields fields;

  FieldsStream(Stream<TridentTuple> delegate, Fields fields) {
    this.delegate = Objects.requireNonNull(delegate, "stream");
    this.fields = Objects.requireNonNull(fields, "fields");
  }

  Fields fields() {
    return fields;
  }

  static Optional<Fields> fieldsOf(Stream<TridentTuple> stream) {
    return stream instanceof FieldsStream f ? Optional.of(f.fields) : Optional.empty();
  }

  /** Checks {@code operation} against {@code available} if it is an adapter of this package. */
  static void check(Object operation, Fields available) {
    if (operation instanceof TridentFields.Selecting selecting) {
      selecting.checkInput(available);
    }
  }

  @Override
  public <R> Stream<R> map(Function<? super TridentTuple, ? extends R> fn) {
    return delegate.map(fn);
  }

  @Override
  @SuppressWarnings("unchecked")
  public <R> Stream<R> flatMap(Function<? super TridentTuple, ? extends Iterable<? extends R>> fn) {
    if (fn instanceof Operations.Each each) {
      Fields out = each.outputOn(fields);
      Object stream = new FieldsStream((Stream<TridentTuple>) (Stream<?>) delegate.flatMap(fn), out);
      return (Stream<R>) stream;
    }
    return delegate.flatMap(fn);
  }

  @Override
  public Stream<TridentTuple> filter(Predicate<? super TridentTuple> predicate) {
    check(predicate, fields);
    return new FieldsStream(delegate.filter(predicate), fields);
  }

  @Override
  public <K> GroupedStream<K, TridentTuple> groupBy(Function<? super TridentTuple, ? extends K> keyFn) {
    check(keyFn, fields);
    return new Grouped<>(delegate.groupBy(keyFn), fields);
  }

  @Override
  public <S extends State> StateRef<S> partitionPersist(String name, StateFactory<S> factory,
      StateUpdater<S, TridentTuple> updater) {
    check(updater, fields);
    return delegate.partitionPersist(name, factory, updater);
  }

  @Override
  public <S extends State, K, R> Stream<R> stateQuery(StateRef<S> state,
      Function<? super TridentTuple, ? extends K> keyFn, QueryFunction<S, TridentTuple, R> query) {
    check(keyFn, fields);
    check(query, fields);
    return delegate.stateQuery(state, keyFn, query);
  }

  @Override
  public <K, V, R> Stream<R> lookup(StateRef<? extends ReadOnlyMapState<K, V>> state,
      Function<? super TridentTuple, ? extends K> keyFn,
      BiFunction<? super TridentTuple, Optional<V>, ? extends R> combiner) {
    check(keyFn, fields);
    return delegate.lookup(state, keyFn, combiner);
  }

  @Override
  public <V> MapStateRef<String, V> aggregate(String name, StateFactory<? extends MapState<String, V>> factory,
      CombinerAggregator<? super TridentTuple, V> aggregator) {
    check(aggregator, fields);
    return delegate.aggregate(name, factory, aggregator);
  }

  /** The union of the two streams; it keeps these fields when {@code other} has the same ones. */
  @Override
  public Stream<TridentTuple> merge(Stream<? extends TridentTuple> other) {
    Optional<Fields> theirs = other instanceof FieldsStream f ? Optional.of(f.fields) : Optional.empty();
    Stream<? extends TridentTuple> plain = other instanceof FieldsStream f ? f.delegate : other;
    Stream<TridentTuple> merged = delegate.merge(plain);
    return theirs.isPresent() && theirs.get().toList().equals(fields.toList()) ? new FieldsStream(merged, fields)
        : merged;
  }

  @Override
  public void to(String name, io.epochal.sink.Sink<? super TridentTuple> sink) {
    delegate.to(name, sink);
  }

  @Override
  public String toString() {
    return delegate + " with fields " + fields;
  }

  /** A grouped stream of known fields. */
  private static final class Grouped<K> implements GroupedStream<K, TridentTuple> {
    private final GroupedStream<K, TridentTuple> delegate;
    private final Fields fields;

    Grouped(GroupedStream<K, TridentTuple> delegate, Fields fields) {
      this.delegate = delegate;
      this.fields = fields;
    }

    @Override
    public <V> MapStateRef<K, V> persistentAggregate(String name, StateFactory<? extends MapState<K, V>> factory,
        CombinerAggregator<? super TridentTuple, V> aggregator) {
      check(aggregator, fields);
      return delegate.persistentAggregate(name, factory, aggregator);
    }

    @Override
    public <V> MapStateRef<K, V> persistentAggregate(String name, StateFactory<? extends MapState<K, V>> factory,
        ReducerAggregator<? super TridentTuple, V> aggregator) {
      check(aggregator, fields);
      return delegate.persistentAggregate(name, factory, aggregator);
    }

    @Override
    public <S extends State> StateRef<S> partitionPersist(String name, StateFactory<S> factory,
        StateUpdater<S, TridentTuple> updater) {
      check(updater, fields);
      return delegate.partitionPersist(name, factory, updater);
    }

    @Override
    public Stream<TridentTuple> toStream() {
      return new FieldsStream(delegate.toStream(), fields);
    }

    @Override
    public <S extends State, R> GroupedStream<K, R> process(String name, StateFactory<S> factory,
        io.epochal.pipeline.KeyedProcessFunction<S, K, TridentTuple, R> fn) {
      return delegate.process(name, factory, fn); // outputs are the function's own values: fields unknown
    }

    @Override
    public String toString() {
      return delegate + " with fields " + fields;
    }
  }
}
