package io.epochal.pipeline.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.epochal.codec.Codecs;
import io.epochal.errors.EpochalException;
import io.epochal.flow.Emitter;
import io.epochal.flow.Flow;
import io.epochal.flow.FlowStates;
import io.epochal.flow.KeyedProcessor;
import io.epochal.flow.ProcessorContext;
import io.epochal.flow.StateClient;
import io.epochal.flow.StateSpec;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Guarantee;
import io.epochal.pipeline.KeyedProcessFunction;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.Stream;
import io.epochal.pipeline.internal.EngineTesting.ListSpout;
import io.epochal.pipeline.internal.EngineTesting.LogStates;
import io.epochal.sink.CollectingSink;
import io.epochal.spout.BatchAttempt;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.NonTransactionalMap;
import io.epochal.state.StateKind;
import io.epochal.store.InMemoryCheckpointStore;
import io.epochal.store.table.CommitProtocol;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import io.epochal.store.table.TableStores;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The keyed processor as one node, and table states bound to the engine's epoch. */
class KeyedProcessTest {

  @Test
  void eachOutputIsAttachedToTheKeyItWasEmittedFor() {
    PipelineBuilder b = Pipeline.newBuilder("attached").partitions(3).guarantee(Guarantee.AT_LEAST_ONCE);
    Stream<String> words = b.source(new ListSpout<>(List.of(List.of("a1", "b1", "a2", "c1", "b2", "a3"))));
    LogStates states = new LogStates(StateKind.TRANSACTIONAL);
    InMemoryBackingMap<String, Long> counts = new InMemoryBackingMap<>();
    words.groupBy(w -> w.substring(0, 1))
        .process("proc", states, new KeyedProcessFunction<EngineTesting.LogState, String, String, String>() {
          @Override
          public void process(EngineTesting.LogState state, BatchAttempt batch, String key, List<String> records,
              Consumer<? super String> out) {
            for (String r : records) {
              out.accept("out-" + r); // a record unlike its key: it must count under the key it was emitted for
            }
          }
        })
        .persistentAggregate("per-key", NonTransactionalMap.factory(counts), Aggregators.count());
    try (Pipeline p = b.build()) {
      p.runUntilIdle();
    }
    Map<String, Long> expected = Map.of("a", 3L, "b", 2L, "c", 1L);
    assertEquals(expected, new TreeMap<>(counts.multiGet(List.of("a", "b", "c", "out-a1"))));
  }

  @Test
  void flowProcessRunsTheKeyFunctionOncePerRecordAndEmitsEachOutputOnce() {
    TableCheckpointStore checkpoints = TableCheckpointStore.on(TableStores.inMemory());
    AtomicInteger keyCalls = new AtomicInteger();
    PipelineBuilder b = Pipeline.newBuilder("flow").partitions(2).checkpointStore(checkpoints);
    Stream<String> words = b.source(new ListSpout<>(List.of(List.of("a", "b", "a"), List.of("a"))));
    CollectingSink<String> out = new CollectingSink<>("totals");
    Flow.process(words, "totals", w -> {
      keyCalls.incrementAndGet();
      return w;
    }, () -> new KeyedProcessor<String, String, String>() {
      StateClient<String, Long> total;

      @Override
      public void init(ProcessorContext<String> context) {
        total = context.state(StateSpec.internal("total", KeyCodec.strings(), Codecs.longs(), 0L).build());
      }

      @Override
      public void process(String key, List<String> records, Emitter<String> emitter) {
        long now = total.accessor(key).update(v -> v + records.size());
        emitter.emit(key + "=" + now);
      }
    }, FlowStates.on(checkpoints)).to("totals", out);
    try (Pipeline p = b.build()) {
      p.runUntilIdle();
    }
    assertEquals(4, keyCalls.get(), "keyFn once per record (it ran three times per record before)");
    assertEquals(List.of(new CollectingSink.Output<>(1, "a=2"), new CollectingSink.Output<>(1, "b=1"),
        new CollectingSink.Output<>(2, "a=3")), sortedByTxid(out.committed()));
  }

  @Test
  void aTableStateOnAStoreThePipelinesEpochDoesNotStageIsRefusedAtItsFirstWriteNamingTheTable() {
    TableCheckpointStore perKey = TableCheckpointStore.builder(TableStores.inMemory())
        .protocol(CommitProtocol.PER_KEY).build();
    PipelineBuilder b = Pipeline.newBuilder("misbound").checkpointStore(new InMemoryCheckpointStore())
        .guarantee(Guarantee.AT_LEAST_ONCE);
    b.source(new ListSpout<>(List.of(List.of("a")))).groupBy(w -> w).persistentAggregate("counts",
        TableStates.nonTransactional(perKey, KeyCodec.strings(), Codecs.longs()), Aggregators.count());
    try (Pipeline p = b.build()) {
      EpochalException e = assertThrows(EpochalException.class, p::runUntilIdle);
      assertFalse(e.retryable());
      assertEquals("misbound/counts", e.context().table().orElseThrow());
      assertEquals(0, p.metrics().failedAttempts(), "stopped at the first occurrence, no retry");
    }
  }

  private static List<CollectingSink.Output<String>> sortedByTxid(List<CollectingSink.Output<String>> in) {
    return in.stream().sorted(java.util.Comparator.<CollectingSink.Output<String>>comparingLong(
        CollectingSink.Output::txid).thenComparing(o -> o.value())).toList();
  }
}
