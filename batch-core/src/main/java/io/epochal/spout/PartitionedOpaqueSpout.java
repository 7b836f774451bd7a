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

  /**
   * The spout's name.
   *
   * @return a name unique within the pipeline; the adapter's name
   */
  String name();

  /**
   * The partitions, in a stable order.
   *
   * @return the names of the partitions to read now
   */
  List<String> partitions();

  /**
   * Encodes one partition's position.
   *
   * @return the codec of one partition's position, used inside {@link PartitionedMetadata#codec}
   */
  Codec<P> partitionMetadataCodec();

  /**
   * Whether {@code partition} has records after {@code previous}.
   *
   * @param partition one of {@link #partitions()}
   * @param previous the partition's position after batch {@code txid - 1} (carried from the last batch that
   *     advanced it), empty if it never had data
   * @return true if records follow {@code previous} now
   */
  boolean hasMore(String partition, Optional<P> previous);

  /**
   * Emits records of {@code partition} following {@code previous}; returns the position after them.
   *
   * @param attempt the batch attempt the records go to
   * @param partition one of {@link #partitions()} for which {@link #hasMore} held
   * @param previous the partition's position after batch {@code attempt.txid() - 1} (carried from the last batch
   *     that advanced it), empty if it never had data
   * @param out receives the records; valid for this call only
   * @return the partition's position after the emitted records, not null
   */
  P emitPartitionBatch(BatchAttempt attempt, String partition, Optional<P> previous, Collector<T> out);

  /** Releases resources. */
  default void close() {
  }
}
