package io.epochal.trident;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.epochal.pipeline.GroupedStream;
import io.epochal.pipeline.MapStateRef;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.Stream;
import io.epochal.state.StateKind;
import io.epochal.state.opaque.OpaqueTableLayout;
import io.epochal.store.postgres.PostgresTableStore;
import io.epochal.store.rocksdb.RocksDbTableStore;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.storm.kafka.spout.trident.KafkaTridentSpoutConfig;
import org.apache.storm.kafka.spout.trident.KafkaTridentSpoutOpaque;
import org.apache.storm.trident.TridentState;
import org.apache.storm.trident.TridentTopology;
import org.apache.storm.trident.operation.builtin.Count;
import org.apache.storm.trident.operation.builtin.MapGet;
import org.apache.storm.trident.state.OpaqueValue;
import org.apache.storm.trident.state.map.CachedMap;
import org.apache.storm.trident.testing.FixedBatchSpout;
import org.apache.storm.trident.testing.MemoryMapState;
import org.apache.storm.trident.testing.Split;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.tuple.Fields;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's "Migrating from Storm Trident" snippets, verbatim (examples' ReadmeSnippetsTest compares them): the
 * Epochal-engine ones run over in-memory stand-ins ({@link MyRedisBackingMap}); the Storm "before" ones and those
 * needing a Kafka broker or a PostgreSQL server are wired only (Storm, Kafka and PostgreSQL do not run here).
 * {@link MigrationGuideExamplesTest} checks the counts of the same wiring.
 */
class ReadmeTridentSnippetsTest {
  @TempDir
  Path dir;

  @Test
  void theMemoryMapStateBeforeSnippetWiresATridentTopology() {
    FixedBatchSpout spout = Sentences.spout(Sentences.make(10, 1), 5);
    // README begin trident-memory-before
    TridentTopology topology = new TridentTopology();
    TridentState counts = topology.newStream("spout1", spout)            // e.g. a FixedBatchSpout
        .each(new Fields("sentence"), new Split(), new Fields("word"))
        .groupBy(new Fields("word"))
        .persistentAggregate(new MemoryMapState.Factory(), new Count(), new Fields("count"));
    // README end trident-memory-before
    assertNotNull(counts);
  }

  @Test
  void theMemoryMapStateAfterSnippetRunsOnTheEpochalEngine() {
    FixedBatchSpout spout = Sentences.spout(Sentences.make(100, 2), 10);
    // README begin trident-memory-after
    PipelineBuilder builder = Pipeline.newBuilder("word-count").partitions(4).threads(2);
    Stream<TridentTuple> words = EpochalTrident.newStream(builder, EpochalTrident.spout("spout1", spout))
        .flatMap(EpochalTrident.each(new Fields("sentence"), new Split(), new Fields("word")));
    MapStateRef<List<Object>, Long> counts = words.groupBy(EpochalTrident.key(new Fields("word")))
        .persistentAggregate("counts", EpochalTrident.tridentState(new MemoryMapState.Factory()),
            EpochalTrident.combiner(new Count()));
    EpochalTrident.stateQuery(words, counts, new Fields("word"), new MapGet(), new Fields("count"));  // Trident's stateQuery
    try (Pipeline pipeline = builder.build()) {
      pipeline.runUntilIdle();
    }
    // README end trident-memory-after
    assertNotNull(counts);
  }

