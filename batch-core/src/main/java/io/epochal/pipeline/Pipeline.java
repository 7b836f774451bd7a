package io.epochal.pipeline;

import io.epochal.api.Stable;
import java.util.List;

/**
 * A built pipeline: one source, a graph of operations and states, and a coordinator that cuts the input into
 * batches numbered by txid (from 1, growing by 1), commits them strictly in txid order and replays a failed batch
 * under the same txid. Build one with {@link #newBuilder(String)}.
 *
 * <p>A pipeline resumes after the last txid committed in its {@link io.epochal.store.CheckpointStore}: building a
 * new pipeline with the same name over the same stores continues where a crashed one stopped.
 *
 * <p>{@code run} methods are synchronized: one caller runs the pipeline at a time. After a run throws, or after a
 * run ended by {@link #requestStop()}, the pipeline refuses to run again; build a new one to resume.
 * {@link PipelineService} does that for a long-running process.
 *
 * <p>Logs written while a batch is worked on, on the coordinator thread and on the pipeline's worker threads, carry
 * the slf4j MDC entries {@link #MDC_PIPELINE} and {@link #MDC_TXID}.
 *
 * @since 0.1.0
 */
@Stable
public interface Pipeline extends AutoCloseable {

  /** The slf4j MDC key holding the pipeline's name while it runs. */
  String MDC_PIPELINE = "epochal.pipeline";

  /** The slf4j MDC key holding the txid of the batch being emitted, processed or committed. */
  String MDC_TXID = "epochal.txid";

  /**
   * Starts declaring a pipeline named {@code name} (the key of its checkpoint).
   *
   * @param name the pipeline's name, the key of its checkpoint in the checkpoint store
   * @return a new builder
   */
  static PipelineBuilder newBuilder(String name) {
    return new PipelineBuilder(name);
  }

  /**
   * The pipeline's name.
   *
   * @return the name given to {@link #newBuilder(String)}
   */
  String name();

  /**
   * The guarantee the pipeline was built for.
   *
   * @return the guarantee the builder checked it can deliver
   */
  Guarantee guarantee();

  /**
   * Runs batches until the spout has no new batch and every started batch is committed.
   *
   * @return what this call committed
   * @throws io.epochal.errors.BatchFailedException when a batch failed more often than the retry policy allows
   * @throws io.epochal.errors.EpochalException for an error a replay cannot fix (state ahead of the coordinator,
   *     invalid record, changed source, lost lease, corrupted state); nothing of the failing batch is committed
   */
  RunSummary runUntilIdle();

  /**
   * Runs until {@code maxBatches} more batches are committed or the spout is idle.
   *
   * @param maxBatches the most batches this call commits
   * @return what this call committed
   * @throws io.epochal.errors.BatchFailedException see {@link #runUntilIdle()}
   */
  RunSummary run(long maxBatches);

  /**
   * Asks a running (or the next) {@code run} to return at the next batch boundary: the batch whose commit has
   * begun finishes committing, the batches in flight behind it are discarded (nothing of them is durable; a new
   * pipeline replays them), and later runs throw {@link IllegalStateException}. Callable from any thread, never
   * blocks; idempotent.
   */
  void requestStop();

  /**
   * The last committed txid.
   *
   * @return the txid, 0 if none
   */
  long lastCommittedTxid();

  /**
   * Counters since the pipeline was built.
   *
   * @return a snapshot of the counters
   */
  PipelineMetrics metrics();

  /**
   * Reads now, on the calling thread, the lag of every source of the pipeline that can tell it (a spout that
   * implements {@link io.epochal.spout.LagReporting}: the Kafka and YTsaurus queue spouts), in the order the sources
   * were declared; a source that cannot tell its lag is not listed. A source whose read fails (unreachable, timed out,
   * closed) is listed with its {@link SourceLag#failure()}, never as a lag of 0. Callable from any thread while the
   * pipeline runs (the read never touches the coordinator's state); may block up to each source's own timeout (the
   * Kafka spouts: their API timeout, at most 10 s).
   *
   * @return one entry per lag-reporting source
   * @since 0.5.0
   */
  List<SourceLag> sourceLag();

  /** Stops worker threads, closes states that are {@link AutoCloseable} and the spout. Idempotent. */
  @Override
  void close();
}
