package io.epochal.testkit;

import io.epochal.api.Evolving;

/**
 * How the pipeline under test spreads its work: state partitions, batches whose processing overlaps, and worker
 * threads. Immutable.
 *
 * @param partitions state partitions ({@code PipelineBuilder.partitions}), at least 1
 * @param maxBatchesInFlight batches in flight ({@code PipelineBuilder.maxBatchesInFlight}), at least 1
 * @param threads worker threads ({@code PipelineBuilder.threads}), at least 1; more than one makes the order of
 *     partition writes in a timeline vary between runs (never the final state of a correct pipeline)
 * @since 0.1.0
 */
@Evolving
public record Parallelism(int partitions, int maxBatchesInFlight, int threads) {
  /**
   * Validates the values.
   *
   * @param partitions state partitions, at least 1
   * @param maxBatchesInFlight batches in flight, at least 1
   * @param threads worker threads, at least 1
   * @throws IllegalArgumentException if a value is below 1
   */
  public Parallelism {
    if (partitions < 1 || maxBatchesInFlight < 1 || threads < 1) {
      throw new IllegalArgumentException("partitions, maxBatchesInFlight and threads must be >= 1, were "
          + partitions + ", " + maxBatchesInFlight + ", " + threads);
    }
  }

  /**
   * One partition, one batch in flight, one thread.
   *
   * @return the parallelism {@code (1, 1, 1)}
   */
  public static Parallelism sequential() {
    return new Parallelism(1, 1, 1);
  }

  @Override
  public String toString() {
    return partitions + " partition(s), " + maxBatchesInFlight + " batch(es) in flight, " + threads + " thread(s)";
  }
}
