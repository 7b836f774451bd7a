package io.epochal.trident;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import io.epochal.state.opaque.OpaqueTableLayout;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import org.apache.storm.Config;
import org.apache.storm.LocalCluster;
import org.apache.storm.LocalDRPC;
import org.apache.storm.trident.Stream;
import org.apache.storm.trident.TridentState;
import org.apache.storm.trident.TridentTopology;
import org.apache.storm.trident.fluent.GroupedStream;
import org.apache.storm.trident.operation.BaseFunction;
import org.apache.storm.trident.operation.TridentCollector;
import org.apache.storm.trident.operation.builtin.Count;
import org.apache.storm.trident.operation.builtin.MapGet;
import org.apache.storm.trident.state.JSONOpaqueSerializer;
import org.apache.storm.trident.state.StateType;
import org.apache.storm.trident.state.map.MapCombinerAggStateUpdater;
import org.apache.storm.trident.testing.MemoryMapState;
import org.apache.storm.trident.testing.Split;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Values;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Epochal state inside real Storm Trident topologies on one {@link LocalCluster} (started once for the class): the
 * same word count over Storm's {@code MemoryMapState}, Epochal's opaque and transactional maps over an Epochal table
 * store, an Epochal map under {@code partitionPersist}, and a Trident {@code IBackingMap} from the test sources, each
 * read back through DRPC {@code stateQuery}; then with failures injected; then the stores Storm wrote taken over in
 * place by Epochal pipelines.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StormLocalClusterTest {
  private static final Fields SENTENCE = new Fields("sentence");
  private static final Fields WORD = new Fields("word");
  private static final Fields COUNT = new Fields("count");
  private static final Fields ARGS = new Fields("args");
  private static final long TIMEOUT_MS = 60_000;

  /** The Epochal table store the Storm topologies write (in-memory: the LocalCluster runs in this JVM). */
  static final TableStore STORE = TableStores.inMemory();
  /** An Epochal backing map that fails some of its writes half-way. */
  static final FaultyBackingMap<TransactionalValue<Object>> FAULTY = new FaultyBackingMap<>("faulty", 5);

  private static LocalCluster cluster;
  private static LocalDRPC drpc;
  private static List<String> firstRun;

  static TableStore store() {
    return STORE;
  }

  static FaultyBackingMap<TransactionalValue<Object>> faulty() {
    return FAULTY;
  }

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = new LocalCluster();
    drpc = new LocalDRPC(cluster.getMetricRegistry());
  }

  @AfterAll
  static void stopCluster() throws Exception {
    if (drpc != null) {
      drpc.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Config conf() {
    Config conf = new Config();
    conf.setMaxSpoutPending(1); // more in flight makes Storm 2.8.3 itself double-count (STORM-1557)
    conf.put(Config.TOPOLOGY_TRIDENT_BATCH_EMIT_INTERVAL_MILLIS, 20);
    conf.setNumWorkers(1);
    return conf;
  }

  /** Emits 1 per word: the pre-aggregated partial a Trident {@code MapCombinerAggStateUpdater} expects. */
  static final class One extends BaseFunction {
    private static final long serialVersionUID = 1L;

    @Override
    public void execute(TridentTuple tuple, TridentCollector collector) {
      collector.emit(new Values(1L));
    }
  }

  private static void query(TridentTopology topology, String function, TridentState state) {
    topology.newDRPCStream(function, drpc).each(ARGS, new Split(), WORD).groupBy(WORD)
        .stateQuery(state, WORD, new MapGet(), COUNT);
  }

  /** The counts a DRPC query over every word returns (absent words omitted). */
  private static Map<String, Long> counts(String function) throws Exception {
    String result = drpc.execute(function, String.join(" ", Sentences.words()));
    Map<String, Long> out = new TreeMap<>();
    for (Object row : (List<?>) TridentJson.parse(result.getBytes(StandardCharsets.UTF_8), "DRPC result")) {
      List<?> r = (List<?>) row;
      if (r.get(2) != null) {
        out.put((String) r.get(1), ((Number) r.get(2)).longValue());
      }
    }
    return out;
  }

  private static void await(String what, BooleanSupplier done) throws InterruptedException {
    long deadline = System.currentTimeMillis() + TIMEOUT_MS;
    while (!done.getAsBoolean()) {
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(200);
    }
  }

  /** Polls every query until all return {@code expected} (or times out), and returns what each returned last. */
  private static Map<String, Map<String, Long>> awaitCounts(List<String> functions, Map<String, Long> expected)
      throws InterruptedException {
    Map<String, Map<String, Long>> last = new LinkedHashMap<>();
    try {
      await("counts " + expected, () -> {
        try {
          for (String f : functions) {
            last.put(f, counts(f));
          }
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
        return last.values().stream().allMatch(expected::equals);
      });
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; last results " + last, e);
    }
    return last;
  }

  private static Map<String, Long> tableCounts(String table) {
    Map<String, Long> out = new TreeMap<>();
    try (StoreTransaction tx = STORE.begin()) {
      Table t = STORE.findTable(table).orElseThrow();
      for (Row row : tx.scan(t)) {
        out.put((String) EpochalTrident.keyCodec().fromKey(row.key()).get(0),
            (Long) EpochalTrident.jsonValueCodec().decode(row.getBytes("value")));
      }
    }
    return out;
  }

  private static long maxTxid(String table) {
    long max = 0;
    try (StoreTransaction tx = STORE.begin()) {
      for (Row row : tx.scan(STORE.findTable(table).orElseThrow())) {
        max = Math.max(max, row.getLong("txid"));
      }
    }
    return max;
  }

  @Test
  @Order(1)
  @SuppressWarnings("try")
  void shouldCountTheSameWithMemoryMapStateAndWithEpochalState() throws Exception {
    firstRun = Sentences.make(300, 11);
    Map<String, Long> expected = Sentences.counts(firstRun);

    TridentTopology topology = new TridentTopology();
    Stream words = topology.newStream("clean", Sentences.spout(firstRun, 10)).each(SENTENCE, new Split(), WORD);
    GroupedStream grouped = words.groupBy(WORD);
    query(topology, "memory", grouped.persistentAggregate(new MemoryMapState.Factory(), new Count(), COUNT)
        .parallelismHint(2));
    query(topology, "epochal-opaque", grouped.persistentAggregate(
        EpochalTrident.stormState("lc", StormLocalClusterTest::store, "wc_opaque").opaque(), new Count(), COUNT)
        .parallelismHint(2));
    query(topology, "epochal-transactional", grouped.persistentAggregate(
        EpochalTrident.stormState("lc", StormLocalClusterTest::store, "wc_transactional").localCacheSize(100)
            .transactionalSpec(), new Count(), COUNT));
    query(topology, "epochal-persist", words.each(new One(), new Fields("one")).partitionBy(WORD).partitionPersist(
        EpochalTrident.stormState("lc", StormLocalClusterTest::store, "wc_persist").transactional(),
        new Fields("word", "one"), new MapCombinerAggStateUpdater(new Count(), WORD, new Fields("one")))
        .parallelismHint(2));
    // The Trident IBackingMap of the test sources, under Storm's own OpaqueMap (with the Long-safe JSON serializer:
    // Storm's own one would crash Count on reload with Integer values).
    query(topology, "trident-backing-map", grouped.persistentAggregate(new BytesStoreBackingMap.Factory(
        "lc-bytes", StateType.OPAQUE, EpochalTrident.longSafeSerializer(StateType.OPAQUE), 0), new Count(), COUNT));

    long started = System.nanoTime();
    try (LocalCluster.LocalTopology running = cluster.submitTopology("clean", conf(), topology.build())) {
      Map<String, Map<String, Long>> results = awaitCounts(List.of("memory", "epochal-opaque",
          "epochal-transactional", "epochal-persist", "trident-backing-map"), expected);
      System.out.printf("clean word count: %d words identical in 5 states after %d ms%n", expected.size(),
          (System.nanoTime() - started) / 1_000_000);
      results.values().forEach(r -> assertEquals(expected, r));
    }
    assertEquals(expected, tableCounts("wc_opaque"));
    assertEquals(expected, tableCounts("wc_transactional"));
    assertEquals(expected, tableCounts("wc_persist"));
  }

  @Test
  @Order(2)
  @SuppressWarnings("try")
  void shouldStayExactWithInjectedFailures() throws Exception {
    List<String> sentences = Sentences.make(300, 12);
    Map<String, Long> expected = Sentences.counts(sentences);

    TridentTopology topology = new TridentTopology();
    GroupedStream grouped = topology.newStream("faulty", Sentences.spout(sentences, 10))
        .each(SENTENCE, new Flaky.Split("lc-split", 37), WORD).groupBy(WORD);
    query(topology, "faulty-memory", grouped.persistentAggregate(new MemoryMapState.Factory(), new Count(), COUNT));
    TridentState opaque = grouped.persistentAggregate(
        EpochalTrident.stormState("lc", StormLocalClusterTest::store, "faulty_opaque").opaque(), new Count(), COUNT)
        .parallelismHint(2);
    // Fails the batch after the opaque state wrote it: the replay must recompute from prev, not add twice.
    opaque.newValuesStream().each(new Fields("word", "count"), new Flaky.Filter("lc-after-state", 23));
    query(topology, "faulty-opaque", opaque);
    query(topology, "faulty-transactional", grouped.persistentAggregate(
        EpochalTrident.stormTransactionalState(StormLocalClusterTest::faulty), new Count(), COUNT));

    long started = System.nanoTime();
    try (LocalCluster.LocalTopology running = cluster.submitTopology("faulty", conf(), topology.build())) {
      awaitCounts(List.of("faulty-memory", "faulty-opaque", "faulty-transactional"), expected);
      // A query that runs after a batch's update failed, before its replay, sees that attempt's cells (as Trident's
      // own maps do): the durable rows may lag the query by one replay, so wait for them before stopping.
      await("durable counts " + expected, () -> expected.equals(tableCounts("faulty_opaque"))
          && expected.equals(faultyCounts()));
      System.out.printf("word count with failures: exact after %d ms, %d + %d + %d failures injected%n",
          (System.nanoTime() - started) / 1_000_000, Flaky.failures("lc-split"), Flaky.failures("lc-after-state"),
          FAULTY.failures.get());
    }
    assertTrue(Flaky.failures("lc-split") > 0, "failures before the state");
    assertTrue(Flaky.failures("lc-after-state") > 0, "failures after the state wrote");
    assertTrue(FAULTY.failures.get() > 0, "failures inside the state's multiPut");
    assertEquals(expected, tableCounts("faulty_opaque")); // nothing counted again by the last batches
    assertEquals(expected, faultyCounts());
  }

  private static Map<String, Long> faultyCounts() {
    Map<String, Long> out = new TreeMap<>();
    FAULTY.cells.snapshot().forEach((k, v) -> out.put((String) k.get(0), (Long) v.value()));
    return out;
  }

  @Test
  @Order(3)
  @SuppressWarnings({"rawtypes", "unchecked"})
  void shouldTakeOverWhatStormWroteInPlaceOnTheEpochalEngine() {
    List<String> more = Sentences.make(200, 13);
    List<String> all = new ArrayList<>(firstRun);
    all.addAll(more);
    Map<String, Long> expected = Sentences.counts(all);

    // 1. The Trident IBackingMap Storm wrote, read with Storm's own JSON serializer (Integers, widened by Epochal).
    long tridentTxid = 0;
    for (byte[] bytes : BytesStoreBackingMap.store("lc-bytes").values()) {
      tridentTxid = Math.max(tridentTxid, new JSONOpaqueSerializer().deserialize(bytes).getCurrTxid());
    }
    StateFactory<MapState<List<Object>, Long>> bytes = EpochalTrident.continueAfter(tridentTxid,
        EpochalTrident.opaqueState(new BytesStoreBackingMap("lc-bytes", new JSONOpaqueSerializer(), 0)));
    PipelineBuilder b = Pipeline.newBuilder("takeover-bytes").partitions(2).retryPolicy(RetryPolicy.immediate(5));
    b.source(EpochalTrident.spout("more", Sentences.spout(more, 10)))
        .flatMap(EpochalTrident.each(SENTENCE, new Split(), WORD)).groupBy(EpochalTrident.key(WORD))
        .persistentAggregate("counts", bytes, EpochalTrident.combiner(new Count()));
    try (Pipeline p = b.build()) {
      p.runUntilIdle();
    }
    Map<String, Long> taken = new TreeMap<>();
    BytesStoreBackingMap.store("lc-bytes").forEach((key, cell) -> taken.put(key.substring(2, key.length() - 2),
        ((Number) new JSONOpaqueSerializer().deserialize(cell).getCurr()).longValue()));
    assertEquals(expected, taken);

    // 2. The Epochal table Storm wrote, continued by an Epochal table-backed state on the epoch protocol.
    TableCheckpointStore checkpoints = TableCheckpointStore.on(STORE);
    StateFactory<MapState<List<Object>, Long>> table = EpochalTrident.continueAfter(maxTxid("wc_opaque"),
        OpaqueTableLayout.factory(TableStates.<List<Object>, Long>builder(EpochalTrident.keyCodec(),
            EpochalTrident.jsonValueCodec()).table("wc_opaque")));
    PipelineBuilder t = Pipeline.newBuilder("takeover-table").checkpointStore(checkpoints).partitions(2);
    t.source(EpochalTrident.spout("more", Sentences.spout(more, 10)))
        .flatMap(EpochalTrident.each(SENTENCE, new Split(), WORD)).groupBy(EpochalTrident.key(WORD))
        .persistentAggregate("counts", table, EpochalTrident.combiner(new Count()));
    try (Pipeline p = t.build()) {
      p.runUntilIdle();
    }
    assertEquals(expected, tableCounts("wc_opaque"));
  }

  @Test
  @Order(4)
  @SuppressWarnings("try")
  void shouldStayExactWithAGuardedOpaqueSpoutAndThreeBatchesInFlight() throws Exception {
    List<String> sentences = Sentences.make(400, 17);
    Map<String, Long> expected = Sentences.counts(sentences);
    StormStateBuilder state = EpochalTrident.stormState("lc", StormLocalClusterTest::store, "wc_guarded");
    TridentTopology topology = new TridentTopology();
    topology.newStream("guarded", state.guard("sentences",
            new TestPartitionedSpouts.Opaque(TestPartitionedSpouts.split(sentences, 2), 4)))
        .each(SENTENCE, new Split(), WORD).groupBy(WORD)
        .persistentAggregate(state.opaque(), new Count(), COUNT).parallelismHint(2);
    Config conf = conf();
    conf.setMaxSpoutPending(3); // the pairing check refuses an unguarded opaque partitioned spout here
    try (LocalCluster.LocalTopology running = cluster.submitTopology("guarded", conf, topology.build())) {
      await("guarded counts " + expected, () -> expected.equals(STORE.findTable("wc_guarded").isPresent()
          ? tableCounts("wc_guarded") : Map.of()));
      Thread.sleep(1_000); // a few more (empty) batches: nothing may be counted again
      assertEquals(expected, tableCounts("wc_guarded"));
    }
  }
}
