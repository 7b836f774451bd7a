package io.epochal.trident;

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

  static final class Combiner<V> implements io.epochal.pipeline.CombinerAggregator<TridentTuple, V> {
    private final Fields input;
    private final CombinerAggregator<V> agg;

    Combiner(Fields input, CombinerAggregator<V> agg) {
      this.input = input;
      this.agg = Objects.requireNonNull(agg, "aggregator");
    }

    @Override
    public V init(TridentTuple record) {
      return agg.init(FieldsTuple.project(record, input));
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

  static final class Reducer<V> implements io.epochal.pipeline.ReducerAggregator<TridentTuple, V> {
    private final Fields input;
    private final ReducerAggregator<V> agg;

    Reducer(Fields input, ReducerAggregator<V> agg) {
      this.input = input;
      this.agg = Objects.requireNonNull(agg, "aggregator");
    }

    @Override
    public V init() {
      return agg.init();
    }

    @Override
    public V reduce(V current, TridentTuple record) {
      return agg.reduce(current, FieldsTuple.project(record, input));
    }

    @Override
    public String toString() {
      return "Trident " + agg.getClass().getName();
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

  static Function<TridentTuple, Iterable<TridentTuple>> each(Fields input,
      org.apache.storm.trident.operation.Function function, Fields output) {
    Objects.requireNonNull(output, "output fields");
    PerThread<org.apache.storm.trident.operation.Function> copies =
        new PerThread<>(function, "each(" + function.getClass().getSimpleName() + ")", input);
    String source = "Trident function " + function.getClass().getName();
    return record -> {
      Collectors.Append out = new Collectors.Append(source, output);
      out.input = record;
      copies.get(record).execute(FieldsTuple.project(record, input), out);
      return out.tuples;
    };
  }

  static Predicate<TridentTuple> filter(Fields input, Filter filter) {
    PerThread<Filter> copies = new PerThread<>(filter, "filter(" + filter.getClass().getSimpleName() + ")", input);
    return record -> copies.get(record).isKeep(FieldsTuple.project(record, input));
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
    throw new IllegalArgumentException(what + " needs a Trident state (EpochalTrident.tridentState) or an Epochal "
        + "MapState with List<Object> keys, got " + state.getClass().getName());
  }

  /** One prepared copy of a state operation per state partition (identified by the Epochal state instance). */
  private static final class PerPartition<O extends Operation> {
    private final O prototype;
    private final String name;
    private final Fields input;
    private final Map<State, O> copies = Collections.synchronizedMap(new IdentityHashMap<>());

    PerPartition(O prototype, String name, Fields input) {
      this.prototype = Objects.requireNonNull(prototype, "operation");
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

  static <S extends State> StateUpdater<S, TridentTuple> updater(Fields input,
      org.apache.storm.trident.state.StateUpdater<?> updater) {
    @SuppressWarnings("unchecked")
    PerPartition<org.apache.storm.trident.state.StateUpdater<org.apache.storm.trident.state.State>> copies =
        new PerPartition<>((org.apache.storm.trident.state.StateUpdater<org.apache.storm.trident.state.State>) updater,
            "partitionPersist(" + updater.getClass().getSimpleName() + ")", input);
    String source = "Trident StateUpdater " + updater.getClass().getName();
    return new StateUpdater<>() {
      @Override
      public void updateState(S state, BatchAttempt batch, List<TridentTuple> records) {
        List<TridentTuple> projected = new ArrayList<>(records.size());
        for (TridentTuple r : records) {
          projected.add(FieldsTuple.project(r, input));
        }
        Collectors.Drop out = new Collectors.Drop(source);
        copies.get(state, records).updateState(tridentView(state, batch.txid(), source), projected, out);
        if (out.dropped > 0) {
          LOG.debug("{} emitted {} tuples in {}; Epochal's partitionPersist has no output stream, they are dropped",
              source, out.dropped, batch);
        }
      }

      @Override
      public String toString() {
        return source;
      }
    };
  }

  static <S extends State> QueryFunction<S, TridentTuple, List<TridentTuple>> query(Fields input,
      org.apache.storm.trident.state.QueryFunction<?, ?> function, Fields output) {
    Objects.requireNonNull(output, "output fields");
    @SuppressWarnings("unchecked")
    PerPartition<org.apache.storm.trident.state.QueryFunction<org.apache.storm.trident.state.State, Object>> copies =
        new PerPartition<>(
            (org.apache.storm.trident.state.QueryFunction<org.apache.storm.trident.state.State, Object>) function,
            "stateQuery(" + function.getClass().getSimpleName() + ")", input);
    String source = "Trident QueryFunction " + function.getClass().getName();
    return new QueryFunction<>() {
      @Override
      public List<List<TridentTuple>> batchRetrieve(S state, BatchAttempt batch, List<TridentTuple> records) {
        List<TridentTuple> args = new ArrayList<>(records.size());
        for (TridentTuple r : records) {
          args.add(FieldsTuple.project(r, input));
        }
        org.apache.storm.trident.state.QueryFunction<org.apache.storm.trident.state.State, Object> fn =
            copies.get(state, records);
        List<Object> results = fn.batchRetrieve(tridentView(state, batch.txid(), source), args);
        if (results == null || results.size() != records.size()) {
          throw new IllegalStateException(source + " returned " + (results == null ? "null" : results.size()
              + " results") + " for " + records.size() + " tuples");
        }
        List<List<TridentTuple>> out = new ArrayList<>(records.size());
        for (int i = 0; i < records.size(); i++) {
          Collectors.Append collector = new Collectors.Append(source, output);
          collector.input = records.get(i);
          fn.execute(args.get(i), results.get(i), collector);
          out.add(collector.tuples);
        }
        return out;
      }

      @Override
      public String toString() {
        return source;
      }
    };
  }
}
