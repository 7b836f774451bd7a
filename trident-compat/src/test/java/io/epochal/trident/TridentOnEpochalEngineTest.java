package io.epochal.trident;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.errors.GuaranteeNotDeliverableException;
import io.epochal.errors.StateAheadException;
import io.epochal.pipeline.MapStateRef;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.pipeline.RunSummary;
import io.epochal.pipeline.Stream;
import io.epochal.spout.Spout;
import io.epochal.spout.SpoutKind;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;
import io.epochal.state.opaque.OpaqueTableLayout;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.storm.trident.operation.builtin.Count;
import org.apache.storm.trident.operation.builtin.MapGet;
import org.apache.storm.trident.operation.builtin.Sum;
import org.apache.storm.trident.spout.BatchSpoutExecutor;
import org.apache.storm.trident.state.JSONOpaqueSerializer;
import org.apache.storm.trident.state.OpaqueValue;
import org.apache.storm.trident.state.StateType;
import org.apache.storm.trident.state.map.CachedMap;
import org.apache.storm.trident.state.map.MapCombinerAggStateUpdater;
import org.apache.storm.trident.testing.MemoryMapState;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.tuple.Fields;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Trident code (spouts, functions, filters, aggregators, state updaters, query functions, a Trident
 * {@code IBackingMap} and whole Trident state factories) running unchanged on the Epochal engine, with failures
 * injected before and after the state writes; every count must equal a plain recount of the input.
 */
class TridentOnEpochalEngineTest {
  private static final Fields SENTENCE = new Fields("sentence");
  private static final Fields WORD = new Fields("word");
  private static final AtomicInteger RUN = new AtomicInteger();

  private static String unique(String name) {
    return name + "-" + RUN.incrementAndGet();
  }

  private static PipelineBuilder builder(String name) {
    return Pipeline.newBuilder(name).partitions(3).threads(2).maxBatchesInFlight(2)
        .retryPolicy(RetryPolicy.immediate(50));
  }

  /** sentences -> words (failing every {@code failEvery}-th sentence), grouped by word. */
  private static io.epochal.pipeline.GroupedStream<List<Object>, TridentTuple> words(Stream<TridentTuple> sentences,
      String name, long failEvery) {
    return sentences.flatMap(EpochalTrident.each(SENTENCE, new Flaky.Split(name, failEvery), WORD))
        .groupBy(EpochalTrident.key(WORD));
  }

  /** The counts stored by {@link BytesStoreBackingMap}, read back with Storm's own JSON serializer. */
  @SuppressWarnings("rawtypes")
  private static Map<String, Long> storedCounts(String store, StateType type) {
    Map<String, Long> out = new TreeMap<>();
    BytesStoreBackingMap.store(store).forEach((key, bytes) -> {
      Object cell = BytesStoreBackingMap.stormJson(type).deserialize(bytes);
      Object value = cell instanceof OpaqueValue o ? o.getCurr()
          : ((org.apache.storm.trident.state.TransactionalValue) cell).getVal();
      out.put(key.substring(2, key.length() - 2), ((Number) value).longValue());
    });
    return out;
  }

  @ParameterizedTest
  @EnumSource(value = StateType.class, names = {"OPAQUE", "TRANSACTIONAL"})
  @SuppressWarnings({"rawtypes", "unchecked"})
  void shouldRunATridentBackingMapUnchangedWithExactCountsUnderFailures(StateType type) {
    List<String> sentences = Sentences.make(600, 1);
    String store = unique("bytes-" + type);
    String flaky = unique("split");
    String after = unique("after-state");
    // Storm's own JSON serializers: integers come back as Integer, which Count cannot add to on Storm 2.6+.
    BytesStoreBackingMap backing = new BytesStoreBackingMap(store, BytesStoreBackingMap.stormJson(type), 7);
    StateFactory<MapState<List<Object>, Long>> state = type == StateType.OPAQUE
        ? EpochalTrident.opaqueState(backing) : EpochalTrident.transactionalState(backing);

    PipelineBuilder b = builder(unique("wc"));
    MapStateRef<List<Object>, Long> counts = words(b.source(EpochalTrident.spout("sentences",
        Sentences.spout(sentences, 25))), flaky, 41)
        .persistentAggregate("counts", state, EpochalTrident.combiner(new Count()));
    counts.newValuesStream().map(EpochalTrident.newValues(WORD, new Fields("count")))
        .filter(EpochalTrident.filter(null, new Flaky.Filter(after, 53)));
    try (Pipeline p = b.build()) {
      RunSummary run = p.runUntilIdle();
      assertTrue(run.failedAttempts() > 0, "failures were injected");
    }
    assertTrue(Flaky.failures(flaky) > 0 && Flaky.failures(after) > 0, "both failure points fired");
    assertEquals(Sentences.counts(sentences), storedCounts(store, type));
    String cell = BytesStoreBackingMap.rawJson(store, List.of("the"));
    assertTrue(cell.matches(type == StateType.OPAQUE ? "\\[\\d+,\\d+,(\\d+|null)\\]" : "\\[\\d+,\\d+\\]"), cell);
  }

