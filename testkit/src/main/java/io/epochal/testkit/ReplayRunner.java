package io.epochal.testkit;

import io.epochal.pipeline.Guarantee;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.spout.Spout;
import io.epochal.spout.SpoutKind;
import io.epochal.store.CheckpointStore;
import io.epochal.store.InMemoryCheckpointStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs the schedules of one {@link ReplayCheck}: under each spout kind of the check, the schedule's failure-free
 * reference run and then the schedule itself, each on a fresh session of the target, through simulated restarts
 * ({@link ReplayHarness}) in virtual time, and compares the final state with the oracle. Immutable; thread-safe if
 * the target's suppliers are.
 *
 * @param target opens the stores and the pipeline of each run
 * @param name the pipeline's name
 * @param uniqueNames whether each run gets its own pipeline name (table-store targets)
 * @param guarantee the guarantee the pipeline is built with
 * @param oracle what the final state is compared with
 * @param maxAttempts attempts per txid before the pipeline gives up
 * @param maxRestarts simulated process restarts per run before the run fails
 * @param spoutKinds the spout kinds each schedule runs under
 * @param autoSpouts whether a kind the pipeline builder refuses is skipped rather than a failure
 * @param <T> the record type of the input
 * @param <K> the key type of the compared state
 * @param <V> the value type of the compared state
 */
record ReplayRunner<T, K, V>(ReplaySession.Target<T, K, V> target, String name, boolean uniqueNames,
    Guarantee guarantee, Oracle<T, K, V> oracle, int maxAttempts, int maxRestarts, List<SpoutKind> spoutKinds,
    boolean autoSpouts) {
  private static final AtomicInteger RUNS = new AtomicInteger();

  /**
   * The runner of a check's options, with the defaults for those not set (null): name {@code "replay-check"};
   * spout kinds: for a table-store target each kind in turn (one the builder refuses is skipped), else
   * {@code TRANSACTIONAL}; {@code EXACTLY_ONCE}; 50 attempts per txid and 50 restarts per run.
   */
  static <T, K, V> ReplayRunner<T, K, V> withDefaults(ReplaySession.Target<T, K, V> target, String name,
      boolean uniqueNames, boolean tableStore, SpoutKind spoutKind, Guarantee guarantee, Oracle<T, K, V> oracle,
      Integer maxAttempts, Integer maxRestarts) {
    List<SpoutKind> kinds = spoutKind != null ? List.of(spoutKind)
        : tableStore ? List.of(SpoutKind.TRANSACTIONAL, SpoutKind.OPAQUE) : List.of(SpoutKind.TRANSACTIONAL);
    return new ReplayRunner<>(target, name == null ? "replay-check" : name, uniqueNames,
        guarantee == null ? Guarantee.EXACTLY_ONCE : guarantee, oracle, maxAttempts == null ? 50 : maxAttempts,
        maxRestarts == null ? 50 : maxRestarts, kinds, spoutKind == null && tableStore);
  }

  /** See {@link ReplayCheck#run(ReplaySchedule)}. */
  ReplayResult<K, V> run(ReplaySchedule<T> schedule) {
    ReplayResult<K, V> last = null;
    ReplayResult<K, V> refused = null;
    for (SpoutKind kind : spoutKinds) {
      int runNo = RUNS.incrementAndGet();
      ReplayResult<K, V> reference = runOnce(schedule.failureFree(), runNo, true, kind, null, null);
      if (reference.error().isPresent()) {
        if (autoSpouts && isRefusal(reference.error().get())) {
          refused = reference; // this store does not make this spout kind exactly-once: not a claim to test
          continue;
        }
        throw new ReplayCheckFailure(reference);
      }
      Map<K, V> expected = oracle.isFailureFree() ? reference.actual() : oracle.expected(schedule.input());
      ReplayResult<K, V> result = runOnce(schedule, runNo, false, kind, expected,
          oracle.isFailureFree() ? null : reference.actual());
      if (!result.passed()) {
        return result;
      }
      last = result;
    }
    if (last == null) {
      throw new ReplayCheckFailure(refused);
    }
    return last;
  }

  private static boolean isRefusal(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof io.epochal.errors.GuaranteeNotDeliverableException) {
        return true;
      }
    }
    return false;
  }

  private ReplayResult<K, V> runOnce(ReplaySchedule<T> schedule, int runNo, boolean reference, SpoutKind spoutKind,
      Map<K, V> expected, Map<K, V> failureFree) {
    String pipeline = uniqueNames ? name + "-" + runNo + "-" + spoutKind.name().toLowerCase(java.util.Locale.ROOT)
        + (reference ? "-failure-free" : "") : name;
    Parallelism par = schedule.parallelism();
    ReplayTimeline timeline = new ReplayTimeline();
    timeline.partitions(par.partitions());
    FaultInjector faults = new FaultInjector(schedule.faults(), timeline);
    AtomicLong virtualNanos = new AtomicLong();
    Spout<T, ?> spout = spoutKind == SpoutKind.OPAQUE
        ? faults.wrap(KitSpouts.opaque("input", schedule.input(), schedule.cuts()))
        : faults.wrap(KitSpouts.transactional("input", schedule.input(), schedule.cuts()));
    CheckpointStore runCheckpoints = new InMemoryCheckpointStore();
    ReplaySession<T, K, V> session = target.open(faults, pipeline);
    timeline.restartNote(session.restartNote());
    ReplayHarness.Outcome outcome = null;
    Throwable error = null;
    Map<K, V> actual = null;
    try {
      outcome = ReplayHarness.runToEnd(incarnation -> {
        ReplayContext context = new ReplayContext(pipeline, incarnation, par, faults);
        PipelineBuilder builder = Pipeline.newBuilder(pipeline)
            .partitions(par.partitions())
            .threads(par.threads())
            .maxBatchesInFlight(par.maxBatchesInFlight())
            .guarantee(guarantee)
            .retryPolicy(new RetryPolicy(maxAttempts, Duration.ofMillis(10), Duration.ofSeconds(1)))
            .sleeper(d -> virtualNanos.addAndGet(d.toNanos()))
            .listener(timeline.listener());
        session.declare(builder.source(spout), context);
        CheckpointStore checkpoints = context.checkpointStore() != null ? context.checkpointStore() : runCheckpoints;
        builder.checkpointStore(faults.wrap(checkpoints));
        return builder.build();
      }, maxRestarts, timeline);
      actual = session.read(schedule.input(), par.partitions(), outcome.lastTxid());
    } catch (RuntimeException | AssertionError e) {
      error = e;
      timeline.stopped(e);
    } finally {
      session.close();
    }
    return new ReplayResult<>(schedule, reference ? "the failure-free run of the same input" : oracle.describe(),
        !reference && !oracle.isFailureFree(), expected, failureFree, actual, faults.fired(), faults.unfired(),
        timeline.events(), outcome, error, Duration.ofNanos(virtualNanos.get()), reference, spoutKind,
        faults.fencingViolations());
  }
}
