package io.epochal.testkit;

import io.epochal.api.Evolving;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What one {@link ReplayCheck#run(ReplaySchedule)} found: the expected and actual final state, the faults that fired,
 * the recorded timeline, and the error that stopped the run, if any. {@link #report()} renders it for a failure
 * message: the schedule, a numbered timeline, and the expected versus actual value of the differing keys only.
 *
 * <p>Immutable.
 *
 * @param <K> the key type of the state
 * @param <V> the value type of the state
 * @since 0.1.0
 */
@Evolving
public final class ReplayResult<K, V> {
  /** Differing keys shown in a report before the rest is summarized. */
  private static final int MAX_KEYS_SHOWN = 20;

  /**
   * A key whose value differs.
   *
   * @param expected the oracle's value, empty if the oracle has none
   * @param actual the run's value, empty if the run has none
   */
  public record Difference<V>(Optional<V> expected, Optional<V> actual) {
  }

  /**
   * What a run concluded, in the order a report checks it.
   *
   * @since 0.3.0
   */
  public enum Verdict {
    /** The run completed, its state equals the reference, and no fencing was violated. */
    PASSED,
    /** The run (faulty or failure-free reference) stopped with an error: see {@link #error()}. */
    STOPPED,
    /** The store accepted a stale worker's commit after a lease takeover: see {@link #fencingViolations()}. */
    FENCING_VIOLATED,
    /**
     * The failure-free run already differs from the model: the code is wrong without any fault (shown with the
     * model as "expected", the failure-free run and the faulty run beside it).
     */
    FAILURE_FREE_RUN_DIFFERS_FROM_MODEL,
    /** The faulty run's state differs from the model. */
    DIFFERS_FROM_MODEL,
    /** The faulty run's state differs from the failure-free run (the reference when there is no model). */
    DIFFERS_FROM_FAILURE_FREE_RUN
  }

  private final ReplaySchedule<?> schedule;
  private final String oracle;
  private final Map<K, V> expected;
  private final Map<K, V> actual;
  private final List<Fault> fired;
  private final List<Fault> unfired;
  private final List<TimelineEvent> timeline;
  private final ReplayHarness.Outcome outcome;
  private final Throwable error;
  private final Duration virtualWait;
  private final boolean reference;
  private final boolean model;
  private final Map<K, V> failureFree;
  private final io.epochal.spout.SpoutKind spout;
  private final List<String> violations;

  ReplayResult(ReplaySchedule<?> schedule, String oracle, boolean model, Map<K, V> expected, Map<K, V> failureFree,
      Map<K, V> actual, List<Fault> fired, List<Fault> unfired, List<TimelineEvent> timeline,
      ReplayHarness.Outcome outcome, Throwable error, Duration virtualWait, boolean reference,
      io.epochal.spout.SpoutKind spout, List<String> violations) {
    this.reference = reference;
    this.model = model;
    this.failureFree = failureFree == null ? null : Map.copyOf(failureFree);
    this.spout = spout;
    this.violations = List.copyOf(violations);
    this.schedule = Objects.requireNonNull(schedule, "schedule");
    this.oracle = oracle;
    this.expected = expected == null ? Map.of() : Map.copyOf(expected);
    this.actual = actual == null ? Map.of() : Map.copyOf(actual);
    this.fired = List.copyOf(fired);
    this.unfired = List.copyOf(unfired);
    this.timeline = List.copyOf(timeline);
    this.outcome = outcome;
    this.error = error;
    this.virtualWait = virtualWait;
  }

  /**
   * @return true if the run completed, its final state equals the oracle's (and, with a model, so does the
   *     failure-free run's), and no stale commit was accepted
   */
  public boolean passed() {
    return verdict() == Verdict.PASSED;
  }

  /**
   * @return what the run concluded
   * @since 0.3.0
   */
  public Verdict verdict() {
    if (error != null) {
      return Verdict.STOPPED;
    }
    if (!violations.isEmpty()) {
      return Verdict.FENCING_VIOLATED;
    }
    if (model && failureFree != null && !failureFree.equals(expected)) {
      return Verdict.FAILURE_FREE_RUN_DIFFERS_FROM_MODEL;
    }
    if (!expected.equals(actual)) {
      return model ? Verdict.DIFFERS_FROM_MODEL : Verdict.DIFFERS_FROM_FAILURE_FREE_RUN;
    }
    return Verdict.PASSED;
  }

  /**
   * @return what {@link #expected()} is: the oracle's description (a model such as {@code "the aggregation of the
   *     input"}, or {@code "the failure-free run of the same input"})
   * @since 0.3.0
   */
  public String reference() {
    return oracle;
  }

  /**
   * @return whether {@link #expected()} comes from a model of the pipeline (an {@link Oracle#aggregate} or
   *     {@link Oracle#fold}) rather than from the failure-free run
   * @since 0.3.0
   */
  public boolean referenceIsModel() {
    return model;
  }

  /**
   * @return the final state of the failure-free run, when it was run beside a model (with {@link
   *     Oracle#failureFree()} it is {@link #expected()} itself)
   * @since 0.3.0
   */
  public Optional<Map<K, V>> failureFree() {
    return Optional.ofNullable(failureFree);
  }

  /**
   * @return the kind of the kit's spout in this run (empty for results built before a spout was chosen)
   * @since 0.3.0
   */
  public Optional<io.epochal.spout.SpoutKind> spout() {
    return Optional.ofNullable(spout);
  }

  /**
   * @return the stale commits the store accepted after a lease takeover (see {@link FaultPoint#LEASE_TAKEN_BEFORE_COMMIT})
   * @since 0.3.0
   */
  public List<String> fencingViolations() {
    return violations;
  }

  /** @return the schedule that was run */
  public ReplaySchedule<?> schedule() {
    return schedule;
  }

  /** @return the oracle's state (empty if the run stopped before it was needed) */
  public Map<K, V> expected() {
    return expected;
  }

  /** @return the run's final state (empty if the run stopped) */
  public Map<K, V> actual() {
    return actual;
  }

  /**
   * @return the keys whose faulty-run value differs from {@link #expected()}, with both values, in key order when keys
   *     are comparable
   */
  public Map<K, Difference<V>> differences() {
    return differences(actual);
  }

  /**
   * @return the keys whose failure-free-run value differs from the model, with both values (empty without a model)
   * @since 0.3.0
   */
  public Map<K, Difference<V>> failureFreeDifferences() {
    return failureFree == null || !model ? Map.of() : differences(failureFree);
  }

  private Map<K, Difference<V>> differences(Map<K, V> actual) {
    Set<K> keys = new LinkedHashSet<>(expected.keySet());
    keys.addAll(actual.keySet());
    List<K> sorted = new ArrayList<>(keys);
    sorted.sort(KEY_ORDER);
    Map<K, Difference<V>> out = new LinkedHashMap<>();
    for (K k : sorted) {
      V e = expected.get(k);
      V a = actual.get(k);
      if (!Objects.equals(e, a)) {
        out.put(k, new Difference<>(Optional.ofNullable(e), Optional.ofNullable(a)));
      }
    }
    return out;
  }

  /** @return the faults that fired, in firing order */
  public List<Fault> fired() {
    return fired;
  }

  /** @return the scheduled faults that never fired (their batch never reached their point) */
  public List<Fault> unfired() {
    return unfired;
  }

  /** @return the recorded steps of the faulty run */
  public List<TimelineEvent> timeline() {
    return timeline;
  }

  /** @return restarts, failed attempts and the last txid, if the run completed */
  public Optional<ReplayHarness.Outcome> outcome() {
    return Optional.ofNullable(outcome);
  }

  /** @return the error that stopped the faulty run (a pipeline that gave up is a failed check too) */
  public Optional<Throwable> error() {
    return Optional.ofNullable(error);
  }

  /** @return the backoff the coordinator waited in virtual time (nothing was slept for real) */
  public Duration virtualWait() {
    return virtualWait;
  }

  /**
   * @return the report: verdict (naming the reference it compared with), schedule, spout, numbered timeline, and the
   *     values of the differing keys
   */
  public String report() {
    StringBuilder b = new StringBuilder();
    Map<K, Difference<V>> diff = differences();
    Map<K, Difference<V>> ffDiff = failureFreeDifferences();
    Set<K> all = new LinkedHashSet<>(expected.keySet());
    all.addAll(actual.keySet());
    if (failureFree != null) {
      all.addAll(failureFree.keySet());
    }
    switch (verdict()) {
      case STOPPED -> b.append("Replay check failed: ").append(reference ? "the failure-free reference run"
          : "the pipeline").append(" stopped with ").append(error).append('\n');
      case FENCING_VIOLATED -> b.append("Replay check failed: fencing violated: ").append(violations.get(0))
          .append(violations.size() > 1 ? " (and " + (violations.size() - 1) + " more)" : "").append('\n');
      case FAILURE_FREE_RUN_DIFFERS_FROM_MODEL -> b.append("Replay check failed: the failure-free run of the same "
          + "input already differs from ").append(oracle).append(" in ").append(ffDiff.size()).append(" of ")
          .append(all.size()).append(" key(s): the code is wrong without any fault\n");
      case DIFFERS_FROM_MODEL -> b.append("Replay check failed: ").append(diff.size()).append(" of ")
          .append(all.size()).append(" key(s) differ from ").append(oracle).append('\n');
      case DIFFERS_FROM_FAILURE_FREE_RUN -> b.append("Replay check failed: ").append(diff.size()).append(" of ")
          .append(all.size()).append(" key(s) differ from ").append(oracle).append('\n');
      case PASSED -> b.append("Replay check passed: the final state equals ").append(oracle).append('\n');
    }
    if (model && failureFree != null) {
      b.append("Reference: ").append(oracle).append(" (a model of the pipeline); the failure-free run of the same "
          + "input ").append(ffDiff.isEmpty() ? "agrees with it" : "differs from it in " + ffDiff.size()
          + " key(s)").append('\n');
    } else if (!model && !reference) {
      b.append("Reference: ").append(oracle).append(" (not a model: a bug that shows without faults too is not "
          + "caught)\n");
    }
    b.append("Schedule: ").append(schedule).append('\n');
    if (spout != null) {
      b.append("Spout: ").append(spout).append('\n');
    }
    b.append("Faults fired: ").append(fired).append("; never reached: ").append(unfired).append('\n');
    if (outcome != null) {
      b.append("Run: last committed txid ").append(outcome.lastTxid()).append(", ").append(outcome.failedAttempts())
          .append(" failed attempt(s), ").append(outcome.restarts()).append(" restart(s), ")
          .append(virtualWait.toMillis()).append(" ms of virtual backoff\n");
    }
    b.append("Timeline:\n");
    for (TimelineEvent e : timeline) {
      b.append("  ").append(e.render()).append('\n');
    }
    Set<K> shownKeys = new LinkedHashSet<>(ffDiff.keySet());
    shownKeys.addAll(diff.keySet());
    if (!shownKeys.isEmpty() && error == null) {
      List<K> sorted = new ArrayList<>(shownKeys);
      sorted.sort(KEY_ORDER);
      boolean three = model && failureFree != null && !ffDiff.isEmpty();
      String expectedLabel = model ? "expected" : "failure-free run";
      b.append("Differing keys (").append(expectedLabel).append(three ? " vs failure-free run" : "")
          .append(" vs actual):\n");
      int shown = 0;
      for (K k : sorted) {
        if (shown++ == MAX_KEYS_SHOWN) {
          b.append("  ... (").append(sorted.size() - MAX_KEYS_SHOWN).append(" more)\n");
          break;
        }
        b.append("  ").append(k).append(": ").append(expectedLabel).append(' ')
            .append(show(Optional.ofNullable(expected.get(k))));
        if (three) {
          b.append(", failure-free run ").append(show(Optional.ofNullable(failureFree.get(k))));
        }
        b.append(", actual ").append(show(Optional.ofNullable(actual.get(k)))).append('\n');
      }
    }
    return b.toString();
  }

  private static String show(Optional<?> value) {
    return value.map(String::valueOf).orElse("(absent)");
  }

  @Override
  public String toString() {
    return report();
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static final Comparator<Object> KEY_ORDER = (a, b) -> {
    if (a instanceof Comparable ca && b != null && a.getClass() == b.getClass()) {
      return ca.compareTo(b);
    }
    return String.valueOf(a).compareTo(String.valueOf(b));
  };
}
