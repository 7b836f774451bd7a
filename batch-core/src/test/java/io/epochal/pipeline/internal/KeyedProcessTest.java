package io.epochal.pipeline.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Guarantee;
import io.epochal.pipeline.KeyedProcessFunction;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.Stream;
import io.epochal.pipeline.internal.EngineTesting.ListSpout;
import io.epochal.pipeline.internal.EngineTesting.LogStates;
import io.epochal.spout.BatchAttempt;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.NonTransactionalMap;
import io.epochal.state.StateKind;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The keyed processor as one node (Flow's keyed processor: flow's FlowProcessNodeTest). */
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
}
