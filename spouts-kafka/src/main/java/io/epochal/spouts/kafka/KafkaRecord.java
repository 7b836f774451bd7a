package io.epochal.spouts.kafka;

import io.epochal.api.Evolving;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.record.TimestampType;

/**
 * One Kafka record as the Kafka spouts emit it, with its key and value deserialized.
 *
 * <p>Immutable and thread-safe if {@code K} and {@code V} are. A record without a key (or a tombstone without a
 * value) has an empty {@link #key()} (or {@link #value()}); so has one whose deserializer returned {@code null}.
 *
 * @param topic the topic
 * @param partition the partition, {@code >= 0}
 * @param offset the offset, {@code >= 0}
 * @param timestamp the timestamp in epoch milliseconds (negative if the record has none)
 * @param timestampType what the timestamp means (create time, log append time, none)
 * @param key the deserialized key, empty for none
 * @param value the deserialized value, empty for none (a tombstone)
 * @param headers the headers in record order; copied
 * @param <K> the key type
 * @param <V> the value type
 * @since 0.1.0
 */
@Evolving
public record KafkaRecord<K, V>(String topic, int partition, long offset, long timestamp, TimestampType timestampType,
    Optional<K> key, Optional<V> value, List<KafkaHeader> headers) implements KafkaMessage<K, V> {

  /**
   * Makes the record, copying {@code headers}.
   *
   * @param topic the topic
   * @param partition the partition, {@code >= 0}
   * @param offset the offset, {@code >= 0}
   * @param timestamp the timestamp in epoch milliseconds (negative if the record has none)
   * @param timestampType what the timestamp means (create time, log append time, none)
   * @param key the deserialized key, empty for none
   * @param value the deserialized value, empty for none (a tombstone)
   * @param headers the headers in record order; copied
   * @throws NullPointerException if a component or a header is {@code null}
   * @throws IllegalArgumentException if {@code partition} or {@code offset} is negative
   */
  public KafkaRecord {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(timestampType, "timestampType");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    headers = List.copyOf(headers);
    if (partition < 0 || offset < 0) {
      throw new IllegalArgumentException("partition and offset must be >= 0, were " + partition + ", " + offset);
    }
  }

  /**
   * Looks a header up by key.
   *
   * @param name a header key
   * @return the value of the last header named {@code name} (Kafka's {@code lastHeader}), empty if there is none or
   *     it has no value
   */
  public Optional<byte[]> header(String name) {
    Objects.requireNonNull(name, "name");
    for (int i = headers.size() - 1; i >= 0; i--) {
      if (headers.get(i).key().equals(name)) {
        return headers.get(i).value();
      }
    }
    return Optional.empty();
  }

  @Override
  public String toString() {
    return topic + "-" + partition + "@" + offset + " " + key.map(String::valueOf).orElse("<no key>") + " = "
        + value.map(String::valueOf).orElse("<no value>");
  }
}
