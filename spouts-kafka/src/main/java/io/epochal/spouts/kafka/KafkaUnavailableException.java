package io.epochal.spouts.kafka;

import io.epochal.api.Evolving;

/**
 * The Kafka cluster did not answer within the spout's {@linkplain KafkaSpoutConfig#apiTimeout() API timeout}: no
 * broker reachable, no leader for a partition, or a fetch that made no progress. Names what the spout was doing and
 * the partition. Retryable: the engine replays the batch with backoff and stops with
 * {@link io.epochal.errors.BatchFailedException} when its retry policy is exhausted, so a dead cluster stops the
 * pipeline after about {@code maxAttempts x (apiTimeout + backoff)}.
 *
 * @since 0.1.0
 */
@Evolving
public final class KafkaUnavailableException extends KafkaSpoutException {
  private static final long serialVersionUID = 1L;

  /**
   * Makes the retryable error for a cluster that did not answer in time.
   *
   * @param message what the spout was doing and for how long
   * @param cause the client's failure, or {@code null}
   * @param spout the spout's name
   * @param topic the topic, or {@code null}
   * @param partition the partition, or -1
   * @param txid the batch's txid, or 0
   */
  public KafkaUnavailableException(String message, Throwable cause, String spout, String topic, int partition,
      long txid) {
    super(message, cause, true, spout, topic, partition, -1, txid);
  }
}
