package io.epochal.spout;

import io.epochal.api.Stable;
import io.epochal.codec.Codec;
import java.util.List;
import java.util.Optional;

/**
 * A transactional source made of independent partitions (files, queue partitions), each with its own metadata
 * (e.g. a byte range). Adapt it with {@link Spouts#partitioned(PartitionedTransactionalSpout)}; a batch holds one
 * range per partition, and each partition's range for a txid is fixed once and re-emitted exactly.
 *
 * @param <T> the record type
 * @param <P> the per-partition metadata type
 *
 * @since 0.1.0
 */
@Stable
public interface PartitionedTransactionalSpout<T, P> {

  /** A name unique within the pipeline. */
  String name();

  /** The partitions, in a stable order. The list may grow between batches; it never loses a partition. */
  List<String> partitions();

  /** Encodes one partition's metadata. */
  Codec<P> partitionMetadataCodec();

  /**
   * Fixes the range of {@code partition} in new batch {@code txid}, following {@code previous}.
   *
   * @return the range, or empty if the partition has nothing new
   */
  Optional<P> nextPartitionBatch(String partition, long txid, Optional<P> previous);

  /** Emits exactly the records of {@code partition} described by {@code metadata}. */
  void emitPartitionBatch(BatchAttempt attempt, String partition, P metadata, Collector<T> out);

  /** Releases resources. */
  default void close() {
  }
}
