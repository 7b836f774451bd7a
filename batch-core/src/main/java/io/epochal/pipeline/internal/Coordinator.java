package io.epochal.pipeline.internal;

import io.epochal.errors.BatchFailedException;
import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.GuaranteeNotDeliverableException;
import io.epochal.pipeline.BatchReport;
import io.epochal.pipeline.Guarantee;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineListener;
import io.epochal.pipeline.PipelineMetrics;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.pipeline.RunSummary;
import io.epochal.pipeline.Sleeper;
import io.epochal.pipeline.SourceLag;
import io.epochal.spout.BatchAttempt;
import io.epochal.store.Checkpoint;
import io.epochal.store.CheckpointEpoch;
import io.epochal.store.CheckpointStore;
import io.epochal.store.OutboxEntry;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The coordinator of a built pipeline: the window of batches in flight, their metadata, the durable commit and the
 * retries. The phases of a batch run in the {@link BatchExecutor}; the spout is reached through its
 * {@link BatchSource}; the guarantee was checked by {@link GuaranteeCheck} when the pipeline was built.
 *
 * <p>Protocol, per batch: the coordinator fixes the batch's metadata (from the previous batch's, in txid order, on
 * the coordinator thread), records it as pending for transactional spouts, emits it, and hands it to the executor's
 * process phase (possibly overlapping up to {@code maxBatchesInFlight} batches). Then, strictly in txid order, the
 * executor runs the commit phase and the coordinator records the batch as committed in the {@link CheckpointStore}.
 * A failed attempt aborts every state, waits (backoff) and replays the same txid; for opaque and non-transactional
 * spouts the batches in flight behind it are discarded and re-emitted after it, so no input range is ever emitted
 * under two txids.
 *
 * <p>Failures: {@link EpochalException#isRetryable(Throwable)} decides. A retryable failure is replayed up to the
 * {@link RetryPolicy}; any other (a typed non-retryable error, an {@link Error}, an I/O failure no retry fixes such as a
 * full disk) stops the pipeline at its first occurrence, before any retry. Attempt numbers come from
 * {@link AttemptNumbers}. Thread-safe (every public method is synchronized).
 *
 * <p>Delivery modes ({@link Guarantee}): {@code EXACTLY_ONCE} as above. {@code AT_LEAST_ONCE} records no pending
 * metadata (a replay after a restart is cut anew from the committed position) and opens epochs that do not
 * {@linkplain io.epochal.state.Epoch#skipsAppliedCells skip applied cells}. {@code AT_MOST_ONCE} records the batch's
 * position (its full spout metadata) as pending after the emission and before the process phase, and never replays a
 * batch whose position is recorded: a retryable failure of it, or finding it pending after a restart, commits its txid
 * with that position and nothing else (an empty epoch) and reports it to {@link PipelineListener#onBatchDropped}.
 */
public final class Coordinator implements Pipeline {
  private static final Logger LOG = LoggerFactory.getLogger(Coordinator.class);

  /** Engine settings fixed by the builder. */
  public record Config(String name, int partitions, int threads, int maxBatchesInFlight, RetryPolicy retryPolicy,
      Guarantee guarantee, CheckpointStore checkpointStore, List<PipelineListener> listeners, Sleeper sleeper) {
  }

  private final Config config;
  private final BatchSource source;
  /** The spouts' names, by source index. */
  private final List<String> spoutNames;
  private final SourceLags lags;
  private final BatchExecutor executor;
  private final AttemptNumbers attempts;
  private final PendingBatches pending;
  private final DurableCommits durable;
  private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();

  private long committedTxid;
  private Optional<Object> committedMeta;
  /** The outputs of the committed batch the checkpoint kept; handed to the sinks by the first run, then null. */
  private List<OutboxEntry> recoveredOutbox;
  private boolean closed;
  private boolean failed;
  /** Set by {@link #requestStop()} from any thread; the run loop stops at the next batch boundary. */
  private volatile boolean stopRequested;
  /** A run returned because a stop was requested: later runs are refused. */
  private boolean stopped;

  private long batchesCommitted;
  private long batchesDropped;
  /** Whether the batches an earlier run left pending were dropped ({@code AT_MOST_ONCE}, once, at the first run). */
  private boolean recoveredDropped;
  private long failedAttempts;
  private long recordsCommitted;
  private long totalCommitNanos;
  private long maxCommitNanos;

  /**
   * A pipeline over a built graph; the builder has validated the guarantee.
   *
   * @param config the engine settings fixed by the builder, not null
   * @param graph the built graph: its nodes, source spouts and partition count
   */
  public Coordinator(Config config, Graph.Snapshot graph) {
    this.config = Objects.requireNonNull(config, "config");
    this.source = BatchSource.of(graph.spouts());
    this.spoutNames = graph.spouts().stream().map(io.epochal.spout.Spout::name).toList();
    this.lags = new SourceLags(graph.spouts());
    this.executor = new BatchExecutor(config.name(), config.partitions(), config.threads(), graph.nodes(),
        config.checkpointStore());
    Checkpoint checkpoint = config.checkpointStore().load(config.name());
    this.committedTxid = checkpoint.committedTxid();
    this.committedMeta = checkpoint.hasCommitted()
        ? Optional.of(source.decode(checkpoint.committedMetadata()))
        : Optional.empty();
    this.recoveredOutbox = checkpoint.outbox();
    List<String> needOutbox = executor.sinksNeedingOutbox();
    if (!needOutbox.isEmpty() && !config.checkpointStore().keepsOutbox()) {
      throw new GuaranteeNotDeliverableException("Pipeline '" + config.name() + "': sink(s) " + needOutbox
          + " keep their outputs in the checkpoint's outbox until published, but "
          + config.checkpointStore().describe() + " keeps no outbox; use a checkpoint store that keeps one (the"
          + " in-memory checkpoint store, a table checkpoint store)");
    }
    this.attempts = new AttemptNumbers(config.name(), config.checkpointStore(), checkpoint,
        config.retryPolicy().maxAttempts(), config.maxBatchesInFlight());
    // Only EXACTLY_ONCE records a transactional cut before emission; AT_MOST_ONCE records every position itself.
    this.pending = new PendingBatches(config.name(), config.checkpointStore(), checkpoint.pendingMetadata(),
        config.guarantee() == Guarantee.EXACTLY_ONCE, config.guarantee() != Guarantee.AT_MOST_ONCE);
    this.durable = new DurableCommits(config, attempts);
    if (checkpoint.hasCommitted()) {
      LOG.info("pipeline '{}' resumes after committed txid {} ({} pending batch(es) to replay)", config.name(),
          committedTxid, pending.size());
    }
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
    if (failed || stopped) {
      throw new IllegalStateException("pipeline '" + config.name() + "' stopped " + (failed ? "after a failure"
          : "on request") + "; build a new pipeline over the same stores to resume from the last committed txid");
    }
    long startTxid = committedTxid;
    long startFailures = failedAttempts;
    long records = 0;
    long done = 0;
    String outerPipeline = LogContext.put(MDC_PIPELINE, config.name());
    try {
      if (recoveredOutbox != null) {
        executor.openSinks(committedTxid, recoveredOutbox); // publishes what the last process did not
        recoveredOutbox = null;
      }
      if (config.guarantee() == Guarantee.AT_MOST_ONCE && !recoveredDropped) {
        dropRecovered();
        recoveredDropped = true;
      }
      while (done < maxBatches && !stopRequested) {
        fillWindow(maxBatches - done);
        if (inFlight.isEmpty()) {
          break;
        }
        InFlight head = inFlight.peekFirst();
        MDC.put(MDC_TXID, Long.toString(head.txid));
        try {
          long started = System.nanoTime();
          try {
            commitHead(head);
          } catch (RuntimeException | Error e) {
            handleFailure(head, e);
            continue;
          }
          long nanos = System.nanoTime() - started;
          inFlight.removeFirst();
          done++;
          records += head.records;
          onCommitted(head, nanos); // a sink that fails to publish stops the pipeline: the batch stays committed
        } finally {
          MDC.remove(MDC_TXID);
        }
      }
    } catch (RuntimeException | Error e) {
      failed = true;
      discardInFlight();
      throw e;
    } finally {
      LogContext.restore(MDC_PIPELINE, outerPipeline);
    }
    if (stopRequested) {
      stopped = true;
      discardInFlight();
      LOG.info("pipeline '{}' stopped on request after committed txid {}", config.name(), committedTxid);
    }
    return new RunSummary(done == 0 ? 0 : startTxid + 1, committedTxid, done, failedAttempts - startFailures,
        records);
  }

  @Override
  public void requestStop() {
    stopRequested = true;
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
  public List<SourceLag> sourceLag() {
    return lags.read();
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    discardInFlight();
    executor.close();
    source.close();
  }

  // ---------------------------------------------------------------- window, emission

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
      if (!source.open(batch, previous, pending)) {
        return false;
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
    ErrorContext ctx = context(batch.txid);
    try {
      batch.attempt = attempts.next(batch.txid);
      ListCollector[] out = new ListCollector[spoutNames.size()];
      for (int i = 0; i < out.length; i++) {
        out[i] = new ListCollector(spoutNames.get(i), batch.attemptId(), ctx);
      }
      long emitStarted = System.nanoTime();
      source.emit(batch, previous, i -> out[i], ctx);
      batch.emitNanos = System.nanoTime() - emitStarted;
      if (config.guarantee() == Guarantee.AT_MOST_ONCE) {
        // The position goes to the store before anything is processed: from here on this batch is never replayed.
        config.checkpointStore().recordPending(config.name(), batch.txid, batch.metaBytes);
        batch.positionRecorded = true;
      }
      List<List<Object>> bySource = new ArrayList<>(out.length);
      int records = 0;
      for (ListCollector c : out) {
        bySource.add(c.records);
        records += c.records.size();
      }
      batch.records = records;
      batch.processed = executor.process(bySource, ctx, nanos -> batch.processNanos = nanos);
    } catch (RuntimeException e) {
      batch.records = 0;
      batch.processed = CompletableFuture.failedFuture(e);
    }
  }

  /** The pipeline and {@code txid}, for errors. */
  private ErrorContext context(long txid) {
    return ErrorContext.NONE.withPipeline(config.name()).withTxid(txid);
  }

  // ---------------------------------------------------------------- commit

  /** Opens the head's epoch, runs its commit phase in it, and commits the epoch: the batch is durable. */
  private void commitHead(InFlight head) {
    Object[] outputs = awaitProcessed(head);
    long started = System.nanoTime();
    CheckpointEpoch opened = config.checkpointStore().openEpoch(config.name(), head.attemptId());
    head.epoch = config.guarantee() == Guarantee.AT_LEAST_ONCE ? new ReapplyingEpoch(opened) : opened;
    List<OutboxEntry> outbox = executor.commitPhase(outputs, head.epoch, config.checkpointStore().keepsOutbox(),
        context(head.txid));
    long staged = System.nanoTime();
    head.stateNanos = staged - started;
    head.outputs = executor.stagedOutputs();
    commitEpoch(head, outbox);
    head.durableNanos = System.nanoTime() - staged;
    head.epoch = null;
    executor.endEpoch();
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

  /** The one call that makes a batch durable; a failure whose commit landed anyway (reply lost) counts as done. */
  private void commitEpoch(InFlight head, List<OutboxEntry> outbox) {
    durable.commit(head.epoch, head.txid, head.metaBytes, outbox);
  }


  private void onCommitted(InFlight head, long nanos) {
    committedTxid = head.txid;
    committedMeta = head.meta;
    attempts.committed(head.txid);
    pending.committed(head.txid);
    batchesCommitted++;
    recordsCommitted += head.records;
    totalCommitNanos += nanos;
    maxCommitNanos = Math.max(maxCommitNanos, nanos);
    RuntimeException unpublished = null;
    try {
      executor.afterCommit(head.txid);
    } catch (RuntimeException e) {
      unpublished = e;
    }
    try {
      source.success(head.txid);
    } catch (RuntimeException e) {
      LOG.warn("spout '{}' success({}) failed; the batch stays committed", source.name(), head.txid, e);
    }
    BatchReport report = new BatchReport(head.txid, head.tries, head.records, nanos, head.emitNanos,
        head.processNanos, head.stateNanos, head.durableNanos, head.outputs);
    for (PipelineListener l : config.listeners()) {
      l.onBatchCommitted(report);
    }
    if (unpublished != null) {
      LOG.error("pipeline '{}' stops after committed txid {}: {}", config.name(), head.txid, unpublished.getMessage());
      throw unpublished;
    }
  }

  // ---------------------------------------------------------------- failures

  private void handleFailure(InFlight head, Throwable error) {
    abort(head);
    BatchAttempt attempt = head.attemptId();
    for (PipelineListener l : config.listeners()) {
      l.onAttemptFailed(attempt, error); // every failed attempt, also the one that stops the pipeline
    }
    if (!EpochalException.isRetryable(error)) {
      Throwable stop = Failures.stopping(config.name(), head.txid, error, context(head.txid));
      LOG.error("pipeline '{}' stops at txid {} without retrying (no retry can fix this): {}", config.name(),
          head.txid, stop.getMessage());
      Failures.throwUnchecked(stop);
    }
    failedAttempts++;
    if (config.guarantee() == Guarantee.AT_MOST_ONCE && head.positionRecorded) {
      drop(head, error); // its position is recorded: processing may have begun, so it is never replayed
      return;
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
    if (!source.cutsBeforeEmission() || head.meta.isEmpty()) {
      // Later batches were cut after this one's old emission: drop them, they are emitted again after it.
      while (inFlight.size() > 1) {
        InFlight dropped = inFlight.removeLast();
        if (dropped.processed != null) {
          dropped.processed.cancel(false);
        }
      }
    }
    if (!source.opened(head)) {
      // The coordinator part failed before the batch's metadata was fixed: fix it again for the same txid.
      if (!start(head, committedMeta)) {
        inFlight.removeFirst(); // no data any more: nothing was emitted under this txid
      }
      return;
    }
    emitAndProcess(head, committedMeta);
  }

  /** AT_MOST_ONCE: drops the failed head (already aborted): commits its txid with its position and nothing else. */
  private void drop(InFlight head, Throwable cause) {
    durable.commitDropped(head.txid, head.metaBytes);
    inFlight.removeFirst(); // the batches behind it were cut after its position, which is now committed: they stay
    onDropped(head.txid, head.meta, cause);
  }

  /**
   * Drops the batches an earlier run recorded as pending and did not commit (their processing may have begun), in
   * txid order, before this run emits anything.
   */
  private void dropRecovered() {
    byte[] position;
    while ((position = pending.pendingAt(committedTxid + 1)) != null) {
      long txid = committedTxid + 1;
      EpochalException cause = durable.pendingAtRestart(txid, context(txid));
      Object meta = source.pendingPosition(position, committedMeta);
      durable.commitDropped(txid, source.encode(meta));
      onDropped(txid, Optional.of(meta), cause);
    }
  }

  private void onDropped(long txid, Optional<Object> position, Throwable cause) {
    committedTxid = txid;
    committedMeta = position;
    attempts.committed(txid);
    pending.committed(txid);
    batchesDropped++;
    LOG.warn("pipeline '{}' dropped batch txid {} (AT_MOST_ONCE: its records are not counted, {} dropped so far): {}",
        config.name(), txid, batchesDropped, cause.toString());
    try {
      source.success(txid);
    } catch (RuntimeException e) {
      LOG.warn("spout '{}' success({}) failed; the dropped batch stays committed", source.name(), txid, e);
    }
    for (PipelineListener l : config.listeners()) {
      l.onBatchDropped(txid, cause);
    }
  }

  /** Aborts the head's attempt: its epoch (or, before its commit phase, the store's buffer), then every state. */
  private void abort(InFlight head) {
    CheckpointEpoch epoch = head.epoch;
    head.epoch = null;
    try {
      if (epoch != null) {
        epoch.abort();
      } else {
        config.checkpointStore().abort(config.name(), head.txid);
      }
    } catch (RuntimeException e) {
      LOG.warn("abort({}) of the checkpoint store failed", head.txid, e);
    }
    executor.abort(head.txid);
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



}
