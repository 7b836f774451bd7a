package io.epochal.testkit;

import io.epochal.api.Evolving;
import java.util.List;
import java.util.Objects;

/**
 * Everything a replayed run depends on besides the code under test: the input, how it is cut into batches, how the
 * pipeline is spread, and which faults fire. Generate them with {@link ReplayArbitraries#schedules}; jqwik shrinks
 * each component (fewer records, smaller cuts, fewer partitions, fewer and earlier faults).
 *
 * <p>Immutable (the input list is copied; its records should be immutable too).
 *
 * @param input the records the kit's spout emits, in order; no null record
 * @param cuts how the spout cuts them into batches
 * @param parallelism partitions, batches in flight and threads
 * @param faults the failure schedule
 * @param <T> the record type
 * @since 0.1.0
 */
@Evolving
public record ReplaySchedule<T>(List<T> input, BatchCuts cuts, Parallelism parallelism, List<Fault> faults) {
  /**
   * Validates the schedule and copies its lists.
   *
   * @param input the records the kit's spout emits, in order; no null record
   * @param cuts how the spout cuts them into batches
   * @param parallelism partitions, batches in flight and threads
   * @param faults the failure schedule, in any order
   * @throws NullPointerException if an argument, a record or a fault is null
   */
  public ReplaySchedule {
    input = List.copyOf(input);
    Objects.requireNonNull(cuts, "cuts");
    Objects.requireNonNull(parallelism, "parallelism");
    faults = List.copyOf(faults);
  }

  /**
   * A sequential, failure-free schedule over {@code input} in batches of {@code batchSize}.
   *
   * @param <T> the record type
   * @param input the records, in order; no null record
   * @param batchSize the records of every batch, at least 1
   * @return the schedule, with {@link Parallelism#sequential()} and no fault
   * @throws IllegalArgumentException if {@code batchSize < 1}
   */
  public static <T> ReplaySchedule<T> of(List<T> input, int batchSize) {
    return new ReplaySchedule<>(input, BatchCuts.fixed(batchSize), Parallelism.sequential(), List.of());
  }

  /**
   * Returns this schedule with other faults.
   *
   * @param faults the new failure schedule, replacing this one's
   * @return a schedule with the same input, cuts and parallelism
   */
  public ReplaySchedule<T> withFaults(List<Fault> faults) {
    return new ReplaySchedule<>(input, cuts, parallelism, faults);
  }

  /**
   * Returns this schedule with these faults.
   *
   * @param faults the new failure schedule, replacing this one's
   * @return a schedule with the same input, cuts and parallelism
   */
  public ReplaySchedule<T> withFaults(Fault... faults) {
    return withFaults(List.of(faults));
  }

  /**
   * Returns this schedule with another parallelism.
   *
   * @param parallelism the new partitions, batches in flight and threads
   * @return a schedule with the same input, cuts and faults
   */
  public ReplaySchedule<T> with(Parallelism parallelism) {
    return new ReplaySchedule<>(input, cuts, parallelism, faults);
  }

  /**
   * Returns this schedule with other cuts.
   *
   * @param cuts the new batch cuts
   * @return a schedule with the same input, parallelism and faults
   */
  public ReplaySchedule<T> with(BatchCuts cuts) {
    return new ReplaySchedule<>(input, cuts, parallelism, faults);
  }

  /** @return this schedule without faults: the run the {@link Oracle#failureFree()} oracle compares with */
  public ReplaySchedule<T> failureFree() {
    return withFaults(List.of());
  }

  @Override
  public String toString() {
    return input.size() + " record(s) " + input + "; " + cuts + "; " + parallelism + "; faults " + faults;
  }
}
