package io.epochal.trident;

import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;
import io.epochal.testkit.Oracle;
import io.epochal.testkit.ReplayArbitraries;
import io.epochal.testkit.ReplayCheck;
import io.epochal.testkit.ReplaySchedule;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.apache.storm.redis.trident.state.KeyFactory;
import org.apache.storm.redis.trident.state.Options;
import org.apache.storm.redis.trident.state.RedisMapState;
import org.apache.storm.trident.operation.builtin.Count;
import org.apache.storm.trident.state.JSONOpaqueSerializer;
import org.apache.storm.trident.state.JSONTransactionalSerializer;
import org.apache.storm.trident.state.OpaqueValue;
import org.apache.storm.trident.state.StateType;
import org.apache.storm.trident.state.TransactionalValue;
import org.apache.storm.trident.testing.Split;
import org.apache.storm.tuple.Fields;
import redis.clients.jedis.JedisPool;

/**
 * The testkit's replay properties on storm-redis' {@code RedisMapState} against a real {@code redis-server}: for
 * random inputs, batch cuts, partitions, batches in flight, threads and fault schedules (fail after the spout
 * emitted, before the first state read, between two keys of one update, after the state writes before the
 * checkpoint commit, after the checkpoint commit, and a process crash and restart at any of those points), a Trident
 * word count ({@code Split}, {@code Count}) into Redis ends with the word counts of the input in Redis, read back with
 * Storm's own JSON serializers. Each run has its own flushed Redis database; a restarted "process" builds new Trident
 * states, whose caches start empty, over the same database. Runs {@code -Depochal.tries=N} schedules per property.
 */
class RedisMapStateReplayProperties {
  private static final Fields SENTENCE = new Fields("sentence");
  private static final Fields WORD = new Fields("word");
  private static final AtomicInteger DATABASE = new AtomicInteger();
  private static RedisServer redis;
  private static RedisServer.Defaults poolDefaults;

  @BeforeContainer
  static void startRedis() throws Exception {
    poolDefaults = RedisServer.quickIdleEviction();
    redis = RedisServer.start();
  }

  @AfterContainer
  static void stopRedis() throws Exception {
    try {
      if (redis != null) {
        redis.close();
      }
    } finally {
      poolDefaults.close();
    }
  }

  /** One run's Redis: a flushed logical database, and the pool of the backing-map variant (closed after the run). */
  static final class Database implements AutoCloseable {
    final int index;
    JedisPool pool;

    Database() {
      this.index = DATABASE.incrementAndGet() % RedisServer.DATABASES;
      redis.flush(index);
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    synchronized RedisMapState backingMap(StateType type) {
      if (pool == null) {
        pool = redis.pool(index);
      }
      return new RedisMapState(pool, new Options(), type == StateType.OPAQUE ? new JSONOpaqueSerializer()
          : new JSONTransactionalSerializer(), new KeyFactory.DefaultKeyFactory());
    }

    @Override
    public synchronized void close() {
      if (pool != null) {
        pool.close();
      }
    }
  }

  /** How the Redis map is plugged in. */
  enum Plug {
    /** {@code EpochalTrident.tridentState(RedisMapState.opaque|transactional(config, options), kind)}. */
    TRIDENT_FACTORY,
    /** {@code EpochalTrident.opaqueState|transactionalState(new RedisMapState(pool, ...))}: Epochal's maps. */
    BACKING_MAP
  }

  @SuppressWarnings({"rawtypes", "unchecked"})
  private static StateFactory<MapState<List<Object>, Long>> state(StateType type, Plug plug, Database db) {
    StateKind kind = type == StateType.OPAQUE ? StateKind.OPAQUE : StateKind.TRANSACTIONAL;
    if (plug == Plug.TRIDENT_FACTORY) {
      org.apache.storm.trident.state.StateFactory factory = type == StateType.OPAQUE
          ? RedisMapState.opaque(redis.poolConfig(db.index), new Options<OpaqueValue>())
          : RedisMapState.transactional(redis.poolConfig(db.index), new Options<TransactionalValue>());
      return EpochalTrident.tridentState(factory, kind);
    }
    RedisMapState backing = db.backingMap(type);
    return type == StateType.OPAQUE ? EpochalTrident.opaqueState(backing)
        : EpochalTrident.transactionalState(backing);
  }

  static ReplayCheck<String, String, Long> wordCount(StateType type, Plug plug) {
    return ReplayCheck.<Database, String, String, Long>forPipeline(Database::new,
            (source, db, context) -> source
                .map(s -> EpochalTrident.tuple(SENTENCE, List.of(s)))
                .flatMap(EpochalTrident.each(SENTENCE, new Split(), WORD))
                .groupBy(EpochalTrident.key(WORD))
                .persistentAggregate("counts", context.wrapStates(state(type, plug, db)),
                    EpochalTrident.combiner(new Count())),
            db -> RedisCells.counts(redis.dump(db.index), type))
        .name("redis-" + type.name().toLowerCase() + "-" + plug.name().toLowerCase())
        .oracle(Oracle.fold("the word counts of the input", RedisMapStateReplayProperties::expectedCounts))
        .build();
  }

  private static final ReplayCheck<String, String, Long> OPAQUE_FACTORY = wordCount(StateType.OPAQUE,
      Plug.TRIDENT_FACTORY);
  private static final ReplayCheck<String, String, Long> TRANSACTIONAL_FACTORY = wordCount(StateType.TRANSACTIONAL,
      Plug.TRIDENT_FACTORY);
  private static final ReplayCheck<String, String, Long> OPAQUE_BACKING_MAP = wordCount(StateType.OPAQUE,
      Plug.BACKING_MAP);
  private static final ReplayCheck<String, String, Long> TRANSACTIONAL_BACKING_MAP = wordCount(
      StateType.TRANSACTIONAL, Plug.BACKING_MAP);

  @Provide
  Arbitrary<ReplaySchedule<String>> schedules() {
    // Words are Redis keys as they are (storm-redis' default key factory); "$" never occurs in them.
    return ReplayArbitraries.schedules(ReplayArbitraries.sentences(30));
  }

  @Property
  void redisMapStateOpaqueFactoryCountsExactlyOnce(@ForAll("schedules") ReplaySchedule<String> schedule) {
    ReplayCoverage.record(OPAQUE_FACTORY.check(schedule));
  }

  @Property
  void redisMapStateTransactionalFactoryCountsExactlyOnce(@ForAll("schedules") ReplaySchedule<String> schedule) {
    ReplayCoverage.record(TRANSACTIONAL_FACTORY.check(schedule));
  }

  @Property
  void redisMapStateUnderEpochalOpaqueMapCountsExactlyOnce(@ForAll("schedules") ReplaySchedule<String> schedule) {
    ReplayCoverage.record(OPAQUE_BACKING_MAP.check(schedule));
  }

  @Property
  void redisMapStateUnderEpochalTransactionalMapCountsExactlyOnce(
      @ForAll("schedules") ReplaySchedule<String> schedule) {
    ReplayCoverage.record(TRANSACTIONAL_BACKING_MAP.check(schedule));
  }

  static Map<String, Long> expectedCounts(List<String> input) {
    Map<String, Long> counts = new TreeMap<>();
    for (String s : input) {
      for (String w : s.split(" ")) {
        counts.merge(w, 1L, Long::sum);
      }
    }
    return counts;
  }
}
