package io.epochal.spouts.kafka;

import io.epochal.api.Evolving;

/**
 * A configured topic does not exist (it was deleted, or never created: the spout never creates topics). Retryable:
 * the engine replays the batch with backoff and stops with {@link io.epochal.errors.BatchFailedException} naming it
 * when the retry policy is exhausted.
 *
 * @since 0.1.0
 */
@Evolving
public final class KafkaTopicNotFoundException extends KafkaSpoutException {
  private static final long serialVersionUID = 1L;

  /**
   * Makes the retryable error for a topic that does not exist (the spout never creates one).
   *
   * @param spout the spout's name
   * @param topic the missing topic
   * @param txid the batch's txid, or 0
   * @param detail what was observed
   */
  public KafkaTopicNotFoundException(String spout, String topic, long txid, String detail) {
    super("Kafka spout '" + spout + "': topic '" + topic + "' does not exist (" + detail + "). The spout never "
        + "creates topics; if it was deleted, its committed offsets are lost with it.", null, true, spout, topic, -1,
        -1, txid);
  }
}
