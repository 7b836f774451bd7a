package io.epochal.metrics.internal;

import io.epochal.errors.EpochalException;
import io.epochal.metrics.EpochalMetrics;
import io.epochal.pipeline.BatchReport;
import io.epochal.pipeline.PipelineListener;
import io.epochal.spout.BatchAttempt;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The meters of one pipeline, fed as its {@link PipelineListener}: per committed batch the batch, replay, record and
 * output counters, the records-per-batch summary, the commit timer and one timer per phase (each recorded exactly
 * once per committed batch), the last committed txid and the time of the commit (read by the commit-age gauge); per
 * failed attempt a counter tagged with the error's simple class name and whether it is retryable. Meter names are the
 * constants of {@link EpochalMetrics}.
 *
 * <p>Every meter but the failure counters is registered by the constructor. Time comes from the registry's clock.
 * Thread-safe (the engine calls it from the coordinator thread, a scrape reads it from another); never throws from a
 * callback unless the registry itself does.
 */
public final class PipelineMeters implements PipelineListener {
  private final MeterRegistry registry;
  private final String pipeline;
  private final Counter batches;
  private final Counter replayed;
  private final Counter recordsIn;
  private final Counter recordsOut;
  private final DistributionSummary batchRecords;
  private final Timer commit;
  private final Timer emit;
  private final Timer process;
  private final Timer state;
  private final Timer durable;
  private final AtomicLong lastTxid = new AtomicLong(-1);
  private final AtomicLong lastCommitMillis = new AtomicLong(-1);

  /**
   * Registers the pipeline's meters in {@code registry}, tagged {@code pipeline=<pipeline>}.
   *
   * @param registry where the counters, timers and gauges are registered
   * @param pipeline the value of the {@code pipeline} tag (the pipeline's name)
   * @throws NullPointerException if an argument is null
   */
  public PipelineMeters(MeterRegistry registry, String pipeline) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.pipeline = Objects.requireNonNull(pipeline, "pipeline");
    this.batches = counter(EpochalMetrics.BATCHES_COMMITTED, "batches committed");
    this.replayed = counter(EpochalMetrics.BATCHES_REPLAYED, "committed batches that needed more than one attempt");
    this.recordsIn = counter(EpochalMetrics.RECORDS_IN, "records the sources emitted in committed attempts");
    this.recordsOut = counter(EpochalMetrics.RECORDS_OUT, "records the sinks staged in committed attempts");
    this.batchRecords = DistributionSummary.builder(EpochalMetrics.BATCH_RECORDS)
        .description("records per committed batch")
        .tag("pipeline", pipeline)
        .publishPercentiles(0.5, 0.99)
        .register(registry);
    this.commit = Timer.builder(EpochalMetrics.BATCH_COMMIT)
        .description("commit phase of a committed batch: state writes and the durable commit")
        .tag("pipeline", pipeline)
        .publishPercentiles(0.5, 0.95, 0.99)
        .publishPercentileHistogram()
        .register(registry);
    this.emit = phase("emit");
    this.process = phase("process");
    this.state = phase("state");
    this.durable = phase("durable");
    Gauge.builder(EpochalMetrics.COMMITTED_TXID, lastTxid, AtomicLong::get)
        .description("the last txid this pipeline committed (-1 before its first commit here)")
        .tag("pipeline", pipeline)
        .register(registry);
    TimeGauge.builder(EpochalMetrics.COMMIT_AGE, this, TimeUnit.MILLISECONDS, PipelineMeters::ageMillis)
        .description("time since this pipeline's last commit (NaN before the first)")
        .tag("pipeline", pipeline)
        .register(registry);
  }

  private Counter counter(String name, String description) {
    return Counter.builder(name).description(description).tag("pipeline", pipeline).register(registry);
  }

  private Timer phase(String phase) {
    return Timer.builder(EpochalMetrics.BATCH_PHASE)
        .description("time per phase of a committed attempt")
        .tags("pipeline", pipeline, "phase", phase)
        .publishPercentiles(0.5, 0.99)
        .register(registry);
  }

  /** Milliseconds since the last commit by the registry's clock, NaN before the first. */
  private double ageMillis() {
    long last = lastCommitMillis.get();
    return last < 0 ? Double.NaN : registry.config().clock().wallTime() - last;
  }

  /** Records one committed batch: counters, the records summary, the commit and phase timers, txid and time. */
  @Override
  public void onBatchCommitted(BatchReport report) {
    batches.increment();
    if (report.attempts() > 1) {
      replayed.increment();
    }
    recordsIn.increment(report.records());
    recordsOut.increment(report.outputs());
    batchRecords.record(report.records());
    commit.record(report.commitNanos(), TimeUnit.NANOSECONDS);
    emit.record(report.emitNanos(), TimeUnit.NANOSECONDS);
    process.record(report.processNanos(), TimeUnit.NANOSECONDS);
    state.record(report.stateNanos(), TimeUnit.NANOSECONDS);
    durable.record(report.durableNanos(), TimeUnit.NANOSECONDS);
    lastTxid.set(report.txid());
    lastCommitMillis.set(registry.config().clock().wallTime());
  }

  /** Counts one failed attempt under its error type and retryability. */
  @Override
  public void onAttemptFailed(BatchAttempt attempt, Throwable cause) {
    Counter.builder(EpochalMetrics.ATTEMPTS_FAILED)
        .description("failed attempts by error type")
        .tags("pipeline", pipeline, "error", ErrorTypes.of(cause),
            "retryable", Boolean.toString(EpochalException.isRetryable(cause)))
        .register(registry)
        .increment();
  }
}
