package io.epochal.pipeline.internal;

import io.epochal.errors.ErrorContext;
import io.epochal.errors.InvalidRecordException;
import io.epochal.pipeline.QueryFunction;
import io.epochal.pipeline.StateUpdater;
import io.epochal.spout.BatchAttempt;
import io.epochal.state.State;
import io.epochal.state.StateFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One declared operation of a pipeline graph. Nodes are immutable and numbered in declaration order, which is also
 * the order the engine runs them in within a batch. Stateless nodes before the first state access run in the
 * process phase (batches may overlap); every node from a state access on runs in the commit phase, in txid order.
 *
 * <p>Internally records are untyped ({@code Object}); the typed views in {@link StreamView} guarantee the types.
 */
abstract sealed class Node {
  final int id;
  final String label;
  final Node parent;
  /** True when this node and all its ancestors touch no state: it may run before earlier batches committed. */
  final boolean preState;

  Node(int id, String label, Node parent) {
    this.id = id;
    this.label = label;
    this.parent = parent;
    this.preState = !touchesState() && (parent == null || parent.preState);
  }

  /** A node of two inputs: pre-state only when both are. */
  Node(int id, String label, Node parent, Node other) {
    this.id = id;
    this.label = label;
    this.parent = parent;
    this.preState = parent.preState && other.preState;
  }

  boolean touchesState() {
    return false;
  }

  @Override
  public String toString() {
    return "#" + id + " " + label;
  }

  /** The records of one spout (index in declaration order). */
  static final class Source extends Node {
    final int index;

    Source(int id, int index, String spoutName) {
      super(id, "source(" + spoutName + ")", null);
      this.index = index;
    }
  }

  /** Two flat streams as one: the first's records, then the second's (a grouped input is flattened). */
  static final class Merge extends Node {
    final Node other;

    Merge(int id, Node parent, Node other) {
      super(id, "merge(#" + parent.id + ", #" + other.id + ")", parent, other);
      this.other = other;
    }

    @SuppressWarnings("unchecked")
    Object apply(Object first, Object second) {
      List<Object> a = first instanceof KeyedBatch k ? k.flat() : (List<Object>) first;
      List<Object> b = second instanceof KeyedBatch k ? k.flat() : (List<Object>) second;
      List<Object> out = new ArrayList<>(a.size() + b.size());
      out.addAll(a);
      out.addAll(b);
      return out;
    }
  }

  /** A per-record stateless operation on a flat list. */
  abstract static sealed class Stateless extends Node {
    Stateless(int id, String label, Node parent) {
      super(id, label, parent);
    }

    /**
     * @param ctx the pipeline and txid of the batch, for errors
     */
    abstract Object apply(Object input, ErrorContext ctx);
  }

  static final class MapOp extends Stateless {
    private final Function<Object, Object> fn;

    MapOp(int id, Node parent, Function<Object, Object> fn) {
      super(id, "map", parent);
      this.fn = Objects.requireNonNull(fn, "fn");
    }

    @Override
    Object apply(Object input, ErrorContext ctx) {
      List<?> in = (List<?>) input;
      List<Object> out = new ArrayList<>(in.size());
      for (Object r : in) {
        out.add(nonNull(fn.apply(r), this, r, ctx));
      }
      return out;
    }
  }

  static final class FlatMapOp extends Stateless {
    private final Function<Object, Iterable<?>> fn;

    FlatMapOp(int id, Node parent, Function<Object, Iterable<?>> fn) {
      super(id, "flatMap", parent);
      this.fn = Objects.requireNonNull(fn, "fn");
    }

    /** Outputs per input of the last batch, rounded up: the next batch's initial capacity (a sizing hint only). */
    private volatile int expansion = 4;

    @Override
    Object apply(Object input, ErrorContext ctx) {
      List<?> in = (List<?>) input;
      List<Object> out = new ArrayList<>(Math.max(16, in.size() * expansion));
      for (Object r : in) {
        Iterable<?> results = nonNull(fn.apply(r), this, r, ctx);
        for (Object x : results) {
          out.add(nonNull(x, this, r, ctx));
        }
      }
      if (!in.isEmpty()) {
        expansion = Math.max(1, Math.min(64, (out.size() + in.size() - 1) / in.size()));
      }
      return out;
    }
  }

  static final class FilterOp extends Stateless {
    private final Predicate<Object> predicate;

    FilterOp(int id, Node parent, Predicate<Object> predicate) {
      super(id, "filter", parent);
      this.predicate = Objects.requireNonNull(predicate, "predicate");
    }

    @Override
    Object apply(Object input, ErrorContext ctx) {
      List<?> in = (List<?>) input;
      List<Object> out = new ArrayList<>(in.size());
      for (Object r : in) {
        if (predicate.test(r)) {
          out.add(r);
        }
      }
      return out;
    }
  }

  /** Splits a flat list by key partition. */
  static final class GroupBy extends Stateless {
    private final Function<Object, Object> keyFn;
    final int partitions;

