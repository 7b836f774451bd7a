package io.epochal.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.flow.EventScript.Ev;
import io.epochal.flow.FlowTesting.ListSpout;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.sink.CollectingSink;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import io.epochal.testkit.Fault;
import io.epochal.testkit.FaultInjector;
import io.epochal.testkit.FaultPoint;
import io.epochal.testkit.SimulatedCrash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Event-time watermarks of a Flow computation, with the processing-time clock at {@code 10 * txid}. */
class WatermarksTest {
  static final String PIPELINE = "wm";
  final TableStore store = TableStores.inMemory();

  /** Pipelines over {@link #store}; collects (txid, output) of the committed batches. */
  final class Run {
    final CollectingSink<String> out = new CollectingSink<>("out");
    final FaultInjector injector;
    final int partitions;
    final WatermarkStrategy<Ev> strategy;

    Run(int partitions, WatermarkStrategy<Ev> strategy, Fault... faults) {
      this.partitions = partitions;
      this.strategy = strategy;
      this.injector = new FaultInjector(Arrays.asList(faults));
    }

    Pipeline build(ListSpout<Ev> spout, String owner) {
      TableCheckpointStore checkpoints = TableCheckpointStore.builder(store).owner(owner).build();
      FlowStates states = FlowStates.builder().clock(b -> 10 * b.txid()).build();
      PipelineBuilder builder = Pipeline.newBuilder(PIPELINE).partitions(partitions).threads(partitions > 1 ? 2 : 1)
          .retryPolicy(RetryPolicy.immediate(20)).sleeper(d -> { }).checkpointStore(injector.wrap(checkpoints));
      Flow.process(builder.source(spout), "c", Ev::key, EventScript::new, states, strategy).to("out", out);
      return builder.build();
    }

    List<String> run(ListSpout<Ev> spout) {
      try (Pipeline p = build(spout, "w")) {
        p.runUntilIdle();
      }
      return outputs();
    }

    List<String> outputs() {
      List<String> o = new ArrayList<>();
      for (CollectingSink.Output<String> e : out.committed()) {
        o.add(e.txid() + ":" + e.value());
      }
      return TimersTest.sortedWithinBatch(o);
    }
  }

  @SafeVarargs
  static ListSpout<Ev> batches(List<Ev>... batches) {
    return new ListSpout<>(batches);
  }

  /** The committed progress, {watermark, late records}, as {@link FlowStates#eventTimeProgress} reads it. */
  long[] committed() {
    Table t = store.findTable(PIPELINE + "/c/.watermark").orElseThrow();
    try (StoreTransaction tx = store.begin()) {
      assertEquals(1, tx.scan(t).size(), "one row per computation");
    }
    EventTimeProgress p = FlowStates.eventTimeProgress(TableCheckpointStore.on(store), PIPELINE, "c")
        .orElseThrow();
    return new long[] {p.watermark(), p.lateRecords()};
  }

  @Test
  void shouldFireEventTimeTimersExactlyWhenTheWatermarkPassesTheirTrigger() {
    Run run = new Run(3, EventScript.strategy(5).build());
    List<String> out = run.run(batches(
        List.of(Ev.of("add k 50", 10), Ev.of("add j 30", 12)), // txid 1: W = 7
        List.of(Ev.of("tick a", 34)),                           // 2: W = 29, j@30 not yet
        List.of(Ev.of("tick a", 35)),                           // 3: W = 30, j@30 fires
        List.of(Ev.of("tick b", 20), Ev.of("wm b", 20)),         // 4: late (PROCESS), W stays 30
        List.of(),                                              // 5: nothing advances
        List.of(Ev.of("tick a", 54)),                           // 6: W = 49
        List.of(Ev.of("tick a", 60), Ev.of("add q 40", 61))));  // 7: W = 56: k@50 and q@40 (added now) fire
    assertEquals(List.of("3:j@30 wm=30", "4:wm b=30", "7:k@50 wm=56", "7:q@40 wm=56"), out);
    assertEquals(56, committed()[0]);
    assertEquals(2, committed()[1], "the two late records of txid 4 are counted");
  }

  @Test
  void shouldNeverFireEventTimeTimersWithoutAWatermarkStrategy() {
    CollectingSink<String> out = new CollectingSink<>("out");
    TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
    FlowStates states = FlowStates.builder().clock(b -> 10 * b.txid()).build();
    PipelineBuilder builder = Pipeline.newBuilder(PIPELINE).checkpointStore(checkpoints);
    Flow.process(builder.source(batches(List.of(Ev.of("add k 5", 10), Ev.of("wm k", 99)), List.of())), "c", Ev::key,
        EventScript::new, states).to("out", out);
    try (Pipeline p = builder.build()) {
      p.runUntilIdle();
    }
    assertEquals(List.of("wm k=" + Long.MIN_VALUE), out.committed().stream().map(o -> o.value()).toList());
    assertEquals(java.util.Optional.empty(), FlowStates.eventTimeProgress(checkpoints, PIPELINE, "c"));
  }

