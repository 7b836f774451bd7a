package io.epochal.sink;

import io.epochal.api.Stable;
import io.epochal.state.Epoch;
import java.util.List;

/**
 * A {@link Sink} staged partition by partition, in parallel: for a grouped stream the partitions are those of the
 * keys (contiguous ranges of {@code farm_hash(key)}, {@link io.epochal.pipeline.Partitioner}), for a flat stream
 * records are spread round-robin by position. Each partition with records is staged once per attempt; partitions
 * may be staged concurrently.
 *
 * @param <T> the record type
 * @since 0.3.0
 */
@Stable
public interface PartitionedSink<T> extends Sink<T> {

  /**
   * Stages the records of one partition of attempt {@code epoch}; see {@link Sink#stage}. May be called for several
   * partitions of one attempt concurrently.
   *
   * @param epoch the epoch of the batch attempt the records belong to
   * @param partition the partition of the records, in {@code [0, partitions)} of the pipeline
   * @param records the partition's records of the batch, in stream order
   */
  void stage(Epoch epoch, int partition, List<T> records);

  /** Stages every record as partition 0. */
  @Override
  default void stage(Epoch epoch, List<T> records) {
    stage(epoch, 0, records);
  }
}
