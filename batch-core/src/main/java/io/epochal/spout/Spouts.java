package io.epochal.spout;

import io.epochal.api.Stable;
import java.util.Objects;

/**
 * Adapters from the partitioned spout SPIs to the batch-wide spout kinds the engine runs.
 *
 * <p>Both adapters produce {@link PartitionedMetadata}: every partition that has had data carries its latest
 * metadata in every batch (see there), and partitions are visited in ascending name order. A partition named by
 * earlier metadata but missing from the spout's current {@code partitions()} list makes the adapter throw
 * {@link io.epochal.errors.SourceChangedException} (the SPIs promise the list never loses a partition).
 *
 * <p>The adapters keep no state of their own: they are as thread-safe as the adapted spout, and the engine calls
 * them from one thread at a time anyway. Null arguments throw {@link NullPointerException}.
 *
 * @since 0.1.0
 */
@Stable
public final class Spouts {

  private Spouts() {
  }

  /**
   * Adapts a partitioned transactional spout. {@code nextBatch(txid, previous)} calls
   * {@code nextPartitionBatch(partition, txid, previous metadata of that partition)} for every partition; the batch
   * exists if at least one partition returned a range, and then holds those ranges (in batch) plus every other
   * partition's carried metadata. {@code emit} emits the in-batch ranges only, one partition after the other in
   * partition order. Replay promise: the same metadata emits the same records in the same order, provided the
   * adapted spout's {@code emitPartitionBatch} is deterministic. The adapter's name, codec
   * ({@link PartitionedMetadata#codec}) and {@code close} come from / go to {@code spout}.
   *
   * @param spout the partitioned spout, not {@code null}
   * @param <T> the record type
   * @param <P> the per-partition metadata type
   * @return a transactional spout over {@code spout}
   * @throws NullPointerException if {@code spout} is {@code null}
   */
  public static <T, P> TransactionalSpout<T, PartitionedMetadata<P>> partitioned(
      PartitionedTransactionalSpout<T, P> spout) {
    return new PartitionedTransactionalAdapter<>(Objects.requireNonNull(spout, "spout"));
  }

  /**
   * Adapts a partitioned opaque spout. {@code isReady(txid, previous)} holds if some partition
   * {@code hasMore(partition, its previous position)}; {@code emit(attempt, previous, out)} calls
   * {@code emitPartitionBatch} for every such partition in partition order and returns the new positions, with the
   * advanced partitions in batch and the others carried (or {@code previous} itself, unchanged, when no partition had
   * more). Replay promise: that of an {@link OpaqueSpout} — each record is in exactly one committed batch, provided
   * every partition continues exactly after the position it is given.
   *
   * @param spout the partitioned spout, not {@code null}
   * @param <T> the record type
   * @param <P> the per-partition position type
   * @return an opaque spout over {@code spout}
   * @throws NullPointerException if {@code spout} is {@code null}
   */
  public static <T, P> OpaqueSpout<T, PartitionedMetadata<P>> partitioned(PartitionedOpaqueSpout<T, P> spout) {
    return new PartitionedOpaqueAdapter<>(Objects.requireNonNull(spout, "spout"));
  }
}
