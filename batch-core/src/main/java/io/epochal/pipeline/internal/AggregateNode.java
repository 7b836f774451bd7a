package io.epochal.pipeline.internal;

import static io.epochal.pipeline.internal.Node.where;

import io.epochal.errors.ErrorContext;
import io.epochal.errors.InvalidRecordException;
import io.epochal.pipeline.CombinerAggregator;
import io.epochal.pipeline.KeyValue;
import io.epochal.pipeline.ReducerAggregator;
import io.epochal.spout.BatchAttempt;
import io.epochal.state.MapState;
import io.epochal.state.State;
import io.epochal.state.StateFactory;
import io.epochal.state.ValueUpdater;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;

/** {@code persistentAggregate}: pre-aggregates per key and partition, then one multiUpdate per partition. */
final class AggregateNode extends Node.StateNode {
  private final CombinerAggregator<Object, Object> combiner;
  private final ReducerAggregator<Object, Object> reducer;

  @SuppressWarnings("unchecked")
  AggregateNode(int id, Node parent, String stateName, StateFactory<? extends State> factory, Object aggregator) {
    super(id, "persistentAggregate(" + stateName + ")", parent, stateName, factory, true);
    if (aggregator instanceof CombinerAggregator<?, ?> c) {
      this.combiner = (CombinerAggregator<Object, Object>) c;
      this.reducer = null;
    } else {
      this.combiner = null;
      this.reducer = (ReducerAggregator<Object, Object>) Objects.requireNonNull(aggregator, "aggregator");
    }
  }

  /** Whether the aggregator is a combiner: its groupBy's split may be deferred to it ({@link Node.GroupBy.Deferred}). */
  boolean combines() {
    return combiner != null;
  }

  /**
   * Process phase: per partition, key → partial value (combiner) or key → records (reducer). The input is the
   * groupBy's {@link KeyedBatch}, or its records not yet split ({@link Node.GroupBy.Deferred}, combiner only).
   */
  @SuppressWarnings("unchecked")
  List<Map<Object, Object>> preAggregate(Object input, ErrorContext ctx) {
    if (input instanceof Node.GroupBy.Deferred deferred) {
      return combineThenSplit(deferred, ctx);
    }
    KeyedBatch in = (KeyedBatch) input;
    List<Map<Object, Object>> parts = new ArrayList<>(in.partitions());
    ErrorContext state = ctx.withTable(stateName);
    for (int p = 0; p < in.partitions(); p++) {
      List<Object> keys = in.keys.get(p);
      List<Object> records = in.records.get(p);
      if (keys.isEmpty()) {
        parts.add(Map.of());
        continue;
      }
      if (combiner != null) {
        HashMap<Object, Object> partial = new HashMap<>(Math.max(16, keys.size()));
        Combine combine = new Combine(state); // one instance per partition, not per record
        for (int i = 0, n = keys.size(); i < n; i++) {
          Object key = keys.get(i);
          combine.key = key;
          partial.merge(key, init(records.get(i), key, state), combine);
        }
        parts.add(partial);
      } else {
        LinkedHashMap<Object, Object> grouped = new LinkedHashMap<>();
        for (int i = 0, n = keys.size(); i < n; i++) {
          ((List<Object>) grouped.computeIfAbsent(keys.get(i), k -> new ArrayList<>())).add(records.get(i));
        }
        parts.add(grouped);
      }
    }
    return parts;
  }

  /**
   * The combiner's partials of a groupBy's records not yet split by partition: combined per key first, record by
   * record in batch order (each key's values combine in the same order as in its partition), then each distinct key
   * hashed once into its partition — the split then costs a hash per key, not per record. A key is checked as the
   * groupBy checks it, record by record (the first record in batch order whose key or value fails decides the
   * error). Each partition's map is sized by its number of keys, so its iteration order depends only on the batch.
   */
  private List<Map<Object, Object>> combineThenSplit(Node.GroupBy.Deferred deferred, ErrorContext ctx) {
    Node.GroupBy groupBy = deferred.groupBy();
    int partitions = groupBy.partitions;
    List<?> records = deferred.records();
    List<Map<Object, Object>> parts = new ArrayList<>(partitions);
    if (records.isEmpty()) {
      for (int p = 0; p < partitions; p++) {
        parts.add(Map.of());
      }
      return parts;
    }
    ErrorContext state = ctx.withTable(stateName);
    HashMap<Object, Object> all = new HashMap<>();
    Combine combine = new Combine(state);
    for (Object record : records) {
      Object key = groupBy.keyOf(record, ctx);
      combine.key = key;
      all.merge(key, init(record, key, state), combine);
    }
    if (partitions == 1) {
      parts.add(all);
      return parts;
    }
    KeyPartitioner.Hasher hasher = new KeyPartitioner.Hasher();
    int[] partOf = new int[all.size()];
    int[] sizes = new int[partitions];
    int i = 0;
    for (Object key : all.keySet()) {
      int p = hasher.partition(key, partitions); // checked by keyOf: cannot fail
      partOf[i++] = p;
      sizes[p]++;
    }
    List<HashMap<Object, Object>> maps = new ArrayList<>(partitions);
    for (int p = 0; p < partitions; p++) {
      maps.add(sizes[p] == 0 ? null : new HashMap<>((int) (sizes[p] / 0.75f) + 1));
    }
    i = 0;
    for (Map.Entry<Object, Object> e : all.entrySet()) {
      maps.get(partOf[i++]).put(e.getKey(), e.getValue());
    }
    for (HashMap<Object, Object> m : maps) {
      parts.add(m == null ? Map.of() : m);
    }
    return parts;
  }

