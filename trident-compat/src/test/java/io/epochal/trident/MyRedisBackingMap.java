package io.epochal.trident;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.storm.trident.state.OpaqueValue;
import org.apache.storm.trident.state.map.IBackingMap;

/**
 * The README's {@code MyRedisBackingMap}: a stand-in for a user's Trident {@code IBackingMap<OpaqueValue>} over an
 * external store, here a JVM-wide map per {@code conf.get("store")} name (what Redis would hold), so a test can read
 * what the pipeline wrote. Thread-safe.
 */
@SuppressWarnings("rawtypes")
final class MyRedisBackingMap implements IBackingMap<OpaqueValue> {
  private static final Map<String, Map<List<Object>, OpaqueValue>> STORES = new ConcurrentHashMap<>();
  private final Map<List<Object>, OpaqueValue> cells;

  MyRedisBackingMap(Map<String, Object> conf) {
    this.cells = STORES.computeIfAbsent(String.valueOf(conf.get("store")), n -> new ConcurrentHashMap<>());
  }

  /** @return the cell stored under {@code key} in store {@code name}, null if none */
  static OpaqueValue cell(String name, List<Object> key) {
    return STORES.getOrDefault(name, Map.of()).get(key);
  }

  @Override
  public List<OpaqueValue> multiGet(List<List<Object>> keys) {
    List<OpaqueValue> found = new ArrayList<>(keys.size());
    for (List<Object> key : keys) {
      found.add(cells.get(key));
    }
    return found;
  }

  @Override
  public void multiPut(List<List<Object>> keys, List<OpaqueValue> values) {
    for (int i = 0; i < keys.size(); i++) {
      cells.put(List.copyOf(keys.get(i)), values.get(i));
    }
  }
}
