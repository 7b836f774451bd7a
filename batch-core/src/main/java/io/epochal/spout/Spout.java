package io.epochal.spout;

import io.epochal.api.Stable;
import io.epochal.codec.Codec;

/**
 * A source of batches. Implement one of {@link TransactionalSpout}, {@link OpaqueSpout} or
 * {@link NonTransactionalSpout}; partitioned sources implement {@link PartitionedTransactionalSpout} or
 * {@link PartitionedOpaqueSpout} and are adapted with {@link Spouts}.
 *
 * <p>The engine calls a spout from one thread at a time, in txid order.
 *
 * @param <T> the record type
 * @param <M> the batch metadata type (an immutable value, e.g. offsets), persisted with each committed batch
 *
 * @since 0.1.0
 */
@Stable
public sealed interface Spout<T, M> permits TransactionalSpout, OpaqueSpout, NonTransactionalSpout {

  /**
   * The spout's name.
   *
   * @return a name unique within the pipeline, used in logs, errors and as the key of its persisted metadata
   */
  String name();

  /**
   * The replay promise of this spout; the pipeline's guarantee checks read it.
   *
   * @return the kind matching the sub-interface implemented
   */
  SpoutKind kind();

  /**
   * Encodes the metadata so that it can be committed with the batch and read back after a restart.
   *
   * @return the codec of the batch metadata; it must decode what earlier runs of the pipeline committed
   */
  Codec<M> metadataCodec();

  /**
   * The batch {@code txid} is committed: every state and the coordinator recorded it.
   *
   * @param txid the committed batch's txid; calls come in increasing txid order
   */
  default void success(long txid) {
  }

  /** Releases resources. */
  default void close() {
  }
}