  /** {@code init(record)}, never null. */
  private Object init(Object record, Object key, ErrorContext state) {
    Object value;
    try {
      value = combiner.init(record);
    } catch (ArithmeticException e) {
      throw arithmetic("init", key, state, e);
    }
    if (value == null) {
      throw returnedNull("init", key, state);
    }
    return value;
  }

  /**
   * The combiner's {@code combine} for {@link HashMap#merge}, which would silently remove the key on a null result:
   * refuses null (and overflow) naming the key being merged. Not thread-safe: one per partition and batch.
   */
  private final class Combine implements BiFunction<Object, Object, Object> {
    private final ErrorContext state;
    Object key;

    Combine(ErrorContext state) {
      this.state = state;
    }

    @Override
    public Object apply(Object left, Object right) {
      return combined(key, left, right, state);
    }
  }

  /** {@code combine(left, right)}, never null. */
  Object combined(Object key, Object left, Object right, ErrorContext state) {
    Object value;
    try {
      value = combiner.combine(left, right);
    } catch (ArithmeticException e) {
      throw arithmetic("combine", key, state, e);
    }
    if (value == null) {
      throw returnedNull("combine", key, state);
    }
    return value;
  }

  private InvalidRecordException returnedNull(String what, Object key, ErrorContext state) {
    return new InvalidRecordException("the aggregator of state '" + stateName + "' returned null from " + what
        + " for key '" + key + "'" + where(state) + "; an aggregator must never return null (null values are errors, "
        + "never dropped or stored)", null, state.withKey(key));
  }

  private InvalidRecordException arithmetic(String what, Object key, ErrorContext state, ArithmeticException e) {
    return new InvalidRecordException("the aggregator of state '" + stateName + "' failed in " + what + " for key '"
        + key + "'" + where(state) + ": " + e.getMessage() + ". The same input fails again, so the pipeline stops; "
        + "use a wider value type (e.g. BigInteger) or fix the aggregator", e, state.withKey(key));
  }

  /**
   * Commit phase, one partition: the state's multiUpdate with one updater per key.
   *
   * @param newValues whether to return the updated values (only when a node consumes them)
   * @param ctx the pipeline and txid of the batch, for errors
   * @return the updated key-values, or an empty list when {@code newValues} is false
   */
  @SuppressWarnings("unchecked")
  List<Object> applyPartition(State state, BatchAttempt batch, Map<Object, Object> part, boolean newValues,
      ErrorContext ctx) {
    MapState<Object, Object> map = (MapState<Object, Object>) state;
    ErrorContext where = ctx.withTable(stateName);
    Map<Object, ValueUpdater<Object>> updaters;
    if (combiner != null) {
      updaters = new CombinerUpdaters(part, this, where);
    } else {
      updaters = new HashMap<>(Math.max(16, part.size() * 2));
      for (Map.Entry<Object, Object> e : part.entrySet()) {
        Object key = e.getKey();
        List<Object> records = (List<Object>) e.getValue();
        updaters.put(key, stored -> {
          Object acc = stored.isPresent() ? stored.get() : reducer.init();
          for (Object r : records) {
            try {
              acc = reducer.reduce(acc, r);
            } catch (ArithmeticException ex) {
              throw arithmetic("reduce", key, where, ex);
            }
            if (acc == null) {
              throw returnedNull("reduce", key, where);
            }
          }
          return acc;
        });
      }
    }
    Map<Object, Object> updated = map.multiUpdate(updaters);
    if (!newValues) {
      return List.of();
    }
    List<Object> out = new ArrayList<>(updated.size());
    for (Map.Entry<Object, Object> e : updated.entrySet()) {
      out.add(new KeyValue<>(e.getKey(), e.getValue()));
    }
    return out;
  }
}
