package io.epochal.pipeline.internal;

import io.epochal.errors.BatchFailedException;
import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.GuaranteeNotDeliverableException;
import io.epochal.errors.InvalidRecordException;
import io.epochal.errors.StoreException;
import io.epochal.pipeline.BatchReport;
import io.epochal.pipeline.Guarantee;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineListener;
import io.epochal.pipeline.PipelineMetrics;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.pipeline.RunSummary;
import io.epochal.pipeline.Sleeper;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.NonTransactionalSpout;
import io.epochal.spout.OpaqueSpout;
import io.epochal.spout.Spout;
import io.epochal.spout.TransactionalSpout;
import io.epochal.state.State;
import io.epochal.state.StateContext;
import io.epochal.store.Checkpoint;
import io.epochal.store.CheckpointStore;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The coordinator and executor of a built pipeline.
 *
 * <p>Protocol, per batch: the coordinator fixes the batch's metadata (from the previous batch's, in txid order, on
 * the coordinator thread), records it as pending for transactional spouts, emits it, and runs the stateless
 * operations before the first state access (the process phase, possibly overlapping up to
 * {@code maxBatchesInFlight} batches). Then, strictly in txid order, it runs the state operations (the commit
 * phase: per partition, in parallel, {@code beginCommit → update → commit}, only for partitions with records) and
 * records the batch as committed in the {@link CheckpointStore}. A failed attempt aborts every state, waits
 * (backoff) and replays the same txid; for opaque and non-transactional spouts the batches in flight behind it are
 * discarded and re-emitted after it, so no input range is ever emitted under two txids.
 *
 * <p>Failures: {@link EpochalException#isRetryable(Throwable)} decides. A retryable failure is replayed up to the
 * {@link RetryPolicy}; any other (a typed non-retryable error, an {@link Error}, an I/O failure no retry fixes such as a
 * full disk) stops the pipeline at its first occurrence, before any retry.
 *
 * <p>Attempt numbers: every emission of a txid gets an attempt number above every earlier emission of that txid, also
 * across batches dropped behind a failed one and across restarts, as far as the checkpoint store keeps the reservation
 * ({@link CheckpointStore#reserveAttempts}): a txid an earlier run may have started (up to its committed txid plus its
 * window) continues above that run's reserved ceiling, any other txid begins at attempt 1. The reservation costs one
 * checkpoint write when the pipeline starts its first batch, and another only when failures pile up on one txid.
 */
public final class Engine implements Pipeline {
  private static final Logger LOG = LoggerFactory.getLogger(Engine.class);
  static final String MDC_TXID = "epochal.txid";

  /** Engine settings fixed by the builder. */
  public record Config(String name, int partitions, int threads, int maxBatchesInFlight, RetryPolicy retryPolicy,
      Guarantee guarantee, CheckpointStore checkpointStore, List<PipelineListener> listeners, Sleeper sleeper) {
  }

  private final Config config;
  private final List<Node> nodes;
  private final Spout<Object, Object> spout;
  private final Map<String, State[]> states = new HashMap<>();
  private final ExecutorService pool;
  private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
  /**
   * Per node id: whether the commit phase reads the node's process-phase output. The others are dropped as soon as
   * the process phase ends, so a batch waiting for its commit holds only what its commit reads (typically the
   * pre-aggregated parts), not its records: less for the garbage collector to copy.
   */
  private final boolean[] keptForCommit;
  /** Per node id: whether another node consumes the node's output (an aggregate's new values). */
  private final boolean[] consumed;

  private long committedTxid;
  private Optional<Object> committedMeta;
  private SortedMap<Long, byte[]> recoveredPending;

  /** The attempt ceiling of earlier runs, as loaded: txids up to {@link #inheritedHorizon} start above it. */
  private final long inheritedCeiling;
  /** The last txid an earlier run may have started: the loaded committed txid plus the reserved window. */
  private final long inheritedHorizon;
  /** What this run reserved so far (initially what earlier runs reserved). */
  private long attemptCeiling;
  private long txidWindow;
  /** Attempt numbers reserved at a time: enough for one run's attempts of a txid unless failures pile up. */
  private final long attemptBlock;
  private boolean reservationsPersist = true;
  /** The highest attempt number this run started, per txid not yet committed. */
  private final TreeMap<Long, Integer> lastAttempt = new TreeMap<>();
  private boolean closed;
  private boolean failed;

  private long batchesCommitted;
  private long failedAttempts;
  private long recordsCommitted;
  private long totalCommitNanos;
  private long maxCommitNanos;

  @SuppressWarnings("unchecked")
  public Engine(Config config, Graph.Snapshot graph) {
    this.config = Objects.requireNonNull(config, "config");
    this.nodes = graph.nodes();
    this.spout = (Spout<Object, Object>) graph.spout();
    for (Node node : nodes) {
      if (node instanceof Node.StateNode s && s.writes) {
        State[] parts = new State[config.partitions()];
        for (int p = 0; p < parts.length; p++) {
          parts[p] = Objects.requireNonNull(
              s.factory.makeState(new StateContext(config.name(), s.stateName, p, parts.length)),
              "state factory of '" + s.stateName + "' returned null");
        }
        states.put(s.stateName, parts);
      }
    }
    this.pool = config.threads() > 1 ? Executors.newFixedThreadPool(config.threads(), daemonThreads(config.name()))
        : null;
    this.keptForCommit = new boolean[nodes.size()];
    this.consumed = new boolean[nodes.size()];
    for (Node node : nodes) {
      if (node.parent == null) {
        continue;
      }
      consumed[node.parent.id] = true;
      if (!node.preState && !(node instanceof Node.Aggregate && node.parent.preState)) {
        keptForCommit[node.parent.id] = true;
      }
    }
    Checkpoint checkpoint = config.checkpointStore().load(config.name());
    this.committedTxid = checkpoint.committedTxid();
    this.committedMeta = checkpoint.hasCommitted()
        ? Optional.of(spout.metadataCodec().decode(checkpoint.committedMetadata()))
        : Optional.empty();
    this.recoveredPending = checkpoint.pendingMetadata();
    this.inheritedCeiling = checkpoint.attemptCeiling();
    this.inheritedHorizon = checkpoint.committedTxid() + checkpoint.txidWindow();
    this.attemptCeiling = inheritedCeiling;
    this.txidWindow = checkpoint.txidWindow();
    this.attemptBlock = Math.max(1L, (long) config.retryPolicy().maxAttempts() * config.maxBatchesInFlight());
    if (checkpoint.hasCommitted()) {
      LOG.info("pipeline '{}' resumes after committed txid {} ({} pending batch(es) to replay)", config.name(),
          committedTxid, recoveredPending.size());
    }
  }

  /**
   * Computes why an {@code EXACTLY_ONCE} pipeline could not deliver it, from the spout kind, each written state's
   * kind, and whether the state commits atomically with the epoch.
   *
   * @return empty when exactly-once is deliverable
   */
  public static Optional<String> whyNotExactlyOnce(Graph.Snapshot graph, CheckpointStore checkpoints) {
    Spout<?, ?> spout = graph.spout();
    for (Node node : graph.nodes()) {
      if (!(node instanceof Node.StateNode s) || !s.writes) {
        continue;
      }
      String state = "state '" + s.stateName + "' (" + s.factory.describe() + ")";
      String spoutDesc = "spout '" + spout.name() + "' (" + spout.kind() + ")";
      switch (s.factory.kind()) {
        case NON_TRANSACTIONAL -> {
          if (!checkpoints.commitsAtomicallyWith(s.factory)) {
            return Optional.of(spoutDesc + " writes " + state + ", which applies a replayed batch twice on the "
                + "per-key protocol. Fix: use a TransactionalMap (with a transactional spout) or an OpaqueMap, "
                + "or a store that commits state with the epoch atomically; or opt in to AT_LEAST_ONCE.");
          }
        }
        case READ_ONLY -> {
          return Optional.of(state + " is read-only and cannot be written. Fix: write a map state instead.");
        }
        default -> {
        }
      }
      switch (spout.kind()) {
        case NON_TRANSACTIONAL -> {
          return Optional.of(spoutDesc + " cannot replay a failed batch, so " + state + " may lose or change it. "
              + "Fix: use a transactional or opaque spout, or opt in to AT_MOST_ONCE or AT_LEAST_ONCE.");
        }
        case OPAQUE -> {
          if (checkpoints.commitsAtomicallyWith(s.factory)) {
            break;
          }
          if (s.factory.kind() == io.epochal.state.StateKind.TRANSACTIONAL) {
            return Optional.of(spoutDesc + " may re-cut a replayed batch, and " + state + " skips keys it already "
                + "wrote under that txid (losing records) or counts records twice across txids. Fix: use a "
                + "transactional spout, or a store that commits state with the epoch atomically (RocksDB or "
                + "YTsaurus epoch commit); or opt in to AT_LEAST_ONCE.");
          }
          return Optional.of(spoutDesc + " may re-cut a replayed batch, and on the per-key (Trident) protocol "
              + state + " keeps the failed attempt's value for every key the re-cut batch no longer contains, "
              + "so the next batch counts those records again (Storm Trident has the same hole). Fix: use a "
              + "transactional spout, or a store that commits state with the epoch atomically (RocksDB or "
              + "YTsaurus epoch commit, or the in-memory table store); or opt in to AT_LEAST_ONCE.");
        }
        case TRANSACTIONAL -> {
        }
      }
    }
    return Optional.empty();
  }

  /** Validates the requested guarantee; throws when EXACTLY_ONCE is requested but not deliverable. */
  public static void validate(String pipeline, Guarantee requested, Graph.Snapshot graph,
      CheckpointStore checkpoints) {
    for (Node node : graph.nodes()) {
      if (node instanceof Node.StateNode s && s.writes && s.factory.requiresAtomicCommit()
          && !checkpoints.commitsAtomicallyWith(s.factory)) {
        throw new IllegalArgumentException("Pipeline '" + pipeline + "': state '" + s.stateName + "' ("
            + s.factory.describe() + ") buffers its rows until its own checkpoint store commits them, but the "
            + "pipeline's checkpoint store is " + checkpoints.describe() + ". Build the pipeline with "
            + ".checkpointStore(...) set to the checkpoint store the state was made with.");
      }
    }
    Optional<String> why = whyNotExactlyOnce(graph, checkpoints);
    if (why.isEmpty()) {
      return;
    }
    if (requested == Guarantee.EXACTLY_ONCE) {
      throw new GuaranteeNotDeliverableException("Pipeline '" + pipeline + "' cannot deliver EXACTLY_ONCE: "
          + why.get());
    }
    LOG.warn("pipeline '{}' runs {} by explicit opt-in; it is not exactly-once because: {}", pipeline, requested,
        why.get());
  }

  @Override
  public String name() {
    return config.name();
  }

  @Override
  public Guarantee guarantee() {
    return config.guarantee();
  }

  @Override
  public RunSummary runUntilIdle() {
    return run(Long.MAX_VALUE);
  }

  @Override
  public synchronized RunSummary run(long maxBatches) {
    if (maxBatches < 0) {
      throw new IllegalArgumentException("maxBatches must be >= 0, was " + maxBatches);
    }
    if (closed) {
      throw new IllegalStateException("pipeline '" + config.name() + "' is closed");
    }
    if (failed) {
      throw new IllegalStateException("pipeline '" + config.name() + "' stopped after a failure; build a new "
          + "pipeline over the same stores to resume from the last committed txid");
    }
    long startTxid = committedTxid;
    long startFailures = failedAttempts;
    long records = 0;
    long done = 0;
    try {
      while (done < maxBatches) {
        fillWindow(maxBatches - done);
        if (inFlight.isEmpty()) {
          break;
        }
        InFlight head = inFlight.peekFirst();
        MDC.put(MDC_TXID, Long.toString(head.txid));
        try {
          long started = System.nanoTime();
          commitHead(head);
          long nanos = System.nanoTime() - started;
          inFlight.removeFirst();
          done++;
          records += head.records;
          onCommitted(head, nanos);
        } catch (RuntimeException | Error e) {
          handleFailure(head, e);
        } finally {
          MDC.remove(MDC_TXID);
        }
      }
    } catch (RuntimeException | Error e) {
      failed = true;
      discardInFlight();
      throw e;
    }
    return new RunSummary(done == 0 ? 0 : startTxid + 1, committedTxid, done, failedAttempts - startFailures,
        records);
  }

  @Override
  public synchronized long lastCommittedTxid() {
    return committedTxid;
  }

  @Override
  public synchronized PipelineMetrics metrics() {
    return new PipelineMetrics(batchesCommitted, failedAttempts, recordsCommitted, committedTxid, totalCommitNanos,
        maxCommitNanos);
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    discardInFlight();
    if (pool != null) {
      pool.shutdownNow();
    }
    for (State[] parts : states.values()) {
      for (State s : parts) {
        if (s instanceof AutoCloseable c) {
          try {
            c.close();
          } catch (Exception e) {
            LOG.warn("closing a state of pipeline '{}' failed", config.name(), e);
          }
        }
      }
    }
    spout.close();
  }

  // ---------------------------------------------------------------- emission and process phase

  /** One batch between its first emission and its commit. */
  private static final class InFlight {
    final long txid;
    /** The attempt number of the current emission; 0 before the first one. */
    int attempt;
    /** How many tries of this batch began (the retry policy counts them). */
    int tries = 1;
    /** The batch's metadata once known (transactional: fixed before emission; opaque: after emission). */
    Optional<Object> meta = Optional.empty();
    byte[] metaBytes;
    /** How many records the current attempt emitted (the records themselves go to the process phase only). */
    int records;
    Future<Object[]> processed;

    InFlight(long txid) {
      this.txid = txid;
    }

    BatchAttempt attemptId() {
      return new BatchAttempt(txid, Math.max(1, attempt));
    }
  }

  private void fillWindow(long remaining) {
    while (inFlight.size() < config.maxBatchesInFlight() && inFlight.size() < remaining) {
      InFlight last = inFlight.peekLast();
      if (last != null && last.meta.isEmpty()) {
        return; // the last batch's emission failed: its metadata is unknown, nothing can follow it yet
      }
      long txid = committedTxid + inFlight.size() + 1;
      Optional<Object> previous = last == null ? committedMeta : last.meta;
      InFlight batch = new InFlight(txid);
      MDC.put(MDC_TXID, Long.toString(txid));
      try {
        if (!start(batch, previous)) {
          return;
        }
      } finally {
        MDC.remove(MDC_TXID);
      }
      inFlight.addLast(batch);
    }
  }

  /** Fixes the metadata of a new batch and emits it; false when the spout has nothing new. */
  private boolean start(InFlight batch, Optional<Object> previous) {
    try {
      if (spout instanceof TransactionalSpout<Object, Object> tx) {
        byte[] recovered = recoveredPending.get(batch.txid);
        Object meta;
        if (recovered != null) {
          meta = tx.metadataCodec().decode(recovered);
          batch.metaBytes = recovered;
          LOG.info("pipeline '{}' replays recovered batch txid {} with its recorded metadata", config.name(),
              batch.txid);
        } else {
          Optional<Object> next = tx.nextBatch(batch.txid, previous);
          if (next.isEmpty()) {
            return false;
          }
          meta = next.get();
          batch.metaBytes = tx.metadataCodec().encode(meta);
          config.checkpointStore().recordPending(config.name(), batch.txid, batch.metaBytes);
        }
        batch.meta = Optional.of(meta);
      } else if (spout instanceof OpaqueSpout<Object, Object> op) {
        if (!op.isReady(batch.txid, previous)) {
          return false;
        }
      } else if ((Spout<?, ?>) spout instanceof NonTransactionalSpout<?> rawNt) {
        @SuppressWarnings("unchecked")
        NonTransactionalSpout<Object> nt = (NonTransactionalSpout<Object>) rawNt;
        if (!nt.isReady(batch.txid)) {
          return false;
        }
        batch.meta = Optional.of(new byte[0]);
        batch.metaBytes = new byte[0];
      }
    } catch (RuntimeException e) {
      batch.processed = CompletableFuture.failedFuture(e);
      return true;
    }
    emitAndProcess(batch, previous);
    return true;
  }

  /** Emits the batch (this attempt) on the coordinator thread, then schedules its process phase. */
  private void emitAndProcess(InFlight batch, Optional<Object> previous) {
    ListCollector out;
    try {
      batch.attempt = nextAttempt(batch.txid);
      out = new ListCollector(spout.name(), batch.attemptId(), context(batch.txid));
    } catch (RuntimeException e) {
      batch.records = 0;
      batch.processed = CompletableFuture.failedFuture(e);
      return;
    }
    try {
      if (spout instanceof TransactionalSpout<Object, Object> tx) {
        tx.emit(batch.attemptId(), batch.meta.orElseThrow(), out);
      } else if (spout instanceof OpaqueSpout<Object, Object> op) {
        Object meta = op.emit(batch.attemptId(), previous, out);
        if (meta == null) {
          throw new EpochalException("opaque spout '" + spout.name() + "' returned null metadata from emit ("
              + batch.attemptId() + "); it must return the position after the emitted records", null, false,
              context(batch.txid));
        }
        batch.meta = Optional.of(meta);
        batch.metaBytes = op.metadataCodec().encode(meta);
      } else if ((Spout<?, ?>) spout instanceof NonTransactionalSpout<?> rawNt) {
        @SuppressWarnings("unchecked")
        NonTransactionalSpout<Object> nt = (NonTransactionalSpout<Object>) rawNt;
        nt.emit(batch.attemptId(), out);
      }
      batch.records = out.records.size();
    } catch (RuntimeException e) {
      batch.records = 0;
      batch.processed = CompletableFuture.failedFuture(e);
      return;
    }
    List<Object> records = out.records;
    ErrorContext ctx = context(batch.txid);
    if (pool == null) {
      try {
        batch.processed = CompletableFuture.completedFuture(processPhase(records, ctx));
      } catch (RuntimeException e) {
        batch.processed = CompletableFuture.failedFuture(e);
      }
    } else {
      batch.processed = CompletableFuture.supplyAsync(() -> processPhase(records, ctx), pool);
    }
  }

  /** The pipeline and {@code txid}, for errors. */
  private ErrorContext context(long txid) {
    return ErrorContext.NONE.withPipeline(config.name()).withTxid(txid);
  }

  /**
   * The attempt number of a new emission of {@code txid}: above every earlier emission of it in this run, and above
   * the inherited ceiling if an earlier run may have started it; reserved in the checkpoint store before use.
   */
  private int nextAttempt(long txid) {
    Integer last = lastAttempt.get(txid);
    long floor = last != null ? last : txid <= inheritedHorizon ? inheritedCeiling : 0;
    long attempt = floor + 1;
    if (attempt > Integer.MAX_VALUE) {
      throw new EpochalException("Pipeline '" + config.name() + "': the attempt numbers of txid " + txid
          + " are exhausted (" + floor + " reserved by earlier runs and failures); no attempt number above them is "
          + "left. Run the pipeline under a new name (a new checkpoint).", null, false, context(txid));
    }
    reserve(attempt);
    lastAttempt.put(txid, (int) attempt);
    return (int) attempt;
  }

  /**
   * Makes sure {@code attempt} and this run's window are covered by the persisted reservation (one write when not).
   * The window bounds which txids this run can start: never more than {@code maxBatchesInFlight} above the committed
   * txid, which only grows, so a later run knows every txid this one may have started.
   */
  private void reserve(long attempt) {
    long window = config.maxBatchesInFlight();
    if (attempt <= attemptCeiling && window <= txidWindow) {
      return;
    }
    long ceiling = attempt <= attemptCeiling ? attemptCeiling
        : Math.min(Integer.MAX_VALUE, attempt - 1 + attemptBlock);
    long reservedWindow = Math.max(window, txidWindow);
    if (reservationsPersist) {
      try {
        config.checkpointStore().reserveAttempts(config.name(), ceiling, reservedWindow);
      } catch (UnsupportedOperationException e) {
        reservationsPersist = false;
        LOG.warn("pipeline '{}': checkpoint store {} does not keep attempt reservations, so after a restart an "
            + "attempt of a txid may repeat the number of an earlier run's attempt ({})", config.name(),
            config.checkpointStore().describe(), e.getMessage());
      }
    }
    attemptCeiling = ceiling;
    txidWindow = reservedWindow;
  }

  /** Runs every node that needs no state, plus the pre-aggregation of aggregates fed by such nodes. */
  private Object[] processPhase(List<Object> records, ErrorContext ctx) {
    Object[] outputs = new Object[nodes.size()];
    for (Node node : nodes) {
      if (node instanceof Node.Source) {
        outputs[node.id] = records;
      } else if (node.preState && node instanceof Node.Stateless op) {
        outputs[node.id] = op.apply(outputs[node.parent.id], ctx);
      } else if (node instanceof Node.Aggregate agg && agg.parent.preState) {
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

  private void commitHead(InFlight head) {
    Object[] outputs = awaitProcessed(head);
    BatchAttempt batch = head.attemptId();
    ErrorContext ctx = context(head.txid);
    for (Node node : nodes) {
      if (node instanceof Node.Source || node.preState) {
        continue;
      }
      Object input = outputs[node.parent.id];
      if (node instanceof Node.Stateless op) {
        outputs[node.id] = op.apply(input, ctx);
      } else if (node instanceof Node.Aggregate agg) {
        List<Map<Object, Object>> pre = outputs[node.id] instanceof PreAggregated p ? p.parts()
            : agg.preAggregate(input, ctx);
        outputs[node.id] = applyAggregate(agg, batch, pre, ctx);
      } else if (node instanceof Node.Persist persist) {
        applyPersist(persist, batch, input);
        outputs[node.id] = List.of();
      } else if (node instanceof Node.Query query) {
        outputs[node.id] = applyQuery(query, batch, input, ctx);
      } else {
        throw new IllegalStateException("unexpected node " + node);
      }
    }
    commitCheckpoint(head);
  }

  private Object[] awaitProcessed(InFlight head) {
    try {
      return head.processed.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException re) {
        throw re;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new EpochalException("process phase of txid " + head.txid + " failed: " + cause, cause,
          EpochalException.isRetryable(cause), context(head.txid));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new EpochalException("interrupted while waiting for txid " + head.txid, e, false, context(head.txid));
    }
  }

  private List<Object> applyAggregate(Node.Aggregate agg, BatchAttempt batch, List<Map<Object, Object>> parts,
      ErrorContext ctx) {
    State[] partStates = states.get(agg.stateName);
    List<List<Object>> outs = emptyParts(parts.size());
    boolean keepNewValues = consumed[agg.id];
    forEachPartition(parts.size(), p -> !parts.get(p).isEmpty(), p -> {
      State state = partStates[p];
      state.beginCommit(batch.txid());
      outs.set(p, agg.applyPartition(state, batch, parts.get(p), keepNewValues, ctx));
      state.commit(batch.txid());
    });
    return concat(outs);
  }

  private void applyPersist(Node.Persist persist, BatchAttempt batch, Object input) {
    List<List<Object>> parts = partitionRecords(input);
    State[] partStates = states.get(persist.stateName);
    forEachPartition(parts.size(), p -> !parts.get(p).isEmpty(), p -> {
      State state = partStates[p];
      state.beginCommit(batch.txid());
      persist.applyPartition(state, batch, parts.get(p));
      state.commit(batch.txid());
    });
  }

  @SuppressWarnings("unchecked")
  private List<Object> applyQuery(Node.Query query, BatchAttempt batch, Object input, ErrorContext ctx) {
    List<Object> records = input instanceof KeyedBatch k ? concat(k.records) : (List<Object>) input;
    int partitions = config.partitions();
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
    State[] partStates = states.get(query.stateName);
    List<List<Object>> outs = emptyParts(partitions);
    forEachPartition(partitions, p -> !parts.get(p).isEmpty(),
        p -> outs.set(p, query.applyPartition(partStates[p], batch, parts.get(p), ctx)));
    return concat(outs);
  }

  /** A persist's input split by partition: by key for a grouped input, round-robin for a flat one. */
  @SuppressWarnings("unchecked")
  private List<List<Object>> partitionRecords(Object input) {
    if (input instanceof KeyedBatch k) {
      return k.records;
    }
    List<Object> records = (List<Object>) input;
    int partitions = config.partitions();
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
  private void forEachPartition(int partitions, java.util.function.IntPredicate selected,
      java.util.function.IntConsumer task) {
    if (pool == null || partitions == 1) {
      for (int p = 0; p < partitions; p++) {
        if (selected.test(p)) {
          task.accept(p);
        }
      }
      return;
    }
    List<Future<?>> futures = new ArrayList<>(partitions);
    for (int p = 0; p < partitions; p++) {
      if (selected.test(p)) {
        int partition = p;
        futures.add(pool.submit(() -> task.accept(partition)));
      }
    }
    Throwable first = null;
    for (Future<?> f : futures) {
      try {
        f.get();
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (first == null || cause instanceof Error && !(first instanceof Error)) {
          first = cause instanceof RuntimeException || cause instanceof Error ? cause
              : new EpochalException("a partition task failed: " + cause, cause, EpochalException.isRetryable(cause),
                  ErrorContext.NONE.withPipeline(config.name()));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        first = first != null ? first : new EpochalException("interrupted while waiting for partitions", e, false,
            ErrorContext.NONE.withPipeline(config.name()));
      }
    }
    if (first != null) {
      throwUnchecked(first);
    }
  }

  private void commitCheckpoint(InFlight head) {
    CheckpointStore store = config.checkpointStore();
    try {
      store.commit(config.name(), head.txid, head.metaBytes);
    } catch (RuntimeException e) {
      Checkpoint reread;
      try {
        reread = store.load(config.name());
      } catch (RuntimeException again) {
        e.addSuppressed(again);
        throw e;
      }
      if (reread.committedTxid() == head.txid) {
        LOG.warn("pipeline '{}': checkpoint commit of txid {} reported {}, but the store shows it committed",
            config.name(), head.txid, e.toString());
        return;
      }
      throw e;
    }
  }

  private void onCommitted(InFlight head, long nanos) {
    committedTxid = head.txid;
    committedMeta = head.meta;
    lastAttempt.headMap(head.txid, true).clear();
    if (!recoveredPending.isEmpty()) {
      recoveredPending = recoveredPending.tailMap(head.txid + 1);
    }
    batchesCommitted++;
    recordsCommitted += head.records;
    totalCommitNanos += nanos;
    maxCommitNanos = Math.max(maxCommitNanos, nanos);
    try {
      spout.success(head.txid);
    } catch (RuntimeException e) {
      LOG.warn("spout '{}' success({}) failed; the batch stays committed", spout.name(), head.txid, e);
    }
    BatchReport report = new BatchReport(head.txid, head.tries, head.records, nanos);
    for (PipelineListener l : config.listeners()) {
      l.onBatchCommitted(report);
    }
  }

  // ---------------------------------------------------------------- failures

  private void handleFailure(InFlight head, Throwable error) {
    abortStates(head.txid);
    if (!EpochalException.isRetryable(error)) {
      Throwable stop = stopping(head, error);
      LOG.error("pipeline '{}' stops at txid {} without retrying (no retry can fix this): {}", config.name(),
          head.txid, stop.getMessage());
      throwUnchecked(stop);
    }
    failedAttempts++;
    BatchAttempt attempt = head.attemptId();
    for (PipelineListener l : config.listeners()) {
      l.onAttemptFailed(attempt, error);
    }
    if (head.tries >= config.retryPolicy().maxAttempts()) {
      throw new BatchFailedException(config.name(), head.txid, head.tries, error);
    }
    LOG.warn("pipeline '{}' {} failed, replaying: {}", config.name(), attempt, error.toString());
    try {
      config.sleeper().sleep(config.retryPolicy().backoffAfter(head.tries));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BatchFailedException(config.name(), head.txid, head.tries, e);
    }
    head.tries++;
    if (spout.kind() != io.epochal.spout.SpoutKind.TRANSACTIONAL || head.meta.isEmpty()) {
      // Later batches were cut after this one's old emission: drop them, they are emitted again after it.
      while (inFlight.size() > 1) {
        InFlight dropped = inFlight.removeLast();
        if (dropped.processed != null) {
          dropped.processed.cancel(false);
        }
      }
    }
    if (head.meta.isEmpty() && spout instanceof TransactionalSpout<Object, Object>) {
      // The coordinator part failed before the batch's metadata was fixed: fix it again for the same txid.
      if (!start(head, committedMeta)) {
        inFlight.removeFirst(); // no data any more: nothing was emitted under this txid
      }
      return;
    }
    emitAndProcess(head, committedMeta);
  }

  private void abortStates(long txid) {
    try {
      config.checkpointStore().abort(config.name(), txid);
    } catch (RuntimeException e) {
      LOG.warn("abort({}) of the checkpoint store failed", txid, e);
    }
    for (State[] parts : states.values()) {
      for (State s : parts) {
        try {
          s.abort(txid);
        } catch (RuntimeException e) {
          LOG.warn("abort({}) of a state failed", txid, e);
        }
      }
    }
  }

  private void discardInFlight() {
    for (Iterator<InFlight> it = inFlight.iterator(); it.hasNext();) {
      InFlight b = it.next();
      if (b.processed != null) {
        b.processed.cancel(false);
      }
      it.remove();
    }
  }

  /**
   * What a non-retryable failure surfaces as: itself, except an I/O failure no retry fixes that is not already an
   * {@link EpochalException}, which becomes a non-retryable {@link StoreException} saying what to do (free disk space,
   * remount read-write, ...) and naming the pipeline and txid, with the original as its cause.
   */
  private Throwable stopping(InFlight head, Throwable error) {
    if (error instanceof EpochalException || error instanceof Error || !StoreException.isUnfixableIo(error)) {
      return error;
    }
    return StoreException.io("Pipeline '" + config.name() + "' stopped at txid " + head.txid, error,
        context(head.txid));
  }

  private static void throwUnchecked(Throwable e) {
    if (e instanceof RuntimeException re) {
      throw re;
    }
    if (e instanceof Error err) {
      throw err;
    }
    throw new EpochalException(e.toString(), e);
  }

  private static java.util.concurrent.ThreadFactory daemonThreads(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "epochal-" + name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** Collects emitted records; a null record is an error. */
  private static final class ListCollector implements io.epochal.spout.Collector<Object> {
    final List<Object> records = new ArrayList<>();
    private final String spout;
    private final BatchAttempt attempt;
    private final ErrorContext context;

    ListCollector(String spout, BatchAttempt attempt, ErrorContext context) {
      this.spout = spout;
      this.attempt = attempt;
      this.context = context;
    }

    @Override
    public void emit(Object record) {
      if (record == null) {
        throw new InvalidRecordException("spout '" + spout + "' emitted a null record in " + attempt, null, context);
      }
      records.add(record);
    }
  }
}
