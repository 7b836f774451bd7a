package io.epochal.testkit;

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

  ReplayResult(ReplaySchedule<?> schedule, String oracle, Map<K, V> expected, Map<K, V> actual, List<Fault> fired,
      List<Fault> unfired, List<TimelineEvent> timeline, ReplayHarness.Outcome outcome, Throwable error,
      Duration virtualWait, boolean reference) {
    this.reference = reference;
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

  /** @return true if the run completed and its final state equals the oracle's */
  public boolean passed() {
    return error == null && expected.equals(actual);
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

  /** @return the keys whose values differ, with both values, in key order when keys are comparable */
  public Map<K, Difference<V>> differences() {
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

  /** @return the report: verdict, schedule, numbered timeline, and expected vs actual for the differing keys */
  public String report() {
    StringBuilder b = new StringBuilder();
    Map<K, Difference<V>> diff = differences();
    if (error != null) {
      b.append("Replay check failed: ").append(reference ? "the failure-free reference run" : "the pipeline")
          .append(" stopped with ").append(error).append('\n');
    } else if (!diff.isEmpty()) {
      Set<K> all = new LinkedHashSet<>(expected.keySet());
      all.addAll(actual.keySet());
      b.append("Replay check failed: ").append(diff.size()).append(" of ").append(all.size())
          .append(" key(s) differ from ").append(oracle).append('\n');
    } else {
      b.append("Replay check passed: the final state equals ").append(oracle).append('\n');
    }
    b.append("Schedule: ").append(schedule).append('\n');
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
    if (!diff.isEmpty()) {
      b.append("Differing keys (expected vs actual):\n");
      int shown = 0;
      for (Map.Entry<K, Difference<V>> e : diff.entrySet()) {
        if (shown++ == MAX_KEYS_SHOWN) {
          b.append("  ... (").append(diff.size() - MAX_KEYS_SHOWN).append(" more)\n");
          break;
        }
        b.append("  ").append(e.getKey()).append(": expected ").append(show(e.getValue().expected()))
            .append(", actual ").append(show(e.getValue().actual())).append('\n');
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