  @Test
  void shouldRunMemoryMapStateAndQueryItWithMapGet() {
    List<String> sentences = Sentences.make(300, 2);
    Map<String, Long> seen = new ConcurrentHashMap<>();
    PipelineBuilder b = builder(unique("memory"));
    Stream<TridentTuple> words = b.source(EpochalTrident.spout("sentences", Sentences.spout(sentences, 20)))
        .flatMap(EpochalTrident.each(SENTENCE, new Flaky.Split(unique("split"), 29), WORD));
    MapStateRef<List<Object>, Long> counts = words.groupBy(EpochalTrident.key(WORD))
        .persistentAggregate("counts", EpochalTrident.tridentState(new MemoryMapState.Factory()),
            EpochalTrident.combiner(new Count()));
    EpochalTrident.stateQuery(words, counts, WORD, new MapGet(), new Fields("count"))
        .map(t -> seen.merge(t.getStringByField("word"), ((Number) t.getValueByField("count")).longValue(),
            Math::max));
    try (Pipeline p = b.build()) {
      p.runUntilIdle();
    }
    assertEquals(Sentences.counts(sentences), new TreeMap<>(seen));
  }

  @Test
  @SuppressWarnings({"rawtypes", "unchecked"})
  void shouldRunATridentStateUpdaterOnAnEpochalMap() {
    List<String> sentences = Sentences.make(300, 3);
    InMemoryBackingMap<List<Object>, TransactionalValue<Long>> store = new InMemoryBackingMap<>("counts");
    PipelineBuilder b = builder(unique("updater"));
    // As Trident's persistentAggregate feeds it: the group fields and a pre-aggregated partial ("one" = 1 per word).
    Fields wordAndOne = new Fields("word", "one");
    b.source(EpochalTrident.spout("sentences", Sentences.spout(sentences, 20)))
        .flatMap(EpochalTrident.each(SENTENCE, new Flaky.Split(unique("split"), 31), WORD))
        .map(t -> EpochalTrident.tuple(wordAndOne, List.of(t.getStringByField("word"), 1L)))
        .groupBy(EpochalTrident.key(WORD))
        .partitionPersist("counts", TransactionalMap.factory(store), EpochalTrident.updater(wordAndOne,
            new MapCombinerAggStateUpdater(new Count(), WORD, new Fields("one"))));
    try (Pipeline p = b.build()) {
      p.runUntilIdle();
    }
    Map<String, Long> counts = new TreeMap<>();
    store.snapshot().forEach((k, v) -> counts.put((String) k.get(0), v.value()));
    assertEquals(Sentences.counts(sentences), counts);
  }

  @Test
  @SuppressWarnings({"rawtypes", "unchecked"})
  void shouldRunAPartitionedTransactionalSpoutExactlyOnce() {
    List<String> sentences = Sentences.make(500, 4);
    String store = unique("bytes-partitioned");
    PipelineBuilder b = builder(unique("partitioned"));
    words(b.source(EpochalTrident.spout("partitioned", new TestPartitionedSpouts.Transactional(
        TestPartitionedSpouts.split(sentences, 3), 7))), unique("split"), 23)
        .persistentAggregate("counts", EpochalTrident.transactionalState(
            new BytesStoreBackingMap<>(store, EpochalTrident.longSafeSerializer(StateType.TRANSACTIONAL), 5)),
            EpochalTrident.combiner(new Count()));
    try (Pipeline p = b.build()) {
      assertTrue(p.runUntilIdle().failedAttempts() > 0);
    }
    assertEquals(Sentences.counts(sentences), storedCounts(store, StateType.TRANSACTIONAL));
  }

