package io.epochal.testkit;

import io.epochal.api.Evolving;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.RunSummary;
import java.util.Objects;

/**
 * Runs a pipeline to the end through simulated process deaths: each {@link SimulatedCrash} abandons the pipeline
 * instance (like a killed process) and the harness builds a new incarnation (the factory decides whether over the same
 * store objects or over stores reopened from their durable part, as {@link ReplayCheck#forTableStore(ReplayCheck.StoreOpener,
 * io.epochal.store.table.KeyCodec, io.epochal.codec.Codec, io.epochal.state.StateKind)} does), which resumes after the
 * last committed txid. Deterministic: no threads of its own, no sleeps. {@link ReplayCheck} runs every
 * schedule through it.
 *
 * <p>Stateless and thread-safe: static methods only.
 *
 * @since 0.1.0
 */
@Evolving
public final class ReplayHarness {
  private ReplayHarness() {
  }

  /** Builds one incarnation of the pipeline under test; incarnation 0 is the first start. */
  @FunctionalInterface
  public interface PipelineFactory {
    /**
     * Builds the pipeline of one incarnation, over the run's stores.
     *
     * @param incarnation 0 for the first start, then +1 per simulated crash
     * @return a new, not yet run pipeline; the harness closes it when the incarnation ends
     */
    Pipeline build(int incarnation);
  }

  /**
   * What a replayed run went through.
   *
   * @param restarts how many times the pipeline was rebuilt after a simulated crash
   * @param failedAttempts attempts that failed and were retried, summed over incarnations
   * @param lastTxid the last committed txid at the end
   */
  public record Outcome(int restarts, long failedAttempts, long lastTxid) {
  }

  /**
   * Runs until the spout is idle, restarting after each simulated crash.
   *
   * @param factory builds the pipeline of each incarnation
   * @param maxRestarts a bound on restarts (a pipeline that keeps crashing fails the run)
   * @return the restarts, failed attempts and last committed txid of the run
   * @throws AssertionError if the pipeline crashed more than {@code maxRestarts} times
   * @throws RuntimeException whatever else stopped the pipeline (exhausted retries, state ahead, ...)
   */
  public static Outcome runToEnd(PipelineFactory factory, int maxRestarts) {
    return runToEnd(factory, maxRestarts, null);
  }

  /**
   * Like {@link #runToEnd(PipelineFactory, int)}, and records each restart in {@code timeline} (may be null).
   *
   * @param factory builds the pipeline of each incarnation
   * @param maxRestarts a bound on restarts (a pipeline that keeps crashing fails the run)
   * @param timeline where to record each restart, or {@code null} to record nothing
   * @return the restarts, failed attempts and last committed txid of the run
   * @throws AssertionError if the pipeline crashed more than {@code maxRestarts} times
   */
  public static Outcome runToEnd(PipelineFactory factory, int maxRestarts, ReplayTimeline timeline) {
    Objects.requireNonNull(factory, "factory");
    long failedAttempts = 0;
    for (int incarnation = 0; incarnation <= maxRestarts; incarnation++) {
      Pipeline pipeline = factory.build(incarnation);
      try {
        RunSummary summary = pipeline.runUntilIdle();
        failedAttempts += pipeline.metrics().failedAttempts();
        return new Outcome(incarnation, failedAttempts, summary.lastTxid());
      } catch (SimulatedCrash crash) {
        failedAttempts += pipeline.metrics().failedAttempts();
        if (timeline != null) {
          timeline.restarted(incarnation + 1, "the process died (" + crash.getMessage() + ") with txid "
              + pipeline.lastCommittedTxid() + " committed");
        }
      } finally {
        pipeline.close();
      }
    }
    throw new AssertionError("pipeline still crashing after " + maxRestarts + " restarts");
  }
}
