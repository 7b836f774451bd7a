package io.epochal.sinks.kafka;

import io.epochal.api.Evolving;

/**
 * The Kafka cluster did not answer, or kept failing transiently, for the whole of the sink's
 * {@linkplain KafkaSinkConfig#publishTimeout() publish timeout} (no broker reachable, no leader, a coordinator
 * loading). Retryable: nothing of the batch is visible, its outputs stay in the checkpoint's outbox, and a new
 * pipeline over the same stores publishes them first.
 *
 * @since 0.4.0
 */
@Evolving
public final class KafkaSinkUnavailableException extends KafkaSinkException {
  private static final long serialVersionUID = 1L;

  /**
   * Makes the retryable error for a cluster that did not answer within the publish timeout.
   *
   * @param message what the sink was doing and for how long
   * @param cause the last failure of the client
   * @param pipeline the pipeline
   * @param sink the sink
   * @param partition the engine partition
   * @param txid the batch being published, or 0
   * @param transactionalId the producer's transactional id
   */
  public KafkaSinkUnavailableException(String message, Throwable cause, String pipeline, String sink, int partition,
      long txid, String transactionalId) {
    super(message, cause, true, pipeline, sink, partition, txid, transactionalId);
  }
}
