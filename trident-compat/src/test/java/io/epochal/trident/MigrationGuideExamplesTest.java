package io.epochal.trident;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.epochal.pipeline.MapStateRef;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.Stream;
import io.epochal.state.StateKind;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.storm.trident.operation.builtin.Count;
import org.apache.storm.trident.operation.builtin.MapGet;
import org.apache.storm.trident.state.StateType;
import org.apache.storm.trident.state.map.CachedMap;
import org.apache.storm.trident.testing.FixedBatchSpout;
import org.apache.storm.trident.testing.MemoryMapState;
import org.apache.storm.trident.testing.Split;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.tuple.Fields;
import org.junit.jupiter.api.Test;

/** The "Migrating from Storm Trident" snippets of README.md, compiled and run with in-memory stand-ins. */
class MigrationGuideExamplesTest {

  @Test
  void shouldRunTheMemoryMapStateExample() {
    List<String> sentences = Sentences.make(100, 31);
    FixedBatchSpout spout = Sentences.spout(sentences, 10);
    Map<String, Long> queried = new ConcurrentHashMap<>();

    PipelineBuilder builder = Pipeline.newBuilder("word-count").partitions(4).threads(2);
    Stream<TridentTuple> words = EpochalTrident.newStream(builder, EpochalTrident.spout("spout1", spout))
        .flatMap(EpochalTrident.each(new Fields("sentence"), new Split(), new Fields("word")));
    MapStateRef<List<Object>, Long> counts = words.groupBy(EpochalTrident.key(new Fields("word")))
        .persistentAggregate("counts", EpochalTrident.tridentState(new MemoryMapState.Factory()),
            EpochalTrident.combiner(new Count()));
    EpochalTrident.stateQuery(words, counts, new Fields("word"), new MapGet(), new Fields("count"))
        .map(t -> queried.merge(t.getStringByField("word"), (Long) t.getValueByField("count"), Math::max));
    try (Pipeline pipeline = builder.build()) {
      pipeline.runUntilIdle();
    }
    assertEquals(Sentences.counts(sentences), new TreeMap<>(queried));
  }

  @Test
  @SuppressWarnings({"rawtypes", "unchecked"})
  void shouldRunTheCustomBackingMapExample() {
    List<String> sentences = Sentences.make(100, 32);
    long lastTridentTxid = 0;
    PipelineBuilder builder = Pipeline.newBuilder("redis-counts");
    builder.source(EpochalTrident.spout("spout1", Sentences.spout(sentences, 10)))
        .flatMap(EpochalTrident.each(new Fields("sentence"), new Split(), new Fields("word")))
        .groupBy(EpochalTrident.key(new Fields("word")))
        .persistentAggregate("counts",
            EpochalTrident.continueAfter(lastTridentTxid,
                EpochalTrident.opaqueState(ctx -> new CachedMap(new BytesStoreBackingMap("guide",
                    BytesStoreBackingMap.stormJson(StateType.OPAQUE), 0), 1000))),
            EpochalTrident.combiner(new Count()));
    try (Pipeline pipeline = builder.build()) {
      pipeline.runUntilIdle();
    }
    assertEquals(Sentences.counts(sentences).get("the") + "",
        BytesStoreBackingMap.rawJson("guide", List.of("the")).split(",")[1]);

    PipelineBuilder whole = Pipeline.newBuilder("redis-counts-factory");
    whole.source(EpochalTrident.spout("spout1", Sentences.spout(sentences, 10)))
        .flatMap(EpochalTrident.each(new Fields("sentence"), new Split(), new Fields("word")))
        .groupBy(EpochalTrident.key(new Fields("word")))
        .persistentAggregate("counts", EpochalTrident.tridentState(new BytesStoreBackingMap.Factory("guide-factory",
            StateType.OPAQUE, EpochalTrident.longSafeSerializer(StateType.OPAQUE), 0), StateKind.OPAQUE),
            EpochalTrident.combiner(new Count()));
    try (Pipeline pipeline = whole.build()) {
      pipeline.runUntilIdle();
    }
    assertEquals(BytesStoreBackingMap.rawJson("guide", List.of("the")).split(",")[1],
        BytesStoreBackingMap.rawJson("guide-factory", List.of("the")).split(",")[1]);
  }
}
