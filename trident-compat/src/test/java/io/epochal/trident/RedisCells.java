package io.epochal.trident;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import org.apache.storm.trident.state.JSONOpaqueSerializer;
import org.apache.storm.trident.state.JSONTransactionalSerializer;
import org.apache.storm.trident.state.OpaqueValue;
import org.apache.storm.trident.state.StateType;
import org.apache.storm.trident.state.TransactionalValue;

/**
 * Reads what storm-redis' {@code RedisMapState} (default options: string keys, the word itself as the Redis key,
 * Storm's JSON serializers) left in a Redis database, with Storm's own serializers and no Epochal code, so the tests
 * check the bytes in Redis rather than what the adapters think they wrote.
 */
final class RedisCells {
  private RedisCells() {
  }

  /** The counts in the cells of {@code dump} (Redis key to JSON cell): {@code curr} of opaque, {@code val} of transactional cells. */
  static Map<String, Long> counts(Map<String, String> dump, StateType type) {
    Map<String, Long> out = new TreeMap<>();
    dump.forEach((key, json) -> {
      Object value = switch (type) {
        case OPAQUE -> opaque(json).getCurr();
        case TRANSACTIONAL -> transactional(json).getVal();
        default -> throw new IllegalArgumentException(type.toString());
      };
      out.put(key, ((Number) value).longValue());
    });
    return out;
  }

  /** The largest txid stored in the cells of {@code dump}: where an Epochal pipeline continues Trident's batches. */
  static long maxTxid(Map<String, String> dump, StateType type) {
    long max = 0;
    for (String json : dump.values()) {
      max = Math.max(max, type == StateType.OPAQUE ? opaque(json).getCurrTxid() : transactional(json).getTxid());
    }
    return max;
  }

  @SuppressWarnings("rawtypes")
  static OpaqueValue opaque(String json) {
    return new JSONOpaqueSerializer().deserialize(json.getBytes(StandardCharsets.UTF_8));
  }

  @SuppressWarnings("rawtypes")
  static TransactionalValue transactional(String json) {
    return new JSONTransactionalSerializer().deserialize(json.getBytes(StandardCharsets.UTF_8));
  }
}