  @Test
  void shouldRunAKafkaStyleOpaqueSpoutOnTheEpochProtocol() {
    List<String> sentences = Sentences.make(500, 5);
    TableStore tables = TableStores.inMemory();
    TableCheckpointStore checkpoints = TableCheckpointStore.on(tables);
    PipelineBuilder b = builder(unique("opaque")).checkpointStore(checkpoints);
    words(b.source(EpochalTrident.spout("kafka-like", new TestPartitionedSpouts.Opaque(
        TestPartitionedSpouts.split(sentences, 3), 6))), unique("split"), 97)
        .persistentAggregate("counts", OpaqueTableLayout.factory(
            TableStates.builder(EpochalTrident.keyCodec(), Codecs.longs()).table("word_counts")),
            EpochalTrident.combiner(new Count()));
    try (Pipeline p = b.build()) {
      assertTrue(p.runUntilIdle().failedAttempts() > 0);
    }
    Map<String, Long> counts = new TreeMap<>();
    try (StoreTransaction tx = tables.begin()) {
      Table table = tables.findTable("word_counts").orElseThrow();
      tx.scan(table).forEach(row -> counts.put((String) EpochalTrident.keyCodec().fromKey(row.key()).get(0),
          Codecs.longs().decode(row.getBytes("value"))));
    }
    assertEquals(Sentences.counts(sentences), counts);
  }

  @Test
  void shouldRefuseAnOpaqueSpoutWithAnOpaqueMapOnThePerKeyProtocol() {
    PipelineBuilder b = builder(unique("refused"));
    words(b.source(EpochalTrident.spout("kafka-like", new TestPartitionedSpouts.Opaque(
        TestPartitionedSpouts.split(List.of("a b"), 1), 6))), unique("split"), 0)
        .persistentAggregate("counts", EpochalTrident.tridentState(new MemoryMapState.Factory()),
            EpochalTrident.combiner(new Count()));
    GuaranteeNotDeliverableException e = assertThrows(GuaranteeNotDeliverableException.class, b::build);
    assertTrue(e.getMessage().contains("kafka-like"), e.getMessage());
  }

  @Test
  void shouldRunAGenericTridentSpoutAndAReducer() {
    List<String> sentences = Sentences.make(200, 6);
    InMemoryBackingMap<List<Object>, TransactionalValue<Long>> store = new InMemoryBackingMap<>("lengths");
    PipelineBuilder b = builder(unique("generic"));
    Spout<TridentTuple, ?> spout = EpochalTrident.spout("generic",
        new BatchSpoutExecutor(Sentences.spout(sentences, 15)), SpoutKind.TRANSACTIONAL);
    words(b.source(spout), unique("split"), 17).persistentAggregate("letters", TransactionalMap.factory(store),
        EpochalTrident.reducer(WORD, new org.apache.storm.trident.operation.ReducerAggregator<Long>() {
          @Override
          public Long init() {
            return 0L;
          }

          @Override
          public Long reduce(Long curr, TridentTuple tuple) {
            return curr + tuple.getString(0).length();
          }
        }));
    try (Pipeline p = b.build()) {
      p.runUntilIdle();
    }
    Map<String, Long> letters = new TreeMap<>();
    store.snapshot().forEach((k, v) -> letters.put((String) k.get(0), v.value()));
    Map<String, Long> expected = new TreeMap<>();
    Sentences.counts(sentences).forEach((w, n) -> expected.put(w, n * w.length()));
    assertEquals(expected, letters);
  }

  @Test
  @SuppressWarnings({"rawtypes", "unchecked"})
  void shouldTakeOverAStoreTridentWroteAfterItsLastTxid() {
    String store = unique("taken-over");
    JSONOpaqueSerializer json = new JSONOpaqueSerializer();
    // What Trident left: "the" counted 3 by txid 7 (2 before it), "cow" 1 by txid 4.
    BytesStoreBackingMap.store(store).put("[\"the\"]", json.serialize(new OpaqueValue(7L, 3, 2)));
    BytesStoreBackingMap.store(store).put("[\"cow\"]", json.serialize(new OpaqueValue(4L, 1, null)));
    List<String> sentences = List.of("the cow", "the moon");

    PipelineBuilder strict = builder(unique("takeover"));
    words(strict.source(EpochalTrident.spout("s", Sentences.spout(sentences, 1))), unique("split"), 0)
        .persistentAggregate("counts", EpochalTrident.opaqueState(
            new BytesStoreBackingMap(store, json, 0)), EpochalTrident.combiner(new Count()));
    try (Pipeline p = strict.build()) {
      StateAheadException e = assertThrows(StateAheadException.class, p::runUntilIdle);
      assertTrue(e.storedTxid() == 7 || e.storedTxid() == 4, e.getMessage());
      assertEquals(1, e.batchTxid());
    }

    PipelineBuilder b = builder(unique("takeover"));
    StateFactory<MapState<List<Object>, Long>> counts = EpochalTrident.opaqueState(
        new BytesStoreBackingMap(store, json, 0));
    words(b.source(EpochalTrident.spout("s", Sentences.spout(sentences, 1))), unique("split"), 0)
        .persistentAggregate("counts", EpochalTrident.continueAfter(7, counts), EpochalTrident.combiner(new Count()));
    try (Pipeline p = b.build()) {
      p.runUntilIdle();
    }
    assertEquals(Map.of("the", 5L, "cow", 2L, "moon", 1L), storedCounts(store, StateType.OPAQUE));
    assertEquals("[9,5,4]", BytesStoreBackingMap.rawJson(store, List.of("the")));
  }