  @Test
  void shouldDropAndCountLateRecords() {
    Run run = new Run(2, EventScript.strategy(5).latePolicy(WatermarkStrategy.LatePolicy.DROP).build());
    List<String> out = run.run(batches(
        List.of(Ev.of("add k 100", 50)),                               // W = 45
        List.of(Ev.of("add j 10", 44), Ev.of("add m 150", 45), Ev.of("wm j", 1)), // j, wm j late; m on time
        List.of(Ev.of("tick a", 200))));
    assertEquals(List.of("3:k@100 wm=195", "3:m@150 wm=195"), out);
    assertEquals(2, committed()[1]);
  }

  @Test
  void shouldHandLateRecordsToProcessLateUnderSideOutput() {
    Run run = new Run(2, EventScript.strategy(5).latePolicy(WatermarkStrategy.LatePolicy.SIDE_OUTPUT).build());
    List<String> out = run.run(batches(
        List.of(Ev.of("add k 100", 50)),
        List.of(Ev.of("add j 10", 44), Ev.of("add j 150", 45)),
        List.of(Ev.of("tick a", 200))));
    assertEquals(List.of("2:late add j 10", "3:j@150 wm=195", "3:k@100 wm=195"), out);
    assertEquals(1, committed()[1]);
  }

  @Test
  void shouldNotLetAnIdleSourcePartitionHoldTheWatermarkBack() {
    List<Ev> first = List.of(new Ev("add k 250", 100, 0), new Ev("tick b", 50, 1));
    List<List<Ev>> input = List.of(first, List.of(new Ev("tick a", 200, 0)), List.of(new Ev("tick a", 300, 0)),
        List.of(), List.of(new Ev("wm b", 60, 1)), List.of());
    // idle after 25 ms of processing time: partition 1 last sent at txid 1 (10 ms), idle from txid 4 (40 ms)
    Run idle = new Run(2, EventScript.strategy(0).idleTimeout(Duration.ofMillis(25)).build());
    assertEquals(List.of("4:k@250 wm=300", "5:wm b=300"), idle.run(new ListSpout<>(input)));
    assertEquals(300, committed()[0], "partition 1 back, behind: the watermark does not go back");
  }

  @Test
  void shouldLetASilentSourcePartitionHoldTheWatermarkWithoutIdleTimeout() {
    List<List<Ev>> input = List.of(List.of(new Ev("add k 250", 100, 0), new Ev("tick b", 50, 1)),
        List.of(new Ev("tick a", 300, 0)), List.of(), List.of(), List.of(new Ev("wm b", 60, 0)));
    assertEquals(List.of("5:wm b=50"), new Run(2, EventScript.strategy(0).build()).run(new ListSpout<>(input)));
  }

  @Test
  void shouldRestoreTheWatermarkAfterARestartAndFireEachTimerOnce() {
    // txid 2 fires k@50, then the process dies in txid 3's checkpoint commit after j@100 fired in it
    Run first = new Run(2, EventScript.strategy(5).build(), new Fault(FaultPoint.AFTER_STATE_WRITES, 3, true, 0));
    ListSpout<Ev> spout = batches(List.of(Ev.of("add k 50", 10), Ev.of("add j 100", 10)), List.of(Ev.of("tick a", 60)),
        List.of(Ev.of("tick a", 106)));
    Pipeline p = first.build(spout, "w1");
    assertThrows(SimulatedCrash.class, p::runUntilIdle);
    p.close();
    assertEquals(List.of("2:k@50 wm=55"), first.outputs());
    assertEquals(55, committed()[0], "txid 3's watermark did not commit");
    // a new process: the watermark is restored (55: the late record of txid 4 proves it), j@100 fires once
    spout.batches.add(List.of(Ev.of("wm z", 20)));
    Run second = new Run(2, EventScript.strategy(5).build());
    List<String> out = second.run(spout).stream().filter(o -> !o.startsWith("2:")).toList(); // (txid 2 republished)
    assertEquals(List.of("3:j@100 wm=101", "4:wm z=101"), out);
    assertEquals(101, committed()[0]);
    assertEquals(1, committed()[1]);
  }

  @Test
  void shouldRefuseAWatermarkOnThePerKeyProtocolAndBadStrategies() {
    TableStore perKey = TableStores.inMemoryBuilder().atomicMultiTableCommit(false).build();
    FlowStates states = FlowStates.create();
    PipelineBuilder builder = Pipeline.newBuilder(PIPELINE).checkpointStore(TableCheckpointStore.on(perKey))
        .guarantee(io.epochal.pipeline.Guarantee.AT_LEAST_ONCE); // past the guarantee check, to the watermark's
    Flow.process(builder.source(batches()), "c", Ev::key, EventScript::new, states, EventScript.strategy(0).build());
    IllegalStateException e = assertThrows(IllegalStateException.class, builder::build);
    assertTrue(e.getMessage().contains("epoch protocol"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> EventScript.strategy(-1));
    assertThrows(IllegalArgumentException.class, () -> EventScript.strategy(0).idleTimeout(Duration.ZERO));
  }
}
