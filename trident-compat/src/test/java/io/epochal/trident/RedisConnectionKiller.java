package io.epochal.trident;

import io.epochal.spout.BatchAttempt;
import io.epochal.state.Epoch;
import io.epochal.state.MapState;
import io.epochal.state.StateContext;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;
import io.epochal.state.ValueUpdater;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Real lost connections for the Redis tests: wraps a map-state factory so that every {@code every}-th
 * {@code multiUpdate} (counted over all partitions) first has the server close every client connection
 * ({@link RedisServer#killClientConnections()}); the wrapped state's next {@code MGET} or {@code MSET} then fails with
 * Jedis' {@code JedisConnectionException}, as do the other partitions' next commands. Thread-safe.
 */
final class RedisConnectionKiller {
  private final RedisServer redis;
  private final long every;
  private final AtomicLong calls = new AtomicLong();
  /** How many times connections were closed (a kill that found no other client is not counted). */
  final AtomicLong kills = new AtomicLong();

  RedisConnectionKiller(RedisServer redis, long every) {
    this.redis = redis;
    this.every = every;
  }

  <K, V> StateFactory<MapState<K, V>> wrap(StateFactory<MapState<K, V>> inner) {
    return new StateFactory<>() {
      @Override
      public MapState<K, V> makeState(StateContext context) {
        return new Killing<>(inner.makeState(context));
      }

      @Override
      public StateKind kind() {
        return inner.kind();
      }

      @Override
      public String describe() {
        return inner.describe();
      }
    };
  }

  private final class Killing<K, V> implements MapState<K, V> {
    private final MapState<K, V> state;

    Killing(MapState<K, V> state) {
      this.state = state;
    }

    @Override
    public void begin(Epoch epoch) {
      state.begin(epoch);
    }

    @Override
    public void end() {
      state.end();
    }

    @Override
    public void abort() {
      state.abort();
    }

    @Override
    public Map<K, V> multiGet(Collection<? extends K> keys) {
      return state.multiGet(keys);
    }

    @Override
    public Map<K, V> multiUpdate(Map<K, ? extends ValueUpdater<V>> updaters) {
      if (calls.incrementAndGet() % every == 0 && redis.killClientConnections() > 0) {
        kills.incrementAndGet();
      }
      return state.multiUpdate(updaters);
    }

    @Override
    public void multiPut(Map<K, V> values) {
      state.multiPut(values);
    }
  }
}
