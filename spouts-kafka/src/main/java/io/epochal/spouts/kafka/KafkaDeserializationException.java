package io.epochal.spouts.kafka;

import io.epochal.api.Evolving;

/**
 * A record's key or value could not be deserialized. Names topic, partition and offset and which part failed; the
 * deserializer's exception is the cause. Not retryable: the same bytes fail again, so the pipeline stops at the
 * first occurrence, never skipping the record. To route such records into the pipeline instead, use the
 * dead-letter variants ({@link KafkaSpouts#transactionalWithDeadLetters}, {@link KafkaSpouts#opaqueWithDeadLetters}).
 *
 * @since 0.1.0
 */
@Evolving
public final class KafkaDeserializationException extends KafkaSpoutException {
  private static final long serialVersionUID = 1L;

  /** Which part of a record failed. */
  public enum Part {
    /** The record's key. */
    KEY,
    /** The record's value. */
    VALUE
  }

  /** Which part of the record its deserializer rejected. */
  private final Part part;

  /**
   * Makes the non-retryable error for a record whose key or value its deserializer rejected.
   *
   * @param spout the spout's name
   * @param topic the topic
   * @param partition the partition
   * @param offset the record's offset
   * @param txid the batch's txid
   * @param part which part failed
   * @param cause the deserializer's failure
   */
  public KafkaDeserializationException(String spout, String topic, int partition, long offset, long txid, Part part,
      Throwable cause) {
    super("Kafka spout '" + spout + "': cannot deserialize the " + part.name().toLowerCase(java.util.Locale.ROOT)
        + " of the record at offset " + offset + " of " + topic + "-" + partition + " (txid " + txid + "): " + cause
        + ". The record is not skipped; fix the deserializer or the data, or use a dead-letter spout.", cause, false,
        spout, topic, partition, offset, txid);
    this.part = part;
  }

  /**
   * Which deserializer failed.
   *
   * @return which part of the record failed
   */
  public Part part() {
    return part;
  }
}