    GroupBy(int id, Node parent, Function<Object, Object> keyFn, int partitions) {
      super(id, "groupBy", parent);
      this.keyFn = Objects.requireNonNull(keyFn, "keyFn");
      this.partitions = partitions;
    }

    @Override
    Object apply(Object input, ErrorContext ctx) {
      List<?> in = (List<?>) input;
      KeyedBatch out = new KeyedBatch(partitions, partitions == 1 ? in.size() : in.size() / partitions + 64);
      KeyPartitioner.Hasher hasher = new KeyPartitioner.Hasher();
      for (Object r : in) {
        Object key = nonNullKey(r, ctx);
        int p;
        try {
          p = hasher.partition(key, partitions);
        } catch (InvalidRecordException e) {
          throw refusedKey(this, key, r, ctx, e);
        }
        out.keys.get(p).add(key);
        out.records.get(p).add(r);
      }
      return out;
    }

    /**
     * The key of a record, checked as {@link #apply} checks it (same errors) but not hashed: for a consumer that
     * partitions the distinct keys itself ({@link Deferred}).
     *
     * @throws InvalidRecordException for a null key or a key {@link KeyPartitioner#hash} refuses
     */
    Object keyOf(Object r, ErrorContext ctx) {
      Object key = nonNullKey(r, ctx);
      try {
        KeyPartitioner.requireSupported(key);
      } catch (InvalidRecordException e) {
        throw refusedKey(this, key, r, ctx, e);
      }
      return key;
    }

    private Object nonNullKey(Object r, ErrorContext ctx) {
      Object key = keyFn.apply(r);
      if (key == null) {
        throw new InvalidRecordException("groupBy (node " + this + ") returned a null key for record " + r
            + where(ctx), null, ctx);
      }
      return key;
    }

    /**
     * The groupBy's input, not yet split: what the engine passes on instead of a {@link KeyedBatch} when the only
     * consumer is a combiner aggregate, which combines per key first and partitions each distinct key once
     * ({@link AggregateNode#preAggregate}).
     */
    record Deferred(List<?> records, GroupBy groupBy) {
    }
  }

  /** Flattens a grouped batch back into one list (partition order). */
  static final class Ungroup extends Stateless {
    Ungroup(int id, Node parent) {
      super(id, "toStream", parent);
    }

    @Override
    Object apply(Object input, ErrorContext ctx) {
      KeyedBatch in = (KeyedBatch) input;
      List<Object> out = new ArrayList<>();
      for (List<Object> part : in.records) {
        out.addAll(part);
      }
      return out;
    }
  }

  /** A node that reads or writes a state; one state instance per partition. */
  abstract static sealed class StateNode extends Node permits AggregateNode, Persist, KeyedProcess, Query {
    final String stateName;
    final StateFactory<? extends State> factory;
    final boolean writes;

    StateNode(int id, String label, Node parent, String stateName, StateFactory<? extends State> factory,
        boolean writes) {
      super(id, label, parent);
      this.stateName = stateName;
      this.factory = factory;
      this.writes = writes;
    }

    @Override
    boolean touchesState() {
      return true;
    }
  }

  /** {@code partitionPersist}: the user's updater per partition. */
  static final class Persist extends StateNode {
    private final StateUpdater<State, Object> updater;

    @SuppressWarnings("unchecked")
    Persist(int id, Node parent, String stateName, StateFactory<? extends State> factory,
        StateUpdater<? extends State, ?> updater) {
      super(id, "partitionPersist(" + stateName + ")", parent, stateName, factory, true);
      this.updater = (StateUpdater<State, Object>) Objects.requireNonNull(updater, "updater");
    }

    void applyPartition(State state, BatchAttempt batch, List<Object> records) {
      updater.updateState(state, batch, records);
    }
  }

  /**
   * {@code GroupedStream.process}: per partition, the records grouped by the keys {@code groupBy} computed (each key
   * once, in first-appearance order), handed to the function key by key inside the state's
   * {@code begin(epoch)..end()}; each emitted record is attached to the key it was emitted for (same partition).
   */
  static final class KeyedProcess extends StateNode {
    private final io.epochal.pipeline.KeyedProcessFunction<State, Object, Object, Object> fn;

    @SuppressWarnings("unchecked")
    KeyedProcess(int id, Node parent, String stateName, StateFactory<? extends State> factory,
        io.epochal.pipeline.KeyedProcessFunction<? extends State, ?, ?, ?> fn) {
      super(id, "process(" + stateName + ")", parent, stateName, factory, true);
      this.fn = (io.epochal.pipeline.KeyedProcessFunction<State, Object, Object, Object>) Objects.requireNonNull(fn,
          "fn");
    }

