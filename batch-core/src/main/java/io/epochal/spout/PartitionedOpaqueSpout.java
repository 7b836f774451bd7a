package io.epochal.spout;

import io.epochal.api.Stable;
import io.epochal.codec.Codec;
import java.util.List;
import java.util.Optional;

/**
 * An opaque source made of independent partitions, each continuing from its own last position. Adapt it with
 * {@link Spouts#partitioned(PartitionedOpaqueSpout)}.
 *
 * @param <T> the record type
 * @param <P> the per-partition position type
 *
 * @since 0.1.0
 */
@Stable
public interface PartitionedOpaqueSpout<T, P> {

  /** A name unique within the pipeline. */
  String name();

  /** The partitions, in a stable order. */
  List<String> partitions();

  /** Encodes one partition's position. */
  Codec<P> partitionMetadataCodec();

  /** Whether {@code partition} has records after {@code previous}. */
  boolean hasMore(String partition, Optional<P> previous);

  /** Emits records of {@code partition} following {@code previous}; returns the position after them. */
  P emitPartitionBatch(BatchAttempt attempt, String partition, Optional<P> previous, Collector<T> out);

  /** Releases resources. */
  default void close() {
  }
}
