package io.epochal.sinks.kafka;

import io.epochal.api.Evolving;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Maps a pipeline's output record to the Kafka record the sink publishes: key, value, headers and, optionally, the
 * Kafka partition (otherwise the producer's partitioner picks it from the key). Runs in the commit phase of every
 * attempt; the resulting bytes are what the checkpoint's outbox keeps, so a batch is republished after a crash with
 * exactly the bytes it was staged with, whatever the code of the next process.
 *
 * <p>Implementations must be thread-safe (partitions are staged concurrently) and deterministic enough for the user's
 * purpose; a mapping that throws fails the attempt with a non-retryable {@link KafkaSinkException}.
 *
 * @param <T> the record type
 * @since 0.4.0
 */
@FunctionalInterface
@Evolving
public interface KafkaOutput<T> {

  /**
   * Maps one of the pipeline's records to the Kafka record the sink publishes.
   *
   * @param topic the sink's topic (given to serializers that depend on it)
   * @param record the pipeline's record
   * @return the Kafka record to publish
   */
  Message toMessage(String topic, T record);

  /**
   * A key function and a value function with Kafka serializers; a function returning {@code null} gives a record
   * without key (or a tombstone value).
   *
   * @param <T> the record type
   * @param <K> the key type before serialization
   * @param <V> the value type before serialization
   * @param key extracts a record's key, {@code null} for none
   * @param keySerializer serializes the key with the sink's topic; called from several threads
   * @param value extracts a record's value, {@code null} for a tombstone
   * @param valueSerializer serializes the value with the sink's topic; called from several threads
   * @return a mapping without headers that leaves the partition to the producer's partitioner
   * @throws NullPointerException if an argument is null
   */
  static <T, K, V> KafkaOutput<T> of(Function<? super T, ? extends K> key, Serializer<K> keySerializer,
      Function<? super T, ? extends V> value, Serializer<V> valueSerializer) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(keySerializer, "keySerializer");
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(valueSerializer, "valueSerializer");
    return (topic, r) -> {
      K k = key.apply(r);
      V v = value.apply(r);
      return new Message(OptionalInt.empty(), Optional.ofNullable(k == null ? null : keySerializer.serialize(topic, k)),
          Optional.ofNullable(v == null ? null : valueSerializer.serialize(topic, v)), List.of());
    };
  }

  /**
   * String keys and values (UTF-8), from a key function and a value function.
   *
   * @param <T> the record type
   * @param key extracts a record's key, {@code null} for none
   * @param value extracts a record's value, {@code null} for a tombstone
   * @return a mapping without headers that leaves the partition to the producer's partitioner
   * @throws NullPointerException if an argument is null
   */
  static <T> KafkaOutput<T> strings(Function<? super T, String> key, Function<? super T, String> value) {
    return of(key, new StringSerializer(), value, new StringSerializer());
  }

  /**
   * One Kafka record to publish. Immutable (the arrays are copied in and out).
   *
   * @param partition the Kafka partition, or empty for the producer's partitioner
   * @param key the serialized key, or empty for none
   * @param value the serialized value, or empty for a tombstone
   * @param headers the record's headers, in order
   */
  record Message(OptionalInt partition, Optional<byte[]> key, Optional<byte[]> value, List<Header> headers) {
    /**
     * Makes the record, copying the key and value arrays and the header list.
     *
     * @param partition the Kafka partition, {@code >= 0}, or empty for the producer's partitioner
     * @param key the serialized key, or empty for none
     * @param value the serialized value, or empty for a tombstone
     * @param headers the record's headers, in order
     * @throws NullPointerException if a component or a header is null
     * @throws IllegalArgumentException if the partition is negative
     */
    public Message {
      Objects.requireNonNull(partition, "partition");
      if (partition.isPresent() && partition.getAsInt() < 0) {
        throw new IllegalArgumentException("partition must be >= 0, was " + partition.getAsInt());
      }
      key = Objects.requireNonNull(key, "key").map(byte[]::clone);
      value = Objects.requireNonNull(value, "value").map(byte[]::clone);
      headers = List.copyOf(headers);
    }

    /**
     * A record with a key and a value, partitioned by the producer, without headers.
     *
     * @param key the serialized key (copied), {@code null} for none
     * @param value the serialized value (copied), {@code null} for a tombstone
     * @return the record
     */
    public static Message of(byte[] key, byte[] value) {
      return new Message(OptionalInt.empty(), Optional.ofNullable(key), Optional.ofNullable(value), List.of());
    }

    /**
     * The serialized key.
     *
     * @return a copy of the key bytes, empty for a record without key
     */
    @Override
    public Optional<byte[]> key() {
      return key.map(byte[]::clone);
    }

    /**
     * The serialized value.
     *
     * @return a copy of the value bytes, empty for a tombstone
     */
    @Override
    public Optional<byte[]> value() {
      return value.map(byte[]::clone);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Message m && partition.equals(m.partition) && same(key, m.key) && same(value, m.value)
          && headers.equals(m.headers);
    }

    @Override
    public int hashCode() {
      return Objects.hash(partition, key.map(Arrays::hashCode), value.map(Arrays::hashCode), headers);
    }

    @Override
    public String toString() {
      return "Message[partition=" + partition + ", key=" + key.map(k -> k.length + " bytes").orElse("none")
          + ", value=" + value.map(v -> v.length + " bytes").orElse("none") + ", headers=" + headers + "]";
    }

    private static boolean same(Optional<byte[]> a, Optional<byte[]> b) {
      return a.isPresent() == b.isPresent() && (a.isEmpty() || Arrays.equals(a.get(), b.get()));
    }
  }

  /**
   * A record header. Immutable.
   *
   * @param key the header's name
   * @param value its bytes, or empty for a null value
   */
  record Header(String key, Optional<byte[]> value) {
    /**
     * Makes the header, copying its value bytes.
     *
     * @param key the header's name
     * @param value its bytes, or empty for a null value
     * @throws NullPointerException if a component is null
     */
    public Header {
      Objects.requireNonNull(key, "key");
      value = Objects.requireNonNull(value, "value").map(byte[]::clone);
    }

    /**
     * The header's value.
     *
     * @return a copy of the value bytes, empty for a null value
     */
    @Override
    public Optional<byte[]> value() {
      return value.map(byte[]::clone);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Header h && key.equals(h.key) && value.isPresent() == h.value.isPresent()
          && (value.isEmpty() || Arrays.equals(value.get(), h.value.get()));
    }

    @Override
    public int hashCode() {
      return Objects.hash(key, value.map(Arrays::hashCode));
    }
  }
}
