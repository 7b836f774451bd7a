package io.epochal.trident;

import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.pipeline.QueryFunction;
import io.epochal.pipeline.StateUpdater;
import io.epochal.spout.BatchAttempt;
import io.epochal.state.MapState;
import io.epochal.state.State;
import io.epochal.state.StateContext;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.storm.trident.operation.CombinerAggregator;
import org.apache.storm.trident.operation.Filter;
import org.apache.storm.trident.operation.Operation;
import org.apache.storm.trident.operation.ReducerAggregator;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.tuple.Fields;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adapters of Trident operations to the Epochal pipeline API. Trident operations ({@code Function}, {@code Filter},
 * {@code StateUpdater}, {@code QueryFunction}) are not thread-safe and expect {@code prepare} before use, as Storm
 * gives each task its own deserialized copy: the adapters make one copy per thread (stateless operations) or per state
 * partition (state operations), prepared with a context naming that partition. {@code cleanup} is not called (the
 * Epochal pipeline API has no operation lifecycle). Aggregators are used as given: Trident's pre-aggregation already
 * requires them to be pure.
 */
final class Operations {
  private static final Logger LOG = LoggerFactory.getLogger(Operations.class);

  private Operations() {
  }

  // ------------------------------------------------------------------ aggregators

  static final class Combiner<V> implements io.epochal.pipeline.CombinerAggregator<TridentTuple, V>,
      TridentFields.Selecting {
    private final TridentFields.Selector input;
    private final CombinerAggregator<V> agg;

    /** Over the tuples projected to {@code input}, which must not be null. */
    static <V> Combiner<V> over(Fields input, CombinerAggregator<V> agg) {
      return new Combiner<>(Objects.requireNonNull(input, "inputFields"), agg);
    }

    Combiner(Fields input, CombinerAggregator<V> agg) {
      this.agg = Objects.requireNonNull(agg, "aggregator");
      this.input = new TridentFields.Selector(input, "EpochalTrident.combiner(" + agg.getClass().getSimpleName() + ")");
    }

    @Override
    public void checkInput(Fields available) {
      input.checkInput(available);
    }

    @Override
    public V init(TridentTuple record) {
      return agg.init(input.project(record));
    }

    @Override
    public V combine(V left, V right) {
      return agg.combine(left, right);
    }

    @Override
    public V zero() {
      return agg.zero();
    }

    @Override
    public String toString() {
      return "Trident " + agg.getClass().getName();
    }
  }

  static final class Reducer<V> implements io.epochal.pipeline.ReducerAggregator<TridentTuple, V>,
      TridentFields.Selecting {
    private final TridentFields.Selector input;
    private final ReducerAggregator<V> agg;

    /** Over the tuples projected to {@code input}, which must not be null. */
    static <V> Reducer<V> over(Fields input, ReducerAggregator<V> agg) {
      return new Reducer<>(Objects.requireNonNull(input, "inputFields"), agg);
    }

    Reducer(Fields input, ReducerAggregator<V> agg) {
      this.agg = Objects.requireNonNull(agg, "aggregator");
      this.input = new TridentFields.Selector(input, "EpochalTrident.reducer(" + agg.getClass().getSimpleName() + ")");
    }

    @Override
    public void checkInput(Fields available) {
      input.checkInput(available);
    }

    @Override
    public V init() {
      return agg.init();
    }

    @Override
    public V reduce(V current, TridentTuple record) {
      return agg.reduce(current, input.project(record));
    }

    @Override
    public String toString() {
      return "Trident " + agg.getClass().getName();
    }
  }

  /** Trident's group key: the values of the grouping fields. */
  static final class Key implements Function<TridentTuple, List<Object>>, TridentFields.Selecting {
    private final TridentFields.Selector fields;

    Key(Fields groupFields) {
      this.fields = new TridentFields.Selector(Objects.requireNonNull(groupFields, "groupFields"),
          "EpochalTrident.key");
    }

    @Override
    public void checkInput(Fields available) {
      fields.checkInput(available);
    }

    @Override
    public List<Object> apply(TridentTuple tuple) {
      return new ArrayList<>(fields.select(tuple));
    }

    @Override
    public String toString() {
      return "Trident key " + fields.fields();
    }
  }

  // ------------------------------------------------------------------ stateless operations

  /**
   * One prepared copy of an operation per thread, prepared on first use with a context whose tuple factory matches the
   * tuples the operation gets (the projection to {@code input}, or the record's fields when {@code input} is null).
   */
  private static final class PerThread<O extends Operation> {
    private final O prototype;
    private final String name;
    private final Fields input;
    private final ThreadLocal<O> copies = new ThreadLocal<>();

    PerThread(O prototype, String name, Fields input) {
      this.prototype = Objects.requireNonNull(prototype, "operation");
      StormContexts.copy(prototype); // fails now, not at the first batch, if Storm could not copy it either
      this.name = name;
      this.input = input;
    }

