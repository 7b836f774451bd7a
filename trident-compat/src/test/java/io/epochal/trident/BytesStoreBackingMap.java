package io.epochal.trident;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.storm.task.IMetricsContext;
import org.apache.storm.topology.FailedException;
import org.apache.storm.trident.state.JSONOpaqueSerializer;
import org.apache.storm.trident.state.JSONTransactionalSerializer;
import org.apache.storm.trident.state.OpaqueValue;
import org.apache.storm.trident.state.Serializer;
import org.apache.storm.trident.state.State;
import org.apache.storm.trident.state.StateFactory;
import org.apache.storm.trident.state.StateType;
import org.apache.storm.trident.state.TransactionalValue;
import org.apache.storm.trident.state.map.IBackingMap;
import org.apache.storm.trident.state.map.MapState;
import org.apache.storm.trident.state.map.OpaqueMap;
import org.apache.storm.trident.state.map.TransactionalMap;
import org.apache.storm.trident.state.map.SnapshottableMap;
import org.apache.storm.tuple.Values;

/**
 * An {@link IBackingMap} written for Trident, in the shape of storm-redis' map states: cells serialized by a Trident
 * {@link Serializer} (Storm's JSON serializers by default) into a key-value store of bytes, keyed by the JSON of the
 * Trident key. The "external store" is a JVM-wide map of named stores, so a test can read what Storm or Epochal wrote.
 * Optional fault injection: every {@code failEvery}-th {@code multiPut} writes half of its cells and throws Storm's
 * {@link FailedException} (which fails the batch in Storm, and is retried by the Epochal engine).
 *
 * <p>Nothing here knows about Epochal: it compiles against storm-client only.
 */
public class BytesStoreBackingMap<T> implements IBackingMap<T> {
  /** The "external key-value store": store name -> (JSON key -> serialized cell). */
  static final Map<String, ConcurrentHashMap<String, byte[]>> STORES = new ConcurrentHashMap<>();
  static final Map<String, AtomicLong> PUTS = new ConcurrentHashMap<>();

  private final String store;
  private final Serializer<T> serializer;
  private final int failEvery;

  public BytesStoreBackingMap(String store, Serializer<T> serializer, int failEvery) {
    this.store = store;
    this.serializer = serializer;
    this.failEvery = failEvery;
  }

  static ConcurrentHashMap<String, byte[]> store(String name) {
    return STORES.computeIfAbsent(name, n -> new ConcurrentHashMap<>());
  }

  static String keyOf(List<Object> key) {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < key.size(); i++) {
      Object part = key.get(i);
      sb.append(i == 0 ? "" : ",").append(part instanceof String ? "\"" + part + "\"" : String.valueOf(part));
    }
    return sb.append(']').toString();
  }

  @Override
  public List<T> multiGet(List<List<Object>> keys) {
    Map<String, byte[]> db = store(store);
    List<T> out = new ArrayList<>(keys.size());
    for (List<Object> key : keys) {
      byte[] bytes = db.get(keyOf(key));
      out.add(bytes == null ? null : serializer.deserialize(bytes));
    }
    return out;
  }

  @Override
  public void multiPut(List<List<Object>> keys, List<T> vals) {
    Map<String, byte[]> db = store(store);
    long n = PUTS.computeIfAbsent(store, s -> new AtomicLong()).incrementAndGet();
    boolean fail = failEvery > 0 && n % failEvery == 0;
    int limit = fail ? keys.size() / 2 : keys.size();
    for (int i = 0; i < limit; i++) {
      db.put(keyOf(keys.get(i)), serializer.serialize(vals.get(i)));
    }
    if (fail) {
      throw new FailedException("injected: multiPut #" + n + " of store " + store + " wrote " + limit + " of "
          + keys.size() + " cells");
    }
  }

  /** The stored cell of {@code key}, decoded as JSON text (for assertions). */
  static String rawJson(String store, List<Object> key) {
    byte[] bytes = store(store).get(keyOf(key));
    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
  }

  /**
   * A user's Trident state factory over this backing map, like storm-redis' {@code RedisMapState.Factory}:
   * {@code SnapshottableMap(OpaqueMap|TransactionalMap.build(backing))}.
   */
  public static class Factory implements StateFactory {
    private static final long serialVersionUID = 1L;
    private final String store;
    private final StateType type;
    private final Serializer<?> serializer;
    private final int failEvery;

    public Factory(String store, StateType type, Serializer<?> serializer, int failEvery) {
      this.store = store;
      this.type = type;
      this.serializer = serializer;
      this.failEvery = failEvery;
    }

    @Override
    @SuppressWarnings({"rawtypes", "unchecked"})
    public State makeState(Map<String, Object> conf, IMetricsContext metrics, int partitionIndex, int numPartitions) {
      MapState map;
      if (type == StateType.OPAQUE) {
        map = OpaqueMap.build(new BytesStoreBackingMap<OpaqueValue>(store, (Serializer) serializer, failEvery));
      } else {
        map = TransactionalMap.build(new BytesStoreBackingMap<TransactionalValue>(store, (Serializer) serializer,
            failEvery));
      }
      return new SnapshottableMap(map, new Values("$GLOBAL$"));
    }
  }

  /** Storm's own JSON serializer for {@code type}. */
  @SuppressWarnings("rawtypes")
  static Serializer stormJson(StateType type) {
    return type == StateType.OPAQUE ? new JSONOpaqueSerializer() : new JSONTransactionalSerializer();
  }


}
