package io.epochal.pipeline;

import io.epochal.api.Stable;
import java.util.Objects;

/**
 * A key and its value, as emitted by a state's new-values stream.
 *
 * @param key the key, never null
 * @param value the value, never null
 *
 * @since 0.1.0
 */
@Stable
public record KeyValue<K, V>(K key, V value) {
  /**
   * Checks that neither component is null.
   *
   * @param key the key, not null
   * @param value the value, not null
   * @throws NullPointerException if the key or the value is null
   */
  public KeyValue {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
  }
}