  @Test
  @SuppressWarnings({"rawtypes", "unchecked"})
  void theCustomBackingMapAfterSnippetKeepsTridentCellsInTheUsersStore() {
    List<String> sentences = Sentences.make(100, 3);
    long lastTridentTxid = 0;
    Map<String, Object> conf = Map.of("store", "readme-after");
    PipelineBuilder builder = Pipeline.newBuilder("redis-counts");
    GroupedStream<List<Object>, TridentTuple> grouped = builder
        .source(EpochalTrident.spout("spout1", Sentences.spout(sentences, 10)))
        .flatMap(EpochalTrident.each(new Fields("sentence"), new Split(), new Fields("word")))
        .groupBy(EpochalTrident.key(new Fields("word")));
    // README begin trident-custom-map-after
    grouped.persistentAggregate("counts",
        EpochalTrident.continueAfter(lastTridentTxid,                        // see "operations" below
            EpochalTrident.opaqueState(ctx -> new CachedMap(new MyRedisBackingMap(conf), 1000))),
        EpochalTrident.combiner(new Count()));
    // or: EpochalTrident.tridentState(new RedisCounts(), StateKind.OPAQUE)  (Trident's own OpaqueMap semantics)
    // README end trident-custom-map-after
    try (Pipeline pipeline = builder.build()) {
      pipeline.runUntilIdle();
    }
    long expected = Sentences.counts(sentences).get("the");
    OpaqueValue cell = MyRedisBackingMap.cell("readme-after", List.of("the"));
    assertEquals(expected, ((Number) cell.getCurr()).longValue());

    PipelineBuilder whole = Pipeline.newBuilder("redis-counts-factory");
    whole.source(EpochalTrident.spout("spout1", Sentences.spout(sentences, 10)))
        .flatMap(EpochalTrident.each(new Fields("sentence"), new Split(), new Fields("word")))
        .groupBy(EpochalTrident.key(new Fields("word")))
        .persistentAggregate("counts", EpochalTrident.tridentState(new RedisCounts(), StateKind.OPAQUE),
            EpochalTrident.combiner(new Count()));
    try (Pipeline pipeline = whole.build()) {
      pipeline.runUntilIdle();
    }
    OpaqueValue stormCell = MyRedisBackingMap.cell("null", List.of("the"));   // RedisCounts gets Storm's conf
    assertNotNull(stormCell, "the whole factory wrote through MyRedisBackingMap");
  }

  @Test
  void theKafkaSnippetsWireBeforeAndAfter() {
    KafkaTridentSpoutConfig<String, String> kafkaConfig =
        KafkaTridentSpoutConfig.builder("localhost:9092", "sentences").build();
    TridentTopology topology = new TridentTopology();
    // README begin trident-kafka-before
    topology.newStream("kafka", new KafkaTridentSpoutOpaque<>(kafkaConfig))      // IOpaquePartitionedTridentSpout
        .each(new Fields("value"), new Split(), new Fields("word")).groupBy(new Fields("word"))
        .persistentAggregate(new RedisCounts(), new Count(), new Fields("count"));
    // README end trident-kafka-before

    // README begin trident-kafka-after
    TableCheckpointStore checkpoints = TableCheckpointStore.on(RocksDbTableStore.builder(dir).build());
    PipelineBuilder builder = Pipeline.newBuilder("kafka-word-count").checkpointStore(checkpoints);
    EpochalTrident.newStream(builder, EpochalTrident.spout("kafka", new KafkaTridentSpoutOpaque<>(kafkaConfig)))
        .flatMap(EpochalTrident.each(new Fields("value"), new Split(), new Fields("word")))
        .groupBy(EpochalTrident.key(new Fields("word")))
        .persistentAggregate("counts", OpaqueTableLayout.factory(TableStates.builder(EpochalTrident.keyCodec(), EpochalTrident.jsonValueCodec())), EpochalTrident.combiner(new Count()));
    // README end trident-kafka-after
    assertNotNull(builder);
  }

  @Test
  void theStormStateSnippetWiresAPostgresState() {
    String jdbcUrl = "jdbc:postgresql://localhost:5432/epochal";
    TridentTopology topology = new TridentTopology();
    TridentState counts = topology.newStream("spout1", Sentences.spout(Sentences.make(10, 4), 5))
        .each(new Fields("sentence"), new Split(), new Fields("word"))
        .groupBy(new Fields("word"))
        // README begin storm-state
        .persistentAggregate(EpochalTrident.stormState("wc", () -> PostgresTableStore.builder(jdbcUrl).build(),
            "word_counts").opaque(), new Count(), new Fields("count"))
        // README end storm-state
        ;
    assertNotNull(counts);
  }
}
