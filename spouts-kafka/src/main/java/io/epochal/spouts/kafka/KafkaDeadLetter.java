package io.epochal.spouts.kafka;

import io.epochal.api.Evolving;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A Kafka record whose key or value its deserializer rejected, emitted by the dead-letter variants of the spouts
 * instead of failing the batch. Carries the record's coordinates, its raw bytes and the failure, so a pipeline can
 * store it (in the same epoch as the offsets) and a person can inspect or replay it.
 *
 * <p>{@code K} and {@code V} are the types the deserializers were to produce (the message's place in a stream of
 * {@link KafkaMessage}s); a dead letter holds bytes only.
 *
 * <p>Immutable and thread-safe: the byte arrays are copied in and out; {@code equals} compares the bytes.
 *
 * @param <K> the key type of the stream
 * @param <V> the value type of the stream
 * @since 0.1.0
 */
@Evolving
public final class KafkaDeadLetter<K, V> implements KafkaMessage<K, V> {
  private final String topic;
  private final int partition;
  private final long offset;
  private final long timestamp;
  private final byte[] key;
  private final byte[] value;
  private final List<KafkaHeader> headers;
  private final KafkaDeserializationException.Part part;
  private final String error;

  /**
   * Makes the dead letter of a record whose key or value its deserializer rejected, copying the bytes and headers.
   *
   * @param topic the topic
   * @param partition the partition
   * @param offset the offset
   * @param timestamp the record's timestamp in epoch milliseconds
   * @param key the raw key bytes, or {@code null} for none (copied)
   * @param value the raw value bytes, or {@code null} for none (copied)
   * @param headers the record's headers (copied)
   * @param part which part failed to deserialize
   * @param error the failure's description (its class and message)
   */
  public KafkaDeadLetter(String topic, int partition, long offset, long timestamp, byte[] key, byte[] value,
      List<KafkaHeader> headers, KafkaDeserializationException.Part part, String error) {
    this.topic = Objects.requireNonNull(topic, "topic");
    this.partition = partition;
    this.offset = offset;
    this.timestamp = timestamp;
    this.key = key == null ? null : key.clone();
    this.value = value == null ? null : value.clone();
    this.headers = List.copyOf(headers);
    this.part = Objects.requireNonNull(part, "part");
    this.error = Objects.requireNonNull(error, "error");
  }

  @Override
  public String topic() {
    return topic;
  }

  @Override
  public int partition() {
    return partition;
  }

  @Override
  public long offset() {
    return offset;
  }

  /**
   * The record's timestamp.
   *
   * @return the timestamp in epoch milliseconds (negative if the record has none)
   */
  public long timestamp() {
    return timestamp;
  }

  /**
   * The record's key as the broker stored it.
   *
   * @return a copy of the raw key bytes, empty if the record has no key
   */
  public Optional<byte[]> key() {
    return key == null ? Optional.empty() : Optional.of(key.clone());
  }

  /**
   * The record's value as the broker stored it.
   *
   * @return a copy of the raw value bytes, empty if the record has no value
   */
  public Optional<byte[]> value() {
    return value == null ? Optional.empty() : Optional.of(value.clone());
  }

  /**
   * The record's headers.
   *
   * @return the headers in record order
   */
  public List<KafkaHeader> headers() {
    return headers;
  }

  /**
   * Which deserializer failed.
   *
   * @return which part of the record its deserializer rejected
   */
  public KafkaDeserializationException.Part part() {
    return part;
  }

  /**
   * Why the deserializer failed.
   *
   * @return the deserializer's failure, as its class name and message
   */
  public String error() {
    return error;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KafkaDeadLetter<?, ?> d && topic.equals(d.topic) && partition == d.partition && offset == d.offset
        && timestamp == d.timestamp && java.util.Arrays.equals(key, d.key) && java.util.Arrays.equals(value, d.value)
        && headers.equals(d.headers) && part == d.part && error.equals(d.error);
  }

  @Override
  public int hashCode() {
    return Objects.hash(topic, partition, offset, part);
  }

  @Override
  public String toString() {
    return "dead letter " + topic + "-" + partition + "@" + offset + " (" + part + ": " + error + ")";
  }
}