  /**
   * storm-redis' shape of a Trident map: {@code TransactionalMap.build(new CachedMap(backing, n))}. {@code CachedMap}
   * caches a {@code multiPut}'s cells before the store write, so when that write fails, Trident's
   * {@code TransactionalMap} takes the cached cell of the failed batch for one already written and the replay writes
   * nothing. Without a fresh state after the failed attempt, "b" stays at 1 in the store (as on Storm).
   */
  public static final class CachedTransactionalFactory implements org.apache.storm.trident.state.StateFactory {
    private static final long serialVersionUID = 1L;
    private final String store;
    private final int failEvery;

    CachedTransactionalFactory(String store, int failEvery) {
      this.store = store;
      this.failEvery = failEvery;
    }

    @Override
    @SuppressWarnings({"rawtypes", "unchecked"})
    public org.apache.storm.trident.state.State makeState(Map<String, Object> conf,
        org.apache.storm.task.IMetricsContext metrics, int partitionIndex, int numPartitions) {
      return new org.apache.storm.trident.state.map.SnapshottableMap(
          org.apache.storm.trident.state.map.TransactionalMap.build(new CachedMap(
          new BytesStoreBackingMap<>(store, EpochalTrident.longSafeSerializer(StateType.TRANSACTIONAL), failEvery),
          1000)), new org.apache.storm.tuple.Values("$GLOBAL$"));
    }
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void shouldReplaceATridentStateWhoseStoreWriteFailedSoItsCacheCannotHideTheLostWrite(boolean partitionPersist) {
    String store = unique("cached-transactional");
    // Batch 1 "a b"; batch 2 "a b": its multiPut (the store's 2nd) writes "a" only, then fails; the replay must
    // write "b".
    PipelineBuilder b = Pipeline.newBuilder(unique("cached")).retryPolicy(RetryPolicy.immediate(5));
    Stream<TridentTuple> words = b.source(EpochalTrident.spout("s", Sentences.spout(List.of("a b", "a b"), 1)))
        .flatMap(EpochalTrident.each(SENTENCE, new Flaky.Split(unique("split"), 0), WORD));
    StateFactory<MapState<List<Object>, Long>> state = EpochalTrident.tridentState(
        new CachedTransactionalFactory(store, 2), StateKind.TRANSACTIONAL);
    if (partitionPersist) {
      Fields wordAndOne = new Fields("word", "one");
      words.map(t -> EpochalTrident.tuple(wordAndOne, List.of(t.getStringByField("word"), 1L)))
          .groupBy(EpochalTrident.key(WORD))
          .partitionPersist("counts", state, EpochalTrident.updater(wordAndOne,
              new MapCombinerAggStateUpdater(new Count(), WORD, new Fields("one"))));
    } else {
      words.groupBy(EpochalTrident.key(WORD)).persistentAggregate("counts", state,
          EpochalTrident.combiner(new Count()));
    }
    try (Pipeline p = b.build()) {
      assertEquals(1, p.runUntilIdle().failedAttempts());
    }
    assertEquals(Map.of("a", 2L, "b", 2L), storedCounts(store, StateType.TRANSACTIONAL));
  }

  @Test
  void shouldSumAProjectedFieldWithSum() {
    List<String> sentences = Sentences.make(100, 7);
    InMemoryBackingMap<List<Object>, TransactionalValue<Number>> store = new InMemoryBackingMap<>("lengths");
    PipelineBuilder b = builder(unique("sum"));
    b.source(EpochalTrident.spout("s", Sentences.spout(sentences, 10)))
        .flatMap(EpochalTrident.each(SENTENCE, new Flaky.Split(unique("split"), 0), WORD))
        .map(t -> EpochalTrident.tuple(new Fields("word", "len"), List.of(t.getStringByField("word"),
            (long) t.getStringByField("word").length())))
        .groupBy(t -> List.<Object>of("all"))
        .persistentAggregate("total", TransactionalMap.factory(store),
            EpochalTrident.combiner(new Fields("len"), new Sum()));
    try (Pipeline p = b.build()) {
      p.runUntilIdle();
    }
    long expected = 0;
    for (String s : sentences) {
      for (String w : s.split(" ")) {
        expected += w.length();
      }
    }
    assertEquals(expected, store.snapshot().get(List.of("all")).value().longValue());
    assertEquals(StateKind.OPAQUE, EpochalTrident.tridentState(new MemoryMapState.Factory()).kind());
  }
}
