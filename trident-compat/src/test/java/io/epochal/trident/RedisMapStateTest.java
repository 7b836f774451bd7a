package io.epochal.trident;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.pipeline.MapStateRef;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.PipelineListener;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.pipeline.RunSummary;
import io.epochal.spout.BatchAttempt;
import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.storm.redis.trident.state.KeyFactory;
import org.apache.storm.redis.trident.state.Options;
import org.apache.storm.redis.trident.state.RedisMapState;
import org.apache.storm.trident.operation.builtin.Count;
import org.apache.storm.trident.state.JSONOpaqueSerializer;
import org.apache.storm.trident.state.JSONTransactionalSerializer;
import org.apache.storm.trident.state.OpaqueValue;
import org.apache.storm.trident.state.StateType;
import org.apache.storm.trident.state.TransactionalValue;
import org.apache.storm.tuple.Fields;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * storm-redis' {@code RedisMapState} (org.apache.storm:storm-redis, unchanged, default options) on the Epochal engine
 * against a real {@code redis-server}: its opaque and transactional Trident factories through
 * {@link EpochalTrident#tridentState}, and the same class as a Trident {@code IBackingMap} under Epochal's maps
 * ({@link EpochalTrident#opaqueState}, {@link EpochalTrident#transactionalState}). Failures are injected before the
 * state (a Trident function), after the state wrote (a filter on its new values), and inside the state's commit as
 * real lost connections: the server closes the state's pooled connections ({@code CLIENT KILL}), so its next
 * {@code MGET} or {@code MSET} fails with Jedis' {@link JedisConnectionException}. The counts in Redis, read with
 * Storm's own JSON serializers, must equal a plain recount of the input.
 */
class RedisMapStateTest {
  private static final Fields SENTENCE = new Fields("sentence");
  private static final Fields WORD = new Fields("word");
  private static final AtomicInteger DATABASE = new AtomicInteger();
  private static final AtomicInteger RUN = new AtomicInteger();
  private static RedisServer redis;

  @BeforeAll
  static void startRedis() throws Exception {
    redis = RedisServer.start();
  }

  @AfterAll
  static void stopRedis() throws Exception {
    if (redis != null) {
      redis.close();
    }
  }

  /** A fresh, empty logical database of the server. */
  private static int freshDatabase() {
    int db = DATABASE.incrementAndGet() % RedisServer.DATABASES;
    redis.flush(db);
    return db;
  }

  private static String unique(String name) {
    return name + "-" + RUN.incrementAndGet();
  }

  /** What the runs of this class check, whichever way the Redis map is plugged in. */
  private static void countExactlyUnderFailures(StateType type, int db, StateFactory<MapState<List<Object>, Long>>
      state) {
    List<String> sentences = Sentences.make(600, 41 + db);
    String before = unique("redis-split");
    String after = unique("redis-after-state");
    RedisConnectionKiller killer = new RedisConnectionKiller(redis, 7);
    Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
    PipelineBuilder b = Pipeline.newBuilder(unique("redis-wc")).partitions(3).threads(2).maxBatchesInFlight(2)
        .retryPolicy(RetryPolicy.immediate(50))
        .listener(new PipelineListener() {
          @Override
          public void onAttemptFailed(BatchAttempt attempt, Throwable cause) {
            failures.add(cause);
          }
        });
    MapStateRef<List<Object>, Long> counts = EpochalTrident.newStream(b,
            EpochalTrident.spout("sentences", Sentences.spout(sentences, 25)))
        .flatMap(EpochalTrident.each(SENTENCE, new Flaky.Split(before, 43), WORD))
        .groupBy(EpochalTrident.key(WORD))
        .persistentAggregate("counts", killer.wrap(state), EpochalTrident.combiner(new Count()));
    counts.newValuesStream().map(EpochalTrident.newValues(WORD, new Fields("count")))
        .filter(EpochalTrident.filter(null, new Flaky.Filter(after, 59)));
    RunSummary run;
    try (Pipeline p = b.build()) {
      run = p.runUntilIdle();
    }
    Map<String, String> dump = redis.dump(db);
    assertEquals(Sentences.counts(sentences), RedisCells.counts(dump, type), "counts in Redis, " + dump);
    assertTrue(Flaky.failures(before) > 0, "failures before the state");
    assertTrue(Flaky.failures(after) > 0, "failures after the state wrote");
    assertTrue(killer.kills.get() > 0, "connections killed");
    assertTrue(failures.stream().anyMatch(RedisMapStateTest::lostConnection),
        "some attempt failed on a lost Redis connection: " + failures);
    assertTrue(run.failedAttempts() >= failures.size() && run.lastTxid() >= sentences.size() / 25,
        "run " + run + " with " + failures.size() + " failures");
    System.out.printf("RedisMapState %s: exact counts of %d words after %d failed attempts (%d before the state, "
        + "%d after it wrote, %d connection kills)%n", type, dump.size(), failures.size(), Flaky.failures(before),
        Flaky.failures(after), killer.kills.get());
  }

  private static boolean lostConnection(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof JedisConnectionException) {
        return true;
      }
    }
    return false;
  }

  @ParameterizedTest
  @EnumSource(value = StateType.class, names = {"OPAQUE", "TRANSACTIONAL"})
  @SuppressWarnings({"rawtypes", "unchecked"})
  void shouldCountExactlyWithRedisMapStateFactoriesUnderFailures(StateType type) {
    int db = freshDatabase();
    org.apache.storm.trident.state.StateFactory factory = type == StateType.OPAQUE
        ? RedisMapState.opaque(redis.poolConfig(db), new Options<OpaqueValue>())
        : RedisMapState.transactional(redis.poolConfig(db), new Options<TransactionalValue>());
    countExactlyUnderFailures(type, db, EpochalTrident.tridentState(factory,
        type == StateType.OPAQUE ? StateKind.OPAQUE : StateKind.TRANSACTIONAL));
  }

  @ParameterizedTest
  @EnumSource(value = StateType.class, names = {"OPAQUE", "TRANSACTIONAL"})
  @SuppressWarnings({"rawtypes", "unchecked"})
  void shouldCountExactlyWithRedisMapStateAsABackingMapUnderFailures(StateType type) {
    int db = freshDatabase();
    Options options = new Options();
    // One pool for every partition's map, as a user plugging the backing map in by hand would share it.
    try (JedisPool pool = redis.pool(db)) {
      RedisMapState backing = new RedisMapState(pool, new Options(), type == StateType.OPAQUE
          ? new JSONOpaqueSerializer() : new JSONTransactionalSerializer(), new KeyFactory.DefaultKeyFactory());
      StateFactory<MapState<List<Object>, Long>> state = type == StateType.OPAQUE
          ? EpochalTrident.opaqueState(backing) : EpochalTrident.transactionalState(backing);
      countExactlyUnderFailures(type, db, state);
    }
  }
}
