package io.epochal.pipeline.internal;

import io.epochal.errors.ErrorContext;
import io.epochal.errors.InvalidRecordException;
import io.epochal.errors.SinkPublishException;
import io.epochal.sink.SinkContext;
import io.epochal.spout.BatchAttempt;
import io.epochal.state.Epoch;
import io.epochal.state.EpochSource;
import io.epochal.state.State;
import io.epochal.state.StateContext;
import io.epochal.store.CheckpointStore;
import io.epochal.store.OutboxEntry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.function.IntConsumer;
import java.util.function.IntPredicate;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the phases of one batch over the graph: the process phase (every stateless node before the first state access
 * and the pre-aggregation fed by them, possibly on the pool while earlier batches commit) and the commit phase (the
 * remaining nodes in declaration order, state nodes per partition in parallel). Owns the states (one per written
 * state and partition) and the worker pool. Called by the coordinator thread; the process phase of several batches
 * may run on the pool at once (it touches no state). Internal.
 */
final class BatchExecutor implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BatchExecutor.class);

  private final String pipeline;
  private final int partitions;
  private final List<Node> nodes;
  /** Per writing state, in declaration order: its partitions. */
  private final Map<String, State[]> states = new LinkedHashMap<>();
  /** Per writing state: which partitions were begun in the open epoch (each partition is begun at most once). */
  private final Map<String, boolean[]> begun = new HashMap<>();
  private final List<Node.SinkNode> sinks = new ArrayList<>();
  private final WorkerPool pool;
  /** How many records the sinks staged in the current commit phase. */
  private long staged;
  /**
   * Per node id: whether the commit phase reads the node's process-phase output. The others are dropped as soon as
   * the process phase ends, so a batch waiting for its commit holds only what its commit reads (typically the
   * pre-aggregated parts), not its records: less for the garbage collector to copy.
   */
  private final boolean[] keptForCommit;
  /** Per node: a groupBy whose split its only consumer, a combiner aggregate, does ({@link #deferredSplits}). */
  private final boolean[] deferredSplit;
  /** Per node id: whether another node consumes the node's output (an aggregate's new values). */
  private final boolean[] consumed;
  /**
   * The epoch of the batch in its commit phase, null between commit phases: only the coordinator's thread uses it, to
   * check that commit phases run one epoch at a time (states receive the epoch by {@code begin(epoch)}).
   */
  private Epoch epoch;
  private final EpochSource epochs;

  /** @param checkpoints the pipeline's checkpoint store, whose staging the states bind to when they are made */
  BatchExecutor(String pipeline, int partitions, int threads, List<Node> nodes, CheckpointStore checkpoints) {
    this.pipeline = Objects.requireNonNull(pipeline, "pipeline");
    Objects.requireNonNull(checkpoints, "checkpoints");
    this.epochs = new EpochSource() {
      @Override
      public <T> Optional<T> staging(Class<T> type) {
        return checkpoints.staging(pipeline, type);
      }
    };
    this.partitions = partitions;
    this.nodes = nodes;
    for (Node node : nodes) {
      if (node instanceof Node.StateNode s && s.writes) {
        State[] parts = new State[partitions];
        for (int p = 0; p < parts.length; p++) {
          parts[p] = Objects.requireNonNull(
              s.factory.makeState(new StateContext(pipeline, s.stateName, p, parts.length, epochs)),
              "state factory of '" + s.stateName + "' returned null");
        }
        states.put(s.stateName, parts);
        begun.put(s.stateName, new boolean[partitions]);
      } else if (node instanceof Node.SinkNode sink) {
        sinks.add(sink);
      }
    }
    this.pool = new WorkerPool(pipeline, threads);
    this.deferredSplit = deferredSplits(nodes);
    this.keptForCommit = new boolean[nodes.size()];
    this.consumed = new boolean[nodes.size()];
    for (Node node : nodes) {
      if (node.parent == null) {
        continue;
      }
      consumed[node.parent.id] = true;
      if (!node.preState && !(node instanceof AggregateNode && node.parent.preState)) {
        keptForCommit[node.parent.id] = true;
      }
      if (node instanceof Node.Merge merge) {
        consumed[merge.other.id] = true;
        if (!merge.preState) {
          keptForCommit[merge.other.id] = true;
        }
      }
    }
  }

  /**
   * The groupBy nodes whose split is deferred to their consumer: those whose only consumer is a combiner aggregate,
   * which combines per key before it partitions (one hash per distinct key instead of one per record).
   */
  private static boolean[] deferredSplits(List<Node> nodes) {
    int[] consumers = new int[nodes.size()];
    for (Node node : nodes) {
      if (node.parent != null) {
        consumers[node.parent.id]++;
      }
      if (node instanceof Node.Merge merge) {
        consumers[merge.other.id]++;
      }
    }
    boolean[] deferred = new boolean[nodes.size()];
    for (Node node : nodes) {
      if (node instanceof AggregateNode agg && agg.combines() && agg.parent instanceof Node.GroupBy g
          && consumers[g.id] == 1) {
        deferred[g.id] = true;
      }
    }
    return deferred;
  }

  /** A stateless node's output: a groupBy whose split is deferred passes its records on unsplit. */
  private Object apply(Node.Stateless op, Object input, ErrorContext ctx) {
    if (deferredSplit[op.id]) {
      return new Node.GroupBy.Deferred((List<?>) input, (Node.GroupBy) op);
    }
    return op.apply(input, ctx);
  }

  // ---------------------------------------------------------------- process phase

  /**
   * Schedules the process phase of an emitted batch (at once without a pool, else on it); {@code nanos} receives
   * how long it took, on the thread that ran it, before the future completes.
   */
  Future<Object[]> process(List<List<Object>> records, ErrorContext ctx, LongConsumer nanos) {
    return pool.schedule(() -> {
      long started = System.nanoTime();
      Object[] out = processPhase(records, ctx);
      nanos.accept(System.nanoTime() - started);
      return out;
    });
  }

  /** Runs every node that needs no state, plus the pre-aggregation of aggregates fed by such nodes. */
  private Object[] processPhase(List<List<Object>> bySource, ErrorContext ctx) {
    Object[] outputs = new Object[nodes.size()];
    for (Node node : nodes) {
      if (node instanceof Node.Source source) {
        outputs[node.id] = bySource.get(source.index);
      } else if (node.preState && node instanceof Node.Merge merge) {
        outputs[node.id] = merge.apply(outputs[merge.parent.id], outputs[merge.other.id]);
      } else if (node.preState && node instanceof Node.Stateless op) {
        outputs[node.id] = apply(op, outputs[node.parent.id], ctx);
      } else if (node instanceof AggregateNode agg && agg.parent.preState) {
        outputs[node.id] = new PreAggregated(agg.preAggregate(outputs[agg.parent.id], ctx));
      }
    }
    for (Node node : nodes) {
      if (node.preState && !keptForCommit[node.id]) {
        outputs[node.id] = null; // nothing in the commit phase reads it
      }
    }
    return outputs;
  }

  /** Marks a pre-aggregated input waiting for the commit phase. */
  private record PreAggregated(List<Map<Object, Object>> parts) {
  }

  // ---------------------------------------------------------------- commit phase

  /**
   * Runs every node after the process phase, in declaration order, in {@code epoch}: each state partition the batch
   * reaches is begun with the epoch once, at its first node ({@code begin(epoch)}), and ended once after the last node
   * ({@code end()}), before the checkpoint commit, which is the only durable step; each sink sees the epoch with an
   * outbox of its own when {@code outboxKept}.
   *
   * @return what the sinks staged in the outbox, for the checkpoint commit
   * @throws IllegalStateException if another epoch's commit phase has not ended ({@link #endEpoch}, {@link #abort})
   */
  List<OutboxEntry> commitPhase(Object[] outputs, Epoch epoch, boolean outboxKept, ErrorContext ctx) {
    Objects.requireNonNull(epoch, "epoch");
    if (this.epoch != null) {
      throw new IllegalStateException("the commit phase of " + epoch + " starts while that of " + this.epoch
          + " has not ended: commit phases run one epoch at a time");
    }
    this.epoch = epoch;
    this.staged = 0;
    for (boolean[] b : begun.values()) {
      java.util.Arrays.fill(b, false);
    }
    SinkOutbox outbox = new SinkOutbox(epoch, outboxKept);
    BatchAttempt batch = epoch.attempt();
    for (Node node : nodes) {
      if (node instanceof Node.Source || node.preState) {
        continue;
      }
      Object input = outputs[node.parent.id];
      if (node instanceof Node.Merge merge) {
        outputs[node.id] = merge.apply(input, outputs[merge.other.id]);
      } else if (node instanceof Node.Stateless op) {
        outputs[node.id] = apply(op, input, ctx);
      } else if (node instanceof AggregateNode agg) {
        List<Map<Object, Object>> pre = outputs[node.id] instanceof PreAggregated p ? p.parts()
            : agg.preAggregate(input, ctx);
        outputs[node.id] = applyAggregate(agg, batch, pre, ctx);
      } else if (node instanceof Node.Persist persist) {
        applyPersist(persist, batch, input);
        outputs[node.id] = List.of();
      } else if (node instanceof Node.Query query) {
        outputs[node.id] = applyQuery(query, batch, input, ctx);
      } else if (node instanceof Node.KeyedProcess process) {
        outputs[node.id] = applyProcess(process, batch, (KeyedBatch) input);
      } else if (node instanceof Node.SinkNode sink) {
        applySink(sink, outbox.epochFor(sink.sinkName), input);
        outputs[node.id] = List.of();
      } else {
        throw new IllegalStateException("unexpected node " + node);
      }
    }
    endStates();
    return outbox.entries();
  }

  /** Partition {@code p} of state {@code stateName}, begun with {@code epoch} if no node began it yet. */
  private State open(String stateName, int p, Epoch epoch) {
    State state = states.get(stateName)[p];
    boolean[] b = begun.get(stateName);
    if (!b[p]) {
      b[p] = true;
      state.begin(epoch);
    }
    return state;
  }

  /** Ends every partition begun in the open epoch, state by state in declaration order. */
  private void endStates() {
    for (Map.Entry<String, State[]> e : states.entrySet()) {
      boolean[] b = begun.get(e.getKey());
      State[] parts = e.getValue();
      forEachPartition(parts.length, p -> b[p], p -> parts[p].end());
    }
  }

  private List<Object> applyAggregate(AggregateNode agg, BatchAttempt batch, List<Map<Object, Object>> parts,
      ErrorContext ctx) {
    Epoch open = this.epoch; // handed to the partition tasks
    List<List<Object>> outs = emptyParts(parts.size());
    boolean keepNewValues = consumed[agg.id];
    boolean every = agg.factory.takesEveryBatch();
    forEachPartition(parts.size(), p -> every || !parts.get(p).isEmpty(),
        p -> outs.set(p, agg.applyPartition(open(agg.stateName, p, open), batch, parts.get(p), keepNewValues, ctx)));
    return concat(outs);
  }

  private void applyPersist(Node.Persist persist, BatchAttempt batch, Object input) {
    Epoch open = this.epoch; // handed to the partition tasks
    List<List<Object>> parts = partitionRecords(input);
    boolean every = persist.factory.takesEveryBatch();
    forEachPartition(parts.size(), p -> every || !parts.get(p).isEmpty(),
        p -> persist.applyPartition(open(persist.stateName, p, open), batch, parts.get(p)));
  }

  /** Runs a keyed processor per partition; the outputs stay in their key's partition (a grouped output). */
  private KeyedBatch applyProcess(Node.KeyedProcess process, BatchAttempt batch, KeyedBatch input) {
    Epoch open = this.epoch; // handed to the partition tasks
    KeyedBatch out = new KeyedBatch(input.partitions());
    boolean every = process.factory.takesEveryBatch();
    forEachPartition(input.partitions(), p -> every || !input.records.get(p).isEmpty(),
        p -> process.applyPartition(open(process.stateName, p, open), batch, input.keys.get(p), input.records.get(p),
            out.keys.get(p), out.records.get(p)));
    return out;
  }

  /** Stages the batch's records in a sink: per partition in parallel for a partitioned sink, else in one call. */
  @SuppressWarnings("unchecked")
  private void applySink(Node.SinkNode node, Epoch epoch, Object input) {
    if (node.sink instanceof io.epochal.sink.PartitionedSink<Object> partitioned) {
      List<List<Object>> parts = partitionRecords(input);
      forEachPartition(parts.size(), p -> !parts.get(p).isEmpty(),
          p -> partitioned.stage(epoch, p, Collections.unmodifiableList(parts.get(p))));
      parts.forEach(part -> staged += part.size());
      return;
    }
    List<Object> records = input instanceof KeyedBatch k ? concat(k.records) : (List<Object>) input;
    node.sink.stage(epoch, Collections.unmodifiableList(records));
    staged += records.size();
  }

  @SuppressWarnings("unchecked")
  private List<Object> applyQuery(Node.Query query, BatchAttempt batch, Object input, ErrorContext ctx) {
    Epoch open = this.epoch; // handed to the partition tasks
    List<Object> records = input instanceof KeyedBatch k ? concat(k.records) : (List<Object>) input;
    List<List<Object>> parts = emptyParts(partitions);
    ErrorContext where = ctx.withTable(query.stateName);
    for (Object r : records) {
      Object key = query.keyFn.apply(r);
      if (key == null) {
        throw new InvalidRecordException("stateQuery on state '" + query.stateName + "' got a null key for record "
            + r + " (" + batch + ")", null, where);
      }
      int p;
      try {
        p = KeyPartitioner.partition(key, partitions);
      } catch (InvalidRecordException e) {
        throw Node.refusedKey(query, key, r, where, e);
      }
      parts.get(p).add(r);
    }
    List<List<Object>> outs = emptyParts(partitions);
    forEachPartition(partitions, p -> !parts.get(p).isEmpty(),
        p -> outs.set(p, query.applyPartition(open(query.stateName, p, open), batch, parts.get(p), ctx)));
    return concat(outs);
  }

  /** A persist's input split by partition: by key for a grouped input, round-robin for a flat one. */
  @SuppressWarnings("unchecked")
  private List<List<Object>> partitionRecords(Object input) {
    if (input instanceof KeyedBatch k) {
      return k.records;
    }
    List<Object> records = (List<Object>) input;
    List<List<Object>> parts = emptyParts(partitions);
    for (int i = 0; i < records.size(); i++) {
      parts.get(i % partitions).add(records.get(i));
    }
    return parts;
  }

  /** One empty, growable list per partition (stays a fixed-size list of lists: set() replaces an entry). */
  private static List<List<Object>> emptyParts(int partitions) {
    List<List<Object>> parts = new ArrayList<>(partitions);
    for (int p = 0; p < partitions; p++) {
      parts.add(new ArrayList<>());
    }
    return parts;
  }

  private static List<Object> concat(List<List<Object>> parts) {
    int size = 0;
    for (List<Object> p : parts) {
      size += p == null ? 0 : p.size();
    }
    List<Object> out = new ArrayList<>(size);
    for (List<Object> p : parts) {
      if (p != null) {
        out.addAll(p);
      }
    }
    return out;
  }

  /** Runs {@code task} for every partition selected, in parallel on the pool, and waits for all of them. */
  private void forEachPartition(int count, IntPredicate selected, IntConsumer task) {
    pool.forEachPartition(count, selected, task);
  }

  /** How many records the sinks staged in the current (or last) commit phase. */
  long stagedOutputs() {
    return staged;
  }

  // ---------------------------------------------------------------- lifecycle

  /** The epoch of the commit phase was committed: the next commit phase may start. */
  void endEpoch() {
    epoch = null;
  }

  /** The attempt of {@code txid} failed: every state and sink drops what the attempt cached or staged. */
  void abort(long txid) {
    epoch = null;
    for (State[] parts : states.values()) {
      for (State s : parts) {
        try {
          s.abort();
        } catch (RuntimeException e) {
          LOG.warn("abort({}) of a state failed", txid, e);
        }
      }
    }
    for (Node.SinkNode s : sinks) {
      try {
        s.sink.abort(txid);
      } catch (RuntimeException e) {
        LOG.warn("abort({}) of sink '{}' ({}) failed", txid, s.sinkName, s.sink.describe(), e);
      }
    }
  }

  /** @return the sinks that stage in the checkpoint's outbox, as {@code "'name' (description)"} */
  List<String> sinksNeedingOutbox() {
    List<String> out = new ArrayList<>();
    for (Node.SinkNode s : sinks) {
      if (s.sink.needsOutbox()) {
        out.add("'" + s.sinkName + "' (" + s.sink.describe() + ")");
      }
    }
    return out;
  }

  /**
   * The pipeline starts after committed txid {@code committedTxid}, whose outputs the checkpoint kept in
   * {@code outbox}: opens every sink with its part of it.
   *
   * @throws SinkPublishException if a sink fails to open (to publish what it recovered)
   */
  void openSinks(long committedTxid, List<OutboxEntry> outbox) {
    for (Node.SinkNode s : sinks) {
      List<OutboxEntry> mine = new ArrayList<>();
      for (OutboxEntry e : outbox) {
        if (e.sink().equals(s.sinkName)) {
          mine.add(e);
        }
      }
      try {
        s.sink.open(new SinkContext(pipeline, s.sinkName, partitions, committedTxid, mine));
      } catch (RuntimeException e) {
        throw new SinkPublishException(pipeline, s.sinkName, committedTxid, e);
      }
    }
    for (OutboxEntry e : outbox) {
      if (sinks.stream().noneMatch(s -> s.sinkName.equals(e.sink()))) {
        LOG.warn("pipeline '{}': the outbox holds {} of sink '{}', which the pipeline no longer declares; it is not"
            + " published", pipeline, e, e.sink());
      }
    }
  }

  /**
   * Batch {@code txid} is durable: every sink publishes what it staged (all of them, even after one failed).
   *
   * @throws SinkPublishException for the first sink that failed; the batch stays committed and its outputs stay in
   *     the checkpoint's outbox
   */
  void afterCommit(long txid) {
    SinkPublishException first = null;
    for (Node.SinkNode s : sinks) {
      try {
        s.sink.afterCommit(txid);
      } catch (RuntimeException e) {
        SinkPublishException failure = new SinkPublishException(pipeline, s.sinkName, txid, e);
        if (first == null) {
          first = failure;
        } else {
          first.addSuppressed(failure);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /** Stops the pool, closes every closeable state and every sink. */
  @Override
  public void close() {
    pool.close();
    for (Node.SinkNode s : sinks) {
      try {
        s.sink.close();
      } catch (RuntimeException e) {
        LOG.warn("closing sink '{}' ({}) of pipeline '{}' failed", s.sinkName, s.sink.describe(), pipeline, e);
      }
    }
    for (State[] parts : states.values()) {
      for (State s : parts) {
        if (s instanceof AutoCloseable c) {
          try {
            c.close();
          } catch (Exception e) {
            LOG.warn("closing a state of pipeline '{}' failed", pipeline, e);
          }
        }
      }
    }
  }
}
