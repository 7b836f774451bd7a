package io.epochal.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.epochal.codec.Codecs;
import io.epochal.flow.FlowTesting.ListSpout;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.Stream;
import io.epochal.sink.CollectingSink;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStores;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@code Flow.process} is one keyed-processor node (moved from batch-core's {@code KeyedProcessTest}). */
class FlowProcessNodeTest {

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
    }, FlowStates.create()).to("totals", out);
    try (Pipeline p = b.build()) {
      p.runUntilIdle();
    }
    assertEquals(4, keyCalls.get(), "keyFn once per record (it ran three times per record before)");
    assertEquals(List.of(new CollectingSink.Output<>(1, "a=2"), new CollectingSink.Output<>(1, "b=1"),
        new CollectingSink.Output<>(2, "a=3")), sortedByTxid(out.committed()));
  }

  private static List<CollectingSink.Output<String>> sortedByTxid(List<CollectingSink.Output<String>> in) {
    return in.stream().sorted(java.util.Comparator.<CollectingSink.Output<String>>comparingLong(
        CollectingSink.Output::txid).thenComparing(o -> o.value())).toList();
  }
}
