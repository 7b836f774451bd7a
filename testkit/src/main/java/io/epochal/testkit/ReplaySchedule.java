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
  /** @throws NullPointerException if an argument, a record or a fault is null */
  public ReplaySchedule {
    input = List.copyOf(input);
    Objects.requireNonNull(cuts, "cuts");
    Objects.requireNonNull(parallelism, "parallelism");
    faults = List.copyOf(faults);
  }

  /** A sequential, failure-free schedule over {@code input} in batches of {@code batchSize}. */
  public static <T> ReplaySchedule<T> of(List<T> input, int batchSize) {
    return new ReplaySchedule<>(input, BatchCuts.fixed(batchSize), Parallelism.sequential(), List.of());
  }

  /** @return this schedule with other faults */
  public ReplaySchedule<T> withFaults(List<Fault> faults) {
    return new ReplaySchedule<>(input, cuts, parallelism, faults);
  }

  /** @return this schedule with these faults */
  public ReplaySchedule<T> withFaults(Fault... faults) {
    return withFaults(List.of(faults));
  }

  /** @return this schedule with another parallelism */
  public ReplaySchedule<T> with(Parallelism parallelism) {
    return new ReplaySchedule<>(input, cuts, parallelism, faults);
  }

  /** @return this schedule with other cuts */
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