    /**
     * Processes one partition; appends every output with its key to {@code outKeys}/{@code outRecords}.
     *
     * @param keys the partition's record keys (as computed by groupBy), index-aligned with {@code records}
     */
    void applyPartition(State state, BatchAttempt batch, List<Object> keys, List<Object> records,
        List<Object> outKeys, List<Object> outRecords) {
      LinkedHashMap<Object, List<Object>> groups = new LinkedHashMap<>();
      for (int i = 0; i < records.size(); i++) {
        groups.computeIfAbsent(keys.get(i), k -> new ArrayList<>()).add(records.get(i));
      }
      List<Object> groupKeys = Collections.unmodifiableList(new ArrayList<>(groups.keySet()));
      fn.begin(state, batch, groupKeys);
      Attach out = new Attach(outKeys, outRecords, this, batch);
      for (Map.Entry<Object, List<Object>> g : groups.entrySet()) {
        out.key = g.getKey();
        fn.process(state, batch, g.getKey(), Collections.unmodifiableList(g.getValue()), out);
      }
      fn.finish(state, batch, (key, record) -> {
        if (key == null) {
          throw new InvalidRecordException("process '" + stateName + "' emitted record " + record
              + " with a null key in finish (" + batch + ")", null, ErrorContext.of(stateName, "<null>")
              .withTxid(batch.txid()));
        }
        out.key = key;
        out.accept(record);
      });
    }

    /** Attaches each emitted record to the key being processed; one per partition and batch. */
    private static final class Attach implements java.util.function.Consumer<Object> {
      private final List<Object> keys;
      private final List<Object> records;
      private final KeyedProcess node;
      private final BatchAttempt batch;
      Object key;

      Attach(List<Object> keys, List<Object> records, KeyedProcess node, BatchAttempt batch) {
        this.keys = keys;
        this.records = records;
        this.node = node;
        this.batch = batch;
      }

      @Override
      public void accept(Object record) {
        if (record == null) {
          throw new InvalidRecordException("process '" + node.stateName + "' emitted a null record for key '" + key
              + "' (" + batch + ")", null, ErrorContext.of(node.stateName, key).withTxid(batch.txid()));
        }
        keys.add(key);
        records.add(record);
      }
    }
  }

  /**
   * {@code to(name, sink)}: an output. Runs in the commit phase (it needs the batch's epoch), staged once per attempt
   * and published after the epoch committed.
   */
  static final class SinkNode extends Node {
    final String sinkName;
    final io.epochal.sink.Sink<Object> sink;

    @SuppressWarnings("unchecked")
    SinkNode(int id, Node parent, String sinkName, io.epochal.sink.Sink<?> sink) {
      super(id, "to(" + sinkName + ")", parent);
      this.sinkName = sinkName;
      this.sink = (io.epochal.sink.Sink<Object>) Objects.requireNonNull(sink, "sink");
    }

    @Override
    boolean touchesState() {
      return true;
    }
  }

  /** {@code stateQuery}: one result per record, read from the partition of the record's key. */
  static final class Query extends StateNode {
    final Function<Object, Object> keyFn;
    private final QueryFunction<State, Object, Object> query;

    @SuppressWarnings("unchecked")
    Query(int id, Node parent, StateNode target, Function<Object, Object> keyFn,
        QueryFunction<? extends State, ?, ?> query) {
      super(id, "stateQuery(" + target.stateName + ")", parent, target.stateName, target.factory, false);
      this.keyFn = Objects.requireNonNull(keyFn, "keyFn");
      this.query = (QueryFunction<State, Object, Object>) Objects.requireNonNull(query, "query");
    }

    List<Object> applyPartition(State state, BatchAttempt batch, List<Object> records, ErrorContext ctx) {
      List<Object> results = query.batchRetrieve(state, batch, records);
      if (results == null || results.size() != records.size()) {
        throw new InvalidRecordException("stateQuery on state '" + stateName + "' returned "
            + (results == null ? "null" : results.size() + " results") + " for " + records.size()
            + " records (" + batch + "); it must return exactly one result per record", null, ctx.withTable(stateName));
      }
      for (int i = 0; i < results.size(); i++) {
        nonNull(results.get(i), this, records.get(i), ctx.withTable(stateName));
      }
      return results;
    }
  }

  static <T> T nonNull(T value, Node node, Object record, ErrorContext ctx) {
    if (value == null) {
      throw new InvalidRecordException("operation " + node + " returned null for record " + record + where(ctx)
          + "; null records and values are errors, never dropped", null, ctx);
    }
    return value;
  }

  /** The key refusal of {@link KeyPartitioner}, with the node, the record and the batch. */
  static InvalidRecordException refusedKey(Node node, Object key, Object record, ErrorContext ctx,
      InvalidRecordException refusal) {
    return new InvalidRecordException(node + ": " + refusal.getMessage() + " (record " + record + where(ctx) + ")",
        refusal, ctx.withKey(key));
  }

  /** {@code " in pipeline 'p' txid t"}, as far as known. */
  static String where(ErrorContext ctx) {
    StringBuilder sb = new StringBuilder();
    ctx.pipeline().ifPresent(p -> sb.append(" in pipeline '").append(p).append('\''));
    ctx.txid().ifPresent(t -> sb.append(sb.length() == 0 ? " in" : "").append(" txid ").append(t));
    return sb.toString();
  }

}
