package io.epochal.trident;

import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.storm.Config;
import org.apache.storm.testing.InProcessZookeeper;
import org.apache.storm.trident.state.map.MapState;
import org.apache.storm.trident.testing.MemoryMapState;
import org.apache.storm.utils.Utils;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What the tests of the spout guard on Storm's own executor share: an in-process ZooKeeper for a test class (Storm's
 * partitioned executor keeps its partition state there), a topology configuration per test, Epochal states on a fresh
 * in-memory store per test (the store supplier must be serializable, so stores are found by name), Storm's
 * {@code MemoryMapState}, and reading word counts back. Register it with
 * {@code @RegisterExtension static final GuardWorld WORLD = new GuardWorld("prefix");}.
 */
final class GuardWorld implements BeforeAllCallback, AfterAllCallback {
  private static final Map<String, TableStore> STORES = new ConcurrentHashMap<>();
  private static final AtomicInteger NAMES = new AtomicInteger();
  private final String prefix;
  private InProcessZookeeper zookeeper;

  GuardWorld(String prefix) {
    this.prefix = prefix;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    zookeeper = new InProcessZookeeper();
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    zookeeper.close();
  }

  /** A topology configuration with a new storm id and {@code inFlight} batches in flight. */
  Map<String, Object> conf(int inFlight) {
    Map<String, Object> conf = new HashMap<>(Utils.readDefaultConfig());
    conf.put(Config.STORM_ZOOKEEPER_SERVERS, List.of("localhost"));
    conf.put(Config.STORM_ZOOKEEPER_PORT, (int) zookeeper.getPort());
    conf.put(Config.TOPOLOGY_MAX_SPOUT_PENDING, inFlight);
    conf.put(Config.STORM_ID, prefix + "-" + NAMES.incrementAndGet());
    return conf;
  }

  /** Epochal state on Storm over a new in-memory store, table {@code wc}. */
  StormStateBuilder newState() {
    String name = prefix + "-store-" + NAMES.incrementAndGet();
    STORES.put(name, TableStores.inMemory());
    return EpochalTrident.stormState(name, () -> STORES.get(name), "wc");
  }

  /** Partition 0 of 1 of {@code state}'s opaque map, as Storm's {@code makeState} gives it to a task. */
  @SuppressWarnings("unchecked")
  static MapState<Object> epochal(StormStateBuilder state, Map<String, Object> conf) {
    return (MapState<Object>) state.opaque().makeState(conf, null, 0, 1);
  }

  /** Storm's own {@code MemoryMapState} (an {@code OpaqueMap} over a map), partition 0 of 1. */
  @SuppressWarnings("unchecked")
  static MapState<Object> memory(Map<String, Object> conf) {
    return (MapState<Object>) new MemoryMapState.Factory().makeState(conf, null, 0, 1);
  }

  /** The counts {@code state} holds for {@code words} (absent words left out). */
  static Map<String, Long> counts(MapState<Object> state, Collection<String> words) {
    List<String> order = new ArrayList<>(words);
    List<List<Object>> keys = new ArrayList<>();
    order.forEach(w -> keys.add(List.of(w)));
    List<Object> values = state.multiGet(keys);
    Map<String, Long> out = new HashMap<>();
    for (int i = 0; i < order.size(); i++) {
      if (values.get(i) != null) {
        out.put(order.get(i), ((Number) values.get(i)).longValue());
      }
    }
    return out;
  }

  static long sum(Map<String, Long> counts) {
    return counts.values().stream().mapToLong(Long::longValue).sum();
  }
}
