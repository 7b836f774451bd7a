package io.epochal.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.sink.CollectingSink;
import io.epochal.spouts.GeneratedSpout;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import io.epochal.testkit.ReplayHarness;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The factors reach the join one hour late: a show whose hour is over is emitted only when its factors are released
 * (at the factors' watermark {@code tf + 1 h}), never from factors held in its cell; a show without factors at
 * {@code ts + 2 h}.
 */
class AdJoinDelayTest {
  private static final long T = AdJoinInput.T0;
  private static final long H = AdJoinLogic.WINDOW;
  private static final long B = AdJoinLogic.BOUND;
  private static final long D = AdJoinLogic.FACTORS_DELAY.toMillis();
  private static final int[] SOURCES = {AdEvent.source(0, 0), AdEvent.source(1, 0), AdEvent.source(2, 0)};

  private static List<AdEvent> ticks(long t) {
    List<AdEvent> out = new ArrayList<>();
    for (int s : SOURCES) {
      out.add(new AdEvent(AdEvent.Kind.TICK, AdEvent.TICK_KEY, t, "", s));
    }
    return out;
  }

  @Test
  void aShowIsEmittedWhenItsDelayedFactorsArriveAndOneWithoutFactorsAnHourAfterItsHour() {
    List<AdEvent> input = new ArrayList<>();
    input.add(new AdEvent(AdEvent.Kind.SHOW, "a", T, "", SOURCES[0]));                       // txid 1
    input.add(new AdEvent(AdEvent.Kind.SHOW, "b", T + 1, "", SOURCES[0]));                   // txid 2
    input.add(new AdEvent(AdEvent.Kind.FACTORS, "a", T + 60_000, "f", SOURCES[2]));          // txid 3
    input.addAll(ticks(T + H + 1 + B));   // txids 4-6: both hours are over, a's factors not released yet
    input.addAll(ticks(T + 60_000 + D + B)); // txids 7-9: releases a's factors (tf + 1 h)
    input.addAll(ticks(T + 1 + H + D + B));  // txids 10-12: b's hour plus the delay: b without factors
    CollectingSink<AdJoinLogic.Out> out = new CollectingSink<>("joined");
    TableStore tables = TableStores.inMemory();
    TableExampleStore store = new TableExampleStore(tables, "in-memory", AdJoin.PIPELINE);
    ReplayHarness.runToEnd(incarnation -> {
      PipelineBuilder builder = Pipeline.newBuilder(AdJoin.PIPELINE).partitions(1).threads(1).maxBatchesInFlight(1)
          .retryPolicy(RetryPolicy.immediate(1)).sleeper(d -> { })
          .checkpointStore(TableCheckpointStore.builder(tables).owner("w" + incarnation).build());
      AdJoin.join(builder.source(GeneratedSpout.of("ad-join-input", input.size(), 1, i -> input.get((int) i))),
          store, new RandomFaults(0, 0)).filter(AdJoinLogic.Out::isResult).to("joined", out);
      return builder.build();
    }, 1);
    List<String> emitted = new ArrayList<>();
    for (CollectingSink.Output<AdJoinLogic.Out> o : out.committed()) {
      emitted.add(o.txid() + " " + o.value().showId() + " " + o.value().line());
    }
    assertEquals(List.of(
        "9 a " + AdJoinLogic.line(T, 0, -1, T + 60_000, "f"),
        "12 b " + AdJoinLogic.line(T + 1, 0, -1, -1, "")), emitted);
    AdJoinLogic.Expected expected = AdJoinLogic.recompute(input);
    assertEquals(2, expected.outputs().size());
    assertEquals(expected.outputs().get("a"), AdJoinLogic.line(T, 0, -1, T + 60_000, "f"));
  }
}
