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

  /**
   * The spout's name.
   *
   * @return a name unique within the pipeline; the adapter's name
   */
  String name();

  /**
   * The partitions, in a stable order. The list may grow between batches; it never loses a partition.
   *
   * @return the names of the partitions to read now
   */
  List<String> partitions();

  /**
   * Encodes one partition's metadata.
   *
   * @return the codec of one partition's metadata, used inside {@link PartitionedMetadata#codec}
   */
  Codec<P> partitionMetadataCodec();

  /**
   * Fixes the range of {@code partition} in new batch {@code txid}, following {@code previous}.
   *
   * @param partition one of {@link #partitions()}
   * @param txid the txid of the new batch
   * @param previous the partition's latest range before batch {@code txid}, empty if it never had data
   * @return the range, or empty if the partition has nothing new
   */
  Optional<P> nextPartitionBatch(String partition, long txid, Optional<P> previous);

  /**
   * Emits exactly the records of {@code partition} described by {@code metadata}. Deterministic.
   *
   * @param attempt the batch attempt the records go to
   * @param partition the partition of the range
   * @param metadata the range fixed by {@link #nextPartitionBatch} for this partition in {@code attempt.txid()}
   * @param out receives the records; valid for this call only
   * @throws io.epochal.errors.SourceChangedException if the input behind {@code metadata} changed
   */
  void emitPartitionBatch(BatchAttempt attempt, String partition, P metadata, Collector<T> out);

  /** Releases resources. */
  default void close() {
  }
}
