package io.epochal.state;

import io.epochal.api.Stable;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a state partition lives: the pipeline, the state's name (its table), the partition it serves, and what the
 * pipeline's epochs offer ({@link #staging}, known before any batch). The epoch of each batch is not here: the engine
 * hands it to the state by {@link State#begin(Epoch)}.
 *
 * @param pipeline the pipeline's name
 * @param stateName the state's name, unique within the pipeline (used as the table name)
 * @param partitionIndex this partition, in {@code [0, numPartitions)}
 * @param numPartitions the number of state partitions
 * @param epochs the epochs of the pipeline ({@link EpochSource#none()} outside a pipeline)
 *
 * @since 0.1.0
 */
@Stable
public record StateContext(String pipeline, String stateName, int partitionIndex, int numPartitions,
    EpochSource epochs) {
  /**
   * Checks the components.
   *
   * @param pipeline the pipeline's name, not null
   * @param stateName the state's name, unique within the pipeline, not null
   * @param partitionIndex this partition, in {@code [0, numPartitions)}
   * @param numPartitions the number of state partitions, at least 1
   * @param epochs the epochs of the pipeline, not null
   * @throws IllegalArgumentException if the partition is out of range
   */
  public StateContext {
    Objects.requireNonNull(pipeline, "pipeline");
    Objects.requireNonNull(stateName, "stateName");
    Objects.requireNonNull(epochs, "epochs");
    if (numPartitions < 1 || partitionIndex < 0 || partitionIndex >= numPartitions) {
      throw new IllegalArgumentException(
          "partition " + partitionIndex + " of " + numPartitions + " is out of range for state " + stateName);
    }
  }

  /**
   * A context outside a pipeline's run: its epochs offer no staging.
   *
   * @param pipeline the pipeline's name, not null
   * @param stateName the state's name, unique within the pipeline, not null
   * @param partitionIndex this partition, in {@code [0, numPartitions)}
   * @param numPartitions the number of state partitions, at least 1
   * @throws IllegalArgumentException if the partition is out of range
   */
  public StateContext(String pipeline, String stateName, int partitionIndex, int numPartitions) {
    this(pipeline, stateName, partitionIndex, numPartitions, EpochSource.none());
  }

  /**
   * The staging a state of this partition binds to.
   *
   * @param type the staging type the state needs, not null
   * @param <T> the staging type
   * @return the staging of type {@code type} the pipeline's epochs offer ({@link EpochSource#staging}), known before
   *     any batch; empty outside a pipeline or when the pipeline's checkpoint store offers none of that type
   */
  public <T> Optional<T> staging(Class<T> type) {
    return epochs.staging(Objects.requireNonNull(type, "type"));
  }
}
