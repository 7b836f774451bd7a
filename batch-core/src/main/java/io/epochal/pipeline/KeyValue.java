package io.epochal.pipeline;

import java.util.Objects;

/**
 * A key and its value, as emitted by a state's new-values stream.
 *
 * @param key the key, never null
 * @param value the value, never null
 */
public record KeyValue<K, V>(K key, V value) {
  public KeyValue {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
  }
}
