package io.epochal.pipeline.internal;

import io.epochal.pipeline.CombinerAggregator;
import io.epochal.pipeline.GroupedStream;
import io.epochal.pipeline.KeyValue;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;

/** The typed face of a graph node. */
final class StreamView<T> implements Stream<T> {
  /** The key of the global aggregate written by {@link #aggregate}. */
  static final String GLOBAL_KEY = "$GLOBAL";

  final Graph graph;
  final Node node;

  StreamView(Graph graph, Node node) {
    this.graph = graph;
    this.node = node;
  }

  @Override
  @SuppressWarnings("unchecked")
  public <R> Stream<R> map(Function<? super T, ? extends R> fn) {
    return new StreamView<>(graph, graph.add(new Node.MapOp(graph.nextId(), node, (Function<Object, Object>) fn)));
  }

  @Override
  @SuppressWarnings("unchecked")
  public <R> Stream<R> flatMap(Function<? super T, ? extends Iterable<? extends R>> fn) {
    return new StreamView<>(graph,
        graph.add(new Node.FlatMapOp(graph.nextId(), node, (Function<Object, Iterable<?>>) (Function<?, ?>) fn)));
  }

  @Override
  @SuppressWarnings("unchecked")
  public Stream<T> filter(Predicate<? super T> predicate) {
    return new StreamView<>(graph, graph.add(new Node.FilterOp(graph.nextId(), node, (Predicate<Object>) predicate)));
  }

  @Override
  @SuppressWarnings("unchecked")
  public <K> GroupedStream<K, T> groupBy(Function<? super T, ? extends K> keyFn) {
    return new Grouped<>(graph,
        graph.add(new Node.GroupBy(graph.nextId(), node, (Function<Object, Object>) keyFn, graph.partitions)));
  }

  @Override
  public <S extends State> StateRef<S> partitionPersist(String name, StateFactory<S> factory,
      StateUpdater<S, T> updater) {
    return persist(graph, node, name, factory, updater);
  }

  @Override
  @SuppressWarnings("unchecked")
  public <S extends State, K, R> Stream<R> stateQuery(StateRef<S> state, Function<? super T, ? extends K> keyFn,
      QueryFunction<S, T, R> query) {
    Objects.requireNonNull(state, "state");
    Node.StateNode target = graph.writer(state.name());
    return new StreamView<>(graph, graph.add(new Node.Query(graph.nextId(), node, target,
        (Function<Object, Object>) keyFn, query)));
  }

  @Override
  public <K, V, R> Stream<R> lookup(StateRef<? extends ReadOnlyMapState<K, V>> state,
      Function<? super T, ? extends K> keyFn, BiFunction<? super T, Optional<V>, ? extends R> combiner) {
    Objects.requireNonNull(keyFn, "keyFn");
    Objects.requireNonNull(combiner, "combiner");
    QueryFunction<ReadOnlyMapState<K, V>, T, R> query = (map, batch, records) -> {
      List<K> keys = new ArrayList<>(records.size());
      for (T r : records) {
        keys.add(keyFn.apply(r));
      }
      Map<K, V> found = map.multiGet(keys);
      List<R> out = new ArrayList<>(records.size());
      for (int i = 0; i < records.size(); i++) {
        out.add(combiner.apply(records.get(i), Optional.ofNullable(found.get(keys.get(i)))));
      }
      return out;
    };
    @SuppressWarnings("unchecked")
    StateRef<ReadOnlyMapState<K, V>> ref = (StateRef<ReadOnlyMapState<K, V>>) state;
    return stateQuery(ref, keyFn, query);
  }

  @Override
  public <V> MapStateRef<String, V> aggregate(String name, StateFactory<? extends MapState<String, V>> factory,
      CombinerAggregator<? super T, V> aggregator) {
    return groupBy(r -> GLOBAL_KEY).persistentAggregate(name, factory, aggregator);
  }

  @Override
  public Stream<T> merge(Stream<? extends T> other) {
    Objects.requireNonNull(other, "other");
    // a decorating Stream (e.g. Trident's fields-checking one) is reached through a node of its own graph
    Stream<? extends T> plain = other instanceof StreamView<?> ? other : other.map(Function.identity());
    if (!(plain instanceof StreamView<?> view) || view.graph != graph) {
      throw new IllegalArgumentException("merge: the other stream belongs to another pipeline");
    }
    return new StreamView<>(graph, graph.add(new Node.Merge(graph.nextId(), node, view.node)));
  }

  @Override
  public void to(String name, io.epochal.sink.Sink<? super T> sink) {
    Objects.requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("sink name must not be blank");
    }
    graph.add(new Node.SinkNode(graph.nextId(), node, name, sink));
  }

  static <S extends State, T> StateRef<S> persist(Graph graph, Node parent, String name, StateFactory<S> factory,
      StateUpdater<S, T> updater) {
    Node.Persist persist = graph.add(new Node.Persist(graph.nextId(), parent, requireName(name),
        Objects.requireNonNull(factory, "factory"), updater));
    return new Ref<>(persist.stateName);
  }

  static String requireName(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("state name must not be blank");
    }
    return name;
  }

  /** A grouped stream view. */
  static final class Grouped<K, T> implements GroupedStream<K, T> {
    private final Graph graph;
    private final Node node;

    Grouped(Graph graph, Node node) {
      this.graph = graph;
      this.node = node;
    }

    @Override
    public <V> MapStateRef<K, V> persistentAggregate(String name, StateFactory<? extends MapState<K, V>> factory,
        CombinerAggregator<? super T, V> aggregator) {
      return aggregate(name, factory, Objects.requireNonNull(aggregator, "aggregator"));
    }

    @Override
    public <V> MapStateRef<K, V> persistentAggregate(String name, StateFactory<? extends MapState<K, V>> factory,
        ReducerAggregator<? super T, V> aggregator) {
      return aggregate(name, factory, Objects.requireNonNull(aggregator, "aggregator"));
    }

    private <V> MapStateRef<K, V> aggregate(String name, StateFactory<? extends MapState<K, V>> factory,
        Object aggregator) {
      AggregateNode agg = graph.add(new AggregateNode(graph.nextId(), node, requireName(name),
          Objects.requireNonNull(factory, "factory"), aggregator));
      return new MapRef<>(graph, agg);
    }

    @Override
    public <S extends State> StateRef<S> partitionPersist(String name, StateFactory<S> factory,
        StateUpdater<S, T> updater) {
      return persist(graph, node, name, factory, updater);
    }

    @Override
    public <S extends State, R> GroupedStream<K, R> process(String name, StateFactory<S> factory,
        io.epochal.pipeline.KeyedProcessFunction<S, K, T, R> fn) {
      Node.KeyedProcess process = graph.add(new Node.KeyedProcess(graph.nextId(), node, requireName(name),
          Objects.requireNonNull(factory, "factory"), fn));
      return new Grouped<>(graph, process);
    }

    @Override
    public Stream<T> toStream() {
      return new StreamView<>(graph, graph.add(new Node.Ungroup(graph.nextId(), node)));
    }
  }

  /** A reference to a declared state. */
  record Ref<S extends State>(String name) implements StateRef<S> {
  }

  /** A reference to an aggregated map state, with its new-values stream. */
  static final class MapRef<K, V> implements MapStateRef<K, V> {
    private final Graph graph;
    private final AggregateNode node;

    MapRef(Graph graph, AggregateNode node) {
      this.graph = graph;
      this.node = node;
    }

    @Override
    public String name() {
      return node.stateName;
    }

    @Override
    public Stream<KeyValue<K, V>> newValuesStream() {
      return new StreamView<>(graph, node);
    }
  }
}
