package io.epochal.trident;

import io.epochal.state.Epoch;
import io.epochal.spout.BatchAttempt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.pipeline.Guarantee;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.spout.Spout;
import io.epochal.spout.SpoutKind;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.NonTransactionalMap;
import io.epochal.state.opaque.OpaqueMap;
import io.epochal.state.opaque.OpaqueValue;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.store.CheckpointStore;
import io.epochal.store.InMemoryCheckpointStore;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.storm.trident.operation.builtin.Count;
import org.apache.storm.trident.spout.BatchSpoutExecutor;
import org.apache.storm.trident.state.JSONOpaqueSerializer;
import org.apache.storm.trident.testing.Split;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.tuple.Fields;
import org.junit.jupiter.api.Test;

/** The spout adapters across restarts (metadata read back from the checkpoint as JSON) and their refusals. */
class SpoutAdaptersTest {
  private static final Fields SENTENCE = new Fields("sentence");
  private static final Fields WORD = new Fields("word");

  private static void count(Spout<TridentTuple, ?> spout,
      CheckpointStore checkpoints, io.epochal.state.StateFactory<io.epochal.state.MapState<List<Object>, Long>> state,
      long batches) {
    PipelineBuilder b = Pipeline.newBuilder("restart").checkpointStore(checkpoints).partitions(2);
    b.source(spout).flatMap(EpochalTrident.each(SENTENCE, new Split(), WORD)).groupBy(EpochalTrident.key(WORD))
        .persistentAggregate("counts", state, EpochalTrident.combiner(new Count()));
    try (Pipeline p = b.build()) {
      p.run(batches);
    }
  }

  @Test
  void shouldResumeAPartitionedTransactionalSpoutFromItsJsonMetadata() {
    List<String> sentences = Sentences.make(200, 21);
    InMemoryBackingMap<List<Object>, TransactionalValue<Long>> store = new InMemoryBackingMap<>("counts");
    CheckpointStore checkpoints = new InMemoryCheckpointStore();
    var data = TestPartitionedSpouts.split(sentences, 3);
    count(EpochalTrident.spout("p", new TestPartitionedSpouts.Transactional(data, 4)), checkpoints,
        TransactionalMap.factory(store), 3);
    assertEquals(3, checkpoints.load("restart").committedTxid());
    count(EpochalTrident.spout("p", new TestPartitionedSpouts.Transactional(data, 4)), checkpoints,
        TransactionalMap.factory(store), Long.MAX_VALUE);
    Map<String, Long> counts = new TreeMap<>();
    store.snapshot().forEach((k, v) -> counts.put((String) k.get(0), v.value()));
    assertEquals(Sentences.counts(sentences), counts);
    String committed = new String(checkpoints.load("restart").committedMetadata(), StandardCharsets.UTF_8);
    assertTrue(committed.contains("{\"start\":") || committed.contains("\"end\""), committed);
  }

  @Test
  void shouldResumeAnOpaquePartitionedSpoutFromItsJsonMetadata() {
    List<String> sentences = Sentences.make(200, 22);
    InMemoryBackingMap<List<Object>, OpaqueValue<Long>> store = new InMemoryBackingMap<>("counts");
    CheckpointStore checkpoints = new InMemoryCheckpointStore();
    var data = TestPartitionedSpouts.split(sentences, 2);
    PipelineBuilder first = Pipeline.newBuilder("opaque-restart").checkpointStore(checkpoints)
        .guarantee(Guarantee.AT_LEAST_ONCE); // no failures here; the per-key refusal is about replays
    first.source(EpochalTrident.spout("k", new TestPartitionedSpouts.Opaque(data, 5)))
        .flatMap(EpochalTrident.each(SENTENCE, new Split(), WORD)).groupBy(EpochalTrident.key(WORD))
        .persistentAggregate("counts", OpaqueMap.factory(store), EpochalTrident.combiner(new Count()));
    try (Pipeline p = first.build()) {
      p.run(4);
    }
    PipelineBuilder second = Pipeline.newBuilder("opaque-restart").checkpointStore(checkpoints)
        .guarantee(Guarantee.AT_LEAST_ONCE);
    second.source(EpochalTrident.spout("k", new TestPartitionedSpouts.Opaque(data, 5)))
        .flatMap(EpochalTrident.each(SENTENCE, new Split(), WORD)).groupBy(EpochalTrident.key(WORD))
        .persistentAggregate("counts", OpaqueMap.factory(store), EpochalTrident.combiner(new Count()));
    try (Pipeline p = second.build()) {
      p.runUntilIdle();
    }
    Map<String, Long> counts = new TreeMap<>();
    store.snapshot().forEach((k, v) -> counts.put((String) k.get(0), v.curr()));
    assertEquals(Sentences.counts(sentences), counts);
  }

  @Test
  void shouldRunIBatchSpoutsAndGenericSpoutsAsNonTransactional() {
    List<String> sentences = Sentences.make(50, 23);
    for (Spout<TridentTuple, ?> spout : List.of(
        EpochalTrident.spout("batch", Sentences.spout(sentences, 7), SpoutKind.NON_TRANSACTIONAL),
        EpochalTrident.spout("generic", new BatchSpoutExecutor(Sentences.spout(sentences, 7)),
            SpoutKind.NON_TRANSACTIONAL))) {
      InMemoryBackingMap<List<Object>, Long> store = new InMemoryBackingMap<>("counts");
      PipelineBuilder b = Pipeline.newBuilder("nt").guarantee(Guarantee.AT_LEAST_ONCE);
      b.source(spout).flatMap(EpochalTrident.each(SENTENCE, new Split(), WORD)).groupBy(EpochalTrident.key(WORD))
          .persistentAggregate("counts", NonTransactionalMap.factory(store), EpochalTrident.combiner(new Count()));
      try (Pipeline p = b.build()) {
        p.runUntilIdle();
      }
      Map<String, Long> counts = new TreeMap<>();
      store.snapshot().forEach((k, v) -> counts.put((String) k.get(0), v));
      assertEquals(Sentences.counts(sentences), counts, spout.toString());
    }
  }

  @Test
  void shouldRefuseKindsATridentSpoutCannotHave() {
    assertThrows(IllegalArgumentException.class,
        () -> EpochalTrident.spout("b", Sentences.spout(List.of("a"), 1), SpoutKind.OPAQUE));
    assertThrows(IllegalArgumentException.class,
        () -> EpochalTrident.spout("g", new BatchSpoutExecutor(Sentences.spout(List.of("a"), 1)), SpoutKind.OPAQUE));
    assertThrows(IllegalArgumentException.class, () -> EpochalTrident.spout(" ", Sentences.spout(List.of("a"), 1)));
  }

  @Test
  void shouldReadCellsTridentStoredAsBytes() {
    InMemoryBackingMap<List<Object>, byte[]> bytes = new InMemoryBackingMap<>("redis-like");
    bytes.multiPut(Map.of(List.of("the"), new JSONOpaqueSerializer().serialize(
        new org.apache.storm.trident.state.OpaqueValue<>(3L, 10, 7))));
    OpaqueMap<List<Object>, Long> map = OpaqueMap.over(EpochalTrident.encoded(bytes,
        EpochalTrident.<Long>opaqueJsonCodec()), "redis-like");
    map.begin(Epoch.of("test", new BatchAttempt(4, 1)));
    assertEquals(Map.of(List.of("the"), 11L), map.multiUpdate(Map.of(List.of("the"), v -> v.orElse(0L) + 1)));
    map.end();
    assertEquals("[4,11,10]", new String(bytes.snapshot().get(List.of("the")), StandardCharsets.UTF_8));
  }
}
