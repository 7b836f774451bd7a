package io.epochal.testkit.examples;

import io.epochal.state.IBackingMap;
import io.epochal.state.opaque.OpaqueValue;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A DELIBERATELY WRONG user backing map, the kind of store adapter the testkit exists to catch: it assumes that a
 * second put of a key under the same txid is the rest of a batch that was split into two puts, and adds its increment
 * ({@code curr - prev}) to the stored value instead of replacing it. Without failures each key is put once per txid,
 * so every example-based test passes; a replayed batch (its earlier attempt failed after writing) is counted twice.
 * The correct store replaces the cell: {@code cells.put(key, cell)}.
 */
final class RetryAddingBackingMap implements IBackingMap<String, OpaqueValue<Long>> {
  private final Map<String, OpaqueValue<Long>> cells = new ConcurrentHashMap<>();

  @Override
  public Map<String, OpaqueValue<Long>> multiGet(Collection<? extends String> keys) {
    Map<String, OpaqueValue<Long>> found = new HashMap<>();
    for (String key : keys) {
      OpaqueValue<Long> cell = cells.get(key);
      if (cell != null) {
        found.put(key, cell);
      }
    }
    return java.util.Collections.unmodifiableMap(found);
  }

  @Override
  public void multiPut(Map<String, OpaqueValue<Long>> put) {
    put.forEach((key, cell) -> cells.merge(key, cell, (stored, again) -> stored.txid() != again.txid() ? again
        : new OpaqueValue<>(stored.curr() + again.curr() - again.prev().orElse(0L), again.prev(), again.txid())));
  }

  @Override
  public String describe() {
    return "RetryAddingBackingMap";
  }
}
