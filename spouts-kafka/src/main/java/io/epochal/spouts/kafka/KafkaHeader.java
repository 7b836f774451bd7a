package io.epochal.spouts.kafka;

import io.epochal.api.Evolving;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * One header of a Kafka record: a key and an optional value (Kafka allows a null header value). The value is copied
 * in and out, so instances are immutable and thread-safe; {@code equals} compares the bytes.
 *
 * @since 0.1.0
 */
@Evolving
public final class KafkaHeader {
  private final String key;
  private final byte[] value;

  /**
   * Makes the header, copying the value bytes.
   *
   * @param key the header key, not {@code null}
   * @param value the value bytes (copied), or {@code null} for a header without a value
   */
  public KafkaHeader(String key, byte[] value) {
    this.key = Objects.requireNonNull(key, "key");
    this.value = value == null ? null : value.clone();
  }

  /**
   * The header's key.
   *
   * @return the key, never {@code null}
   */
  public String key() {
    return key;
  }

  /**
   * The header's value.
   *
   * @return a copy of the value bytes, empty for a header without a value
   */
  public Optional<byte[]> value() {
    return value == null ? Optional.empty() : Optional.of(value.clone());
  }

  /**
   * The size of the header's value, without copying it.
   *
   * @return the number of value bytes, 0 for a header without a value
   */
  public int valueSize() {
    return value == null ? 0 : value.length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KafkaHeader h && key.equals(h.key) && Arrays.equals(value, h.value);
  }

  @Override
  public int hashCode() {
    return 31 * key.hashCode() + Arrays.hashCode(value);
  }

  @Override
  public String toString() {
    return key + "=" + (value == null ? "null" : value.length + " bytes");
  }
}
