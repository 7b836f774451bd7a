package io.epochal.trident;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.StateAheadException;
import io.epochal.pipeline.MapStateRef;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.pipeline.RunSummary;
import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.storm.Config;
import org.apache.storm.LocalCluster;
import org.apache.storm.redis.trident.state.Options;
import org.apache.storm.redis.trident.state.RedisMapState;
import org.apache.storm.trident.TridentTopology;
import org.apache.storm.trident.operation.builtin.Count;
import org.apache.storm.trident.state.OpaqueValue;
import org.apache.storm.trident.state.StateType;
import org.apache.storm.trident.state.TransactionalValue;
import org.apache.storm.trident.testing.Split;
import org.apache.storm.tuple.Fields;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Epochal takes over, in place, the counts a real Storm Trident topology wrote to Redis: a word count with
 * storm-redis' {@code RedisMapState} (opaque or transactional factory, default options) runs in Storm's
 * {@link LocalCluster} until Redis holds the counts of its input, and is stopped; then an Epochal pipeline with the
 * same state factory, wrapped in {@link EpochalTrident#continueAfter} with the largest txid Trident stored, counts
 * more input into the same Redis keys, with failures injected (before the state, after it wrote, and lost Redis
 * connections). The final counts in Redis must equal a recount of both inputs.
 */
class RedisTridentTakeoverTest {
  private static final Fields SENTENCE = new Fields("sentence");
  private static final Fields WORD = new Fields("word");
  private static final long TIMEOUT_MS = 120_000;
  private static final AtomicInteger RUN = new AtomicInteger();
  private static RedisServer redis;
  private static LocalCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    redis = RedisServer.start();
    cluster = new LocalCluster();
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (cluster != null) {
        cluster.close();
      }
    } finally {
      if (redis != null) {
        redis.close();
      }
    }
  }

  @SuppressWarnings({"rawtypes", "unchecked"})
  private static org.apache.storm.trident.state.StateFactory redisFactory(StateType type, int db) {
    return type == StateType.OPAQUE
        ? RedisMapState.opaque(redis.poolConfig(db), new Options<OpaqueValue>())
        : RedisMapState.transactional(redis.poolConfig(db), new Options<TransactionalValue>());
  }

  /** Runs the Trident word count on Storm until Redis holds the counts of {@code sentences}, then stops it. */
  @SuppressWarnings("try")
  private static void runOnStorm(String name, StateType type, int db, List<String> sentences) throws Exception {
    TridentTopology topology = new TridentTopology();
    topology.newStream(name, Sentences.spout(sentences, 10)).each(SENTENCE, new Split(), WORD).groupBy(WORD)
        .persistentAggregate(redisFactory(type, db), new Count(), new Fields("count")).parallelismHint(2);
    Config conf = new Config();
    conf.setMaxSpoutPending(1); // more in flight makes Storm 2.8.3 itself double-count (STORM-1557)
    conf.put(Config.TOPOLOGY_TRIDENT_BATCH_EMIT_INTERVAL_MILLIS, 20);
    conf.setNumWorkers(1);
    Map<String, Long> expected = Sentences.counts(sentences);
    long deadline = System.currentTimeMillis() + TIMEOUT_MS;
    try (LocalCluster.LocalTopology running = cluster.submitTopology(name, conf, topology.build())) {
      Map<String, Long> seen = Map.of();
      while (!expected.equals(seen)) {
        if (System.currentTimeMillis() > deadline) {
          throw new AssertionError("Storm did not write the counts to Redis within " + TIMEOUT_MS + " ms; last "
              + seen + ", expected " + expected);
        }
        Thread.sleep(200);
        seen = RedisCells.counts(redis.dump(db), type);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = StateType.class, names = {"OPAQUE", "TRANSACTIONAL"})
  void shouldContinueInPlaceTheCountsATridentTopologyWroteToRedis(StateType type) throws Exception {
    int db = RUN.incrementAndGet();
    redis.flush(db);
    List<String> first = Sentences.make(300, 60 + db);
    List<String> more = Sentences.make(400, 70 + db);
    List<String> all = new ArrayList<>(first);
    all.addAll(more);

    // 1. Trident on Storm writes the counts of the first input.
    runOnStorm("redis-" + type.name().toLowerCase() + "-" + db, type, db, first);
    Map<String, String> left = redis.dump(db);
    assertEquals(Sentences.counts(first), RedisCells.counts(left, type), "what Trident left: " + left);
    long lastTridentTxid = RedisCells.maxTxid(left, type);
    assertTrue(lastTridentTxid >= first.size() / 10, "Trident's last txid " + lastTridentTxid);
    StateKind kind = type == StateType.OPAQUE ? StateKind.OPAQUE : StateKind.TRANSACTIONAL;

    // Without continueAfter, Trident's own OpaqueMap refuses cells ahead of the batch, and nothing is written.
    if (type == StateType.OPAQUE) {
      PipelineBuilder strict = Pipeline.newBuilder("redis-strict-" + db).partitions(3);
      strict.source(EpochalTrident.spout("more", Sentences.spout(more, 20)))
          .flatMap(EpochalTrident.each(SENTENCE, new Split(), WORD)).groupBy(EpochalTrident.key(WORD))
          .persistentAggregate("counts", EpochalTrident.tridentState(redisFactory(type, db), kind),
              EpochalTrident.combiner(new Count()));
      try (Pipeline p = strict.build()) {
        StateAheadException e = assertThrows(StateAheadException.class, p::runUntilIdle);
        assertEquals(1, e.batchTxid(), e.getMessage());
      }
      assertEquals(left, redis.dump(db), "nothing written by the refused pipeline");
    }

    // 2. The Epochal engine continues the same counts in the same Redis keys, with failures.
    String before = "takeover-split-" + db;
    String after = "takeover-after-state-" + db;
    RedisConnectionKiller killer = new RedisConnectionKiller(redis, 9);
    StateFactory<MapState<List<Object>, Long>> counts = EpochalTrident.continueAfter(lastTridentTxid,
        EpochalTrident.tridentState(redisFactory(type, db), kind));
    PipelineBuilder b = Pipeline.newBuilder("redis-takeover-" + db).partitions(3).threads(2).maxBatchesInFlight(2)
        .retryPolicy(RetryPolicy.immediate(50));
    MapStateRef<List<Object>, Long> ref = EpochalTrident.newStream(b,
            EpochalTrident.spout("more", Sentences.spout(more, 20)))
        .flatMap(EpochalTrident.each(SENTENCE, new Flaky.Split(before, 47), WORD))
        .groupBy(EpochalTrident.key(WORD))
        .persistentAggregate("counts", killer.wrap(counts), EpochalTrident.combiner(new Count()));
    ref.newValuesStream().map(EpochalTrident.newValues(WORD, new Fields("count")))
        .filter(EpochalTrident.filter(null, new Flaky.Filter(after, 31)));
    RunSummary run;
    try (Pipeline p = b.build()) {
      run = p.runUntilIdle();
    }
    Map<String, String> end = redis.dump(db);
    assertEquals(Sentences.counts(all), RedisCells.counts(end, type), "counts in Redis after the takeover: " + end);
    assertTrue(Flaky.failures(before) > 0 && Flaky.failures(after) > 0 && killer.kills.get() > 0,
        "failures injected at every point");
    assertEquals(lastTridentTxid + run.lastTxid(), RedisCells.maxTxid(end, type),
        "Epochal's batch t wrote its cells as Trident txid " + lastTridentTxid + " + t");
    System.out.printf("takeover of RedisMapState %s: Trident on Storm counted %d sentences up to txid %d, Epochal "
        + "%d more in %d batches (%d failed attempts): %d words exact%n", type, first.size(), lastTridentTxid,
        more.size(), run.lastTxid(), run.failedAttempts(), end.size());
  }
}
