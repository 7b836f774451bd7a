package io.epochal.sinks.kafka;

import io.epochal.api.Evolving;

/**
 * Another producer with the same transactional id (another process running the same pipeline and sink, or a sink
 * built with the same {@linkplain KafkaSinkConfig#transactionalIdPrefix() prefix}) initialized after this one: Kafka
 * fenced this producer, its open transaction is aborted, and this process must stop publishing. Not retryable: the
 * pipeline stops; the newer owner publishes what is committed. Names the pipeline, sink, partition and txid.
 *
 * @since 0.4.0
 */
@Evolving
public final class KafkaSinkFencedException extends KafkaSinkException {
  private static final long serialVersionUID = 1L;

  /**
   * Makes the non-retryable error for a producer another one with its transactional id fenced.
   *
   * @param message what happened
   * @param cause the client's failure
   * @param pipeline the pipeline
   * @param sink the sink
   * @param partition the engine partition
   * @param txid the batch being published, or 0
   * @param transactionalId the fenced producer's transactional id
   */
  public KafkaSinkFencedException(String message, Throwable cause, String pipeline, String sink, int partition,
      long txid, String transactionalId) {
    super(message, cause, false, pipeline, sink, partition, txid, transactionalId);
  }
}
