package io.epochal.state;

import java.util.Objects;

/**
 * Where a state partition lives: the pipeline, the state's name (its table), and the partition it serves.
 *
 * @param pipeline the pipeline's name
 * @param stateName the state's name, unique within the pipeline (used as the table name)
 * @param partitionIndex this partition, in {@code [0, numPartitions)}
 * @param numPartitions the number of state partitions
 */
public record StateContext(String pipeline, String stateName, int partitionIndex, int numPartitions) {
  public StateContext {
    Objects.requireNonNull(pipeline, "pipeline");
    Objects.requireNonNull(stateName, "stateName");
    if (numPartitions < 1 || partitionIndex < 0 || partitionIndex >= numPartitions) {
      throw new IllegalArgumentException(
          "partition " + partitionIndex + " of " + numPartitions + " is out of range for state " + stateName);
    }
  }
}