    O get(TridentTuple record) {
      O copy = copies.get();
      if (copy == null) {
        copy = StormContexts.copy(prototype);
        copy.prepare(new HashMap<>(), StormContexts.operationContext(name, Map.of(),
            input != null ? input : record.getFields(), 0, 1));
        copies.set(copy);
      }
      return copy;
    }
  }

  /** Trident's {@code each(inputFields, function, functionFields)}. */
  static final class Each implements Function<TridentTuple, Iterable<TridentTuple>>, TridentFields.Selecting {
    private final PerThread<org.apache.storm.trident.operation.Function> copies;
    private final TridentFields.Selector input;
    private final TridentFields.Appender output;
    private final String source;

    Each(Fields input, org.apache.storm.trident.operation.Function function, Fields output) {
      Objects.requireNonNull(output, "output fields");
      String what = "EpochalTrident.each(" + function.getClass().getSimpleName() + ")";
      this.copies = new PerThread<>(function, "each(" + function.getClass().getSimpleName() + ")", input);
      this.input = new TridentFields.Selector(input, what);
      this.output = new TridentFields.Appender(output, what);
      this.source = "Trident function " + function.getClass().getName();
    }

    @Override
    public void checkInput(Fields available) {
      input.checkInput(available);
    }

    /** At build time: the fields of the output tuples on a stream of {@code available} fields. */
    Fields outputOn(Fields available) {
      checkInput(available);
      return output.outputOn(available);
    }

    @Override
    public Iterable<TridentTuple> apply(TridentTuple record) {
      TridentTuple projected = input.project(record);
      Collectors.Append out = new Collectors.Append(source, output, record);
      copies.get(record).execute(projected, out);
      return out.tuples;
    }

    @Override
    public String toString() {
      return source;
    }
  }

  static Each each(Fields input, org.apache.storm.trident.operation.Function function, Fields output) {
    return new Each(input, Objects.requireNonNull(function, "function"),
        Objects.requireNonNull(output, "functionFields"));
  }

  /** Trident's {@code each(inputFields, filter)}. */
  static final class FilterOp implements Predicate<TridentTuple>, TridentFields.Selecting {
    private final PerThread<Filter> copies;
    private final TridentFields.Selector input;
    private final String source;

    FilterOp(Fields input, Filter filter) {
      this.copies = new PerThread<>(filter, "filter(" + filter.getClass().getSimpleName() + ")", input);
      this.input = new TridentFields.Selector(input, "EpochalTrident.filter(" + filter.getClass().getSimpleName()
          + ")");
      this.source = "Trident filter " + filter.getClass().getName();
    }

    @Override
    public void checkInput(Fields available) {
      input.checkInput(available);
    }

    @Override
    public boolean test(TridentTuple record) {
      TridentTuple projected = input.project(record);
      return copies.get(record).isKeep(projected);
    }

    @Override
    public String toString() {
      return source;
    }
  }

  static Predicate<TridentTuple> filter(Fields input, Filter filter) {
    return new FilterOp(input, Objects.requireNonNull(filter, "filter"));
  }

  // ------------------------------------------------------------------ state operations

  /** The Trident view of an Epochal state partition inside batch {@code txid}. */
  @SuppressWarnings("unchecked")
  static org.apache.storm.trident.state.State tridentView(State state, long txid, String what) {
    if (state instanceof TridentStateAdapter adapter) {
      return adapter.tridentState();
    }
    if (state instanceof MapState<?, ?> map) {
      return EpochalMapView.during((MapState<List<Object>, Object>) map, txid);
    }
    throw new EpochalException(what + " needs a Trident state (EpochalTrident.tridentState) or an Epochal "
        + "MapState with List<Object> keys, got " + state.getClass().getName(), null, false, ErrorContext.NONE);
  }

  /** One prepared copy of a state operation per state partition (identified by the Epochal state instance). */
  private static final class PerPartition<O extends Operation> {
    private final O prototype;
    private final String name;
    private final Fields input;
    private final Map<State, O> copies = Collections.synchronizedMap(new IdentityHashMap<>());

    PerPartition(O prototype, String name, Fields input) {
      this.prototype = Objects.requireNonNull(prototype, "operation");
      StormContexts.copy(prototype); // fails now, not at the first batch, if Storm could not copy it either
      this.name = name;
      this.input = input;
    }

    O get(State state, List<TridentTuple> records) {
      return copies.computeIfAbsent(state, s -> {
        StateContext ctx = s instanceof TridentStateAdapter a ? a.context() : null;
        Fields fields = input != null ? input : records.isEmpty() ? new Fields() : records.get(0).getFields();
        O copy = StormContexts.copy(prototype);
        copy.prepare(new HashMap<>(), StormContexts.operationContext(ctx == null ? name : ctx.stateName(), Map.of(),
            fields, ctx == null ? 0 : ctx.partitionIndex(), ctx == null ? 1 : ctx.numPartitions()));
        return copy;
      });
    }
  }

