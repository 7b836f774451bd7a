package io.epochal.sinks.kafka;

import io.epochal.api.Evolving;

/**
 * The txid marker Kafka holds for a partition (the last txid published under its transactional id) is above the
 * txid the pipeline's checkpoint committed: something else published under this transactional id (two pipelines or
 * sinks sharing a {@linkplain KafkaSinkConfig#transactionalIdPrefix() prefix}), or the checkpoint store was reset or
 * restored from an older copy. Publishing on would either skip or repeat outputs, so the sink refuses to start. Not
 * retryable: give the sink its own prefix, or restore the matching checkpoint.
 *
 * @since 0.4.0
 */
@Evolving
public final class KafkaSinkMarkerAheadException extends KafkaSinkException {
  private static final long serialVersionUID = 1L;

  /** The txid Kafka shows published for the partition. */
  private final long marker;
  /** The txid the pipeline's checkpoint committed. */
  private final long committedTxid;

  /**
   * Makes the non-retryable error; its {@link #txid()} is the marker.
   *
   * @param message what was found
   * @param pipeline the pipeline
   * @param sink the sink
   * @param partition the engine partition
   * @param marker the txid Kafka shows published
   * @param committedTxid the txid the checkpoint committed
   * @param transactionalId the producer's transactional id
   */
  public KafkaSinkMarkerAheadException(String message, String pipeline, String sink, int partition, long marker,
      long committedTxid, String transactionalId) {
    super(message, null, false, pipeline, sink, partition, marker, transactionalId);
    this.marker = marker;
    this.committedTxid = committedTxid;
  }

  /**
   * The txid marker Kafka holds for the partition.
   *
   * @return the txid Kafka shows published for the partition
   */
  public long marker() {
    return marker;
  }

  /**
   * The txid the pipeline's checkpoint committed, below the marker.
   *
   * @return the committed txid
   */
  public long committedTxid() {
    return committedTxid;
  }
}
