package io.epochal.testkit;

import io.epochal.api.Evolving;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.arbitraries.ArbitraryDecorator;

/**
 * Generates {@link ReplaySchedule}s: an input, batch cuts (with opaque re-cuts), a parallelism and a failure schedule.
 * Obtain one with {@link ReplayArbitraries#schedules(Arbitrary)}; each configuration method returns a new arbitrary
 * and leaves this one unchanged (jqwik style). Every component shrinks: jqwik reports the smallest input, cuts,
 * parallelism and fault list that still fail.
 *
 * <p>Defaults: batches of 1..6 records with up to 3 re-cut sizes, 1..4 partitions, 1..3 batches in flight, 1..2
 * threads, up to 6 faults at every {@link FaultPoint} in txids 1..12, each a retryable failure or a crash.
 *
 * <p>Immutable and thread-safe.
 *
 * @param <T> the record type
 * @since 0.1.0
 */
@Evolving
public final class ScheduleArbitrary<T> extends ArbitraryDecorator<ReplaySchedule<T>> {
  private Arbitrary<List<T>> inputs;
  private int maxBatch = 6;
  private int maxPartitions = 4;
  private int maxInFlight = 3;
  private int maxThreads = 2;
  private int maxTxid = 12;
  private int maxFaults = 6;
  private Set<FaultPoint> points = EnumSet.allOf(FaultPoint.class);
  private boolean crashes = true;

  ScheduleArbitrary(Arbitrary<List<T>> inputs) {
    this.inputs = Objects.requireNonNull(inputs, "inputs");
  }

  @Override
  protected Arbitrary<ReplaySchedule<T>> arbitrary() {
    return Combinators.combine(inputs, ReplayArbitraries.batchCuts(maxBatch),
        ReplayArbitraries.parallelism(maxPartitions, maxInFlight, maxThreads),
        ReplayArbitraries.faultSchedules(maxTxid, maxFaults, points, crashes)).as(ReplaySchedule::new);
  }

  /**
   * Batch and re-cut sizes in {@code 1..maxBatch}.
   *
   * @param maxBatch the largest batch size, at least 1 (default 6)
   * @return a new arbitrary with this bound
   * @throws IllegalArgumentException if {@code maxBatch < 1}
   */
  public ScheduleArbitrary<T> withMaxBatch(int maxBatch) {
    requirePositive(maxBatch, "maxBatch");
    ScheduleArbitrary<T> clone = typedClone();
    clone.maxBatch = maxBatch;
    return clone;
  }

  /**
   * Partitions in {@code 1..maxPartitions}, batches in flight in {@code 1..maxInFlight}, threads in
   * {@code 1..maxThreads}.
   *
   * @param maxPartitions the most state partitions, at least 1 (default 4)
   * @param maxInFlight the most batches in flight, at least 1 (default 3)
   * @param maxThreads the most pipeline threads, at least 1 (default 2)
   * @return a new arbitrary with these bounds
   * @throws IllegalArgumentException if a bound is below 1
   */
  public ScheduleArbitrary<T> withParallelism(int maxPartitions, int maxInFlight, int maxThreads) {
    requirePositive(maxPartitions, "maxPartitions");
    requirePositive(maxInFlight, "maxInFlight");
    requirePositive(maxThreads, "maxThreads");
    ScheduleArbitrary<T> clone = typedClone();
    clone.maxPartitions = maxPartitions;
    clone.maxInFlight = maxInFlight;
    clone.maxThreads = maxThreads;
    return clone;
  }

  /**
   * Up to {@code maxFaults} faults, in txids {@code 1..maxTxid}.
   *
   * @param maxTxid the highest txid a fault may hit, at least 1 (default 12)
   * @param maxFaults the most faults in one schedule, at least 0 (default 6)
   * @return a new arbitrary with these bounds
   * @throws IllegalArgumentException if {@code maxTxid < 1} or {@code maxFaults < 0}
   */
  public ScheduleArbitrary<T> withFaults(int maxTxid, int maxFaults) {
    requirePositive(maxTxid, "maxTxid");
    if (maxFaults < 0) {
      throw new IllegalArgumentException("maxFaults must be >= 0, was " + maxFaults);
    }
    ScheduleArbitrary<T> clone = typedClone();
    clone.maxTxid = maxTxid;
    clone.maxFaults = maxFaults;
    return clone;
  }

  /**
   * Faults only at these points.
   *
   * @param first a point faults may fire at
   * @param more further points faults may fire at
   * @return a new arbitrary drawing fault points from these only
   */
  public ScheduleArbitrary<T> withPoints(FaultPoint first, FaultPoint... more) {
    ScheduleArbitrary<T> clone = typedClone();
    clone.points = EnumSet.of(first, more);
    return clone;
  }

  /**
   * Retryable failures only, no process restarts.
   *
   * @return a new arbitrary whose faults are never crashes
   */
  public ScheduleArbitrary<T> withoutCrashes() {
    ScheduleArbitrary<T> clone = typedClone();
    clone.crashes = false;
    return clone;
  }

  /**
   * No faults at all (for tests of the failure-free behaviour).
   *
   * @return a new arbitrary whose schedules have empty fault lists
   */
  public ScheduleArbitrary<T> withoutFaults() {
    return withFaults(1, 0);
  }

  private static void requirePositive(int value, String name) {
    if (value < 1) {
      throw new IllegalArgumentException(name + " must be >= 1, was " + value);
    }
  }
}