  /** A Trident {@code StateUpdater} as an Epochal one. */
  static final class Updater<S extends State> implements StateUpdater<S, TridentTuple>, TridentFields.Selecting {
    private final PerPartition<org.apache.storm.trident.state.StateUpdater<org.apache.storm.trident.state.State>>
        copies;
    private final TridentFields.Selector input;
    private final String source;

    @SuppressWarnings("unchecked")
    Updater(Fields input, org.apache.storm.trident.state.StateUpdater<?> updater) {
      this.copies = new PerPartition<>(
          (org.apache.storm.trident.state.StateUpdater<org.apache.storm.trident.state.State>) updater,
          "partitionPersist(" + updater.getClass().getSimpleName() + ")", input);
      this.input = new TridentFields.Selector(input, "EpochalTrident.updater(" + updater.getClass().getSimpleName()
          + ")");
      this.source = "Trident StateUpdater " + updater.getClass().getName();
    }

    @Override
    public void checkInput(Fields available) {
      input.checkInput(available);
    }

    @Override
    public void updateState(S state, BatchAttempt batch, List<TridentTuple> records) {
      List<TridentTuple> projected = new ArrayList<>(records.size());
      for (TridentTuple r : records) {
        projected.add(input.project(r));
      }
      Collectors.Drop out = new Collectors.Drop(source);
      try {
        copies.get(state, records).updateState(tridentView(state, batch.txid(), source), projected, out);
      } catch (RuntimeException e) {
        if (state instanceof TridentStateAdapter adapter) {
          adapter.failed(); // its caches may now disagree with its store: replaced at the abort
        }
        throw e;
      }
      if (out.dropped > 0) {
        LOG.debug("{} emitted {} tuples in {}; Epochal's partitionPersist has no output stream, they are dropped",
            source, out.dropped, batch);
      }
    }

    @Override
    public String toString() {
      return source;
    }
  }

  static <S extends State> StateUpdater<S, TridentTuple> updater(Fields input,
      org.apache.storm.trident.state.StateUpdater<?> updater) {
    return new Updater<>(input, Objects.requireNonNull(updater, "updater"));
  }

  /** A Trident {@code QueryFunction} as an Epochal one: per record, the tuples it emits. */
  static final class Query<S extends State> implements QueryFunction<S, TridentTuple, List<TridentTuple>>,
      TridentFields.Selecting {
    private final PerPartition<org.apache.storm.trident.state.QueryFunction<org.apache.storm.trident.state.State,
        Object>> copies;
    private final TridentFields.Selector input;
    private final TridentFields.Appender output;
    private final String source;

    @SuppressWarnings("unchecked")
    Query(Fields input, org.apache.storm.trident.state.QueryFunction<?, ?> function, Fields output) {
      Objects.requireNonNull(output, "output fields");
      String what = "EpochalTrident.stateQuery(" + function.getClass().getSimpleName() + ")";
      this.copies = new PerPartition<>(
          (org.apache.storm.trident.state.QueryFunction<org.apache.storm.trident.state.State, Object>) function,
          "stateQuery(" + function.getClass().getSimpleName() + ")", input);
      this.input = new TridentFields.Selector(input, what);
      this.output = new TridentFields.Appender(output, what);
      this.source = "Trident QueryFunction " + function.getClass().getName();
    }

    @Override
    public void checkInput(Fields available) {
      input.checkInput(available);
    }

    /** At build time: the fields of the output tuples on a stream of {@code available} fields. */
    Fields outputOn(Fields available) {
      checkInput(available);
      return output.outputOn(available);
    }

    @Override
    public List<List<TridentTuple>> batchRetrieve(S state, BatchAttempt batch, List<TridentTuple> records) {
      List<TridentTuple> args = new ArrayList<>(records.size());
      for (TridentTuple r : records) {
        args.add(input.project(r));
      }
      org.apache.storm.trident.state.QueryFunction<org.apache.storm.trident.state.State, Object> fn =
          copies.get(state, records);
      List<Object> results = fn.batchRetrieve(tridentView(state, batch.txid(), source), args);
      if (results == null || results.size() != records.size()) {
        throw new EpochalException(source + " returned " + (results == null ? "null" : results.size() + " results")
            + " for " + records.size() + " tuples: batchRetrieve must return one result per tuple", null, false,
            ErrorContext.NONE);
      }
      List<List<TridentTuple>> out = new ArrayList<>(records.size());
      for (int i = 0; i < records.size(); i++) {
        Collectors.Append collector = new Collectors.Append(source, output, records.get(i));
        fn.execute(args.get(i), results.get(i), collector);
        out.add(collector.tuples);
      }
      return out;
    }

    @Override
    public String toString() {
      return source;
    }
  }

  static <S extends State> Query<S> query(Fields input, org.apache.storm.trident.state.QueryFunction<?, ?> function,
      Fields output) {
    return new Query<>(input, function, output);
  }
}
