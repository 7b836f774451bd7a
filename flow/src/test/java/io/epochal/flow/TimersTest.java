package io.epochal.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.flow.FlowTesting.ListSpout;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.sink.CollectingSink;
import io.epochal.store.CheckpointStore;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import io.epochal.store.table.StoreTransaction;
import io.epochal.testkit.Fault;
import io.epochal.testkit.FaultInjector;
import io.epochal.testkit.FaultPoint;
import io.epochal.testkit.SimulatedCrash;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** Processing-time timers of a Flow computation, with the clock at {@code 10 * txid}. */
class TimersTest {
  static final String PIPELINE = "timers";
  final TableStore store = TableStores.inMemory();

  /** One pipeline over {@link #store}; returns (txid, output) of the committed batches. */
  final class Run {
    final CollectingSink<String> out = new CollectingSink<>("out");
    final FaultInjector injector;
    final int partitions;
    Supplier<TimerScript> processor = TimerScript::new;
    TableStore on = store;

    Run(int partitions, Fault... faults) {
      this.partitions = partitions;
      this.injector = new FaultInjector(Arrays.asList(faults));
    }

    Pipeline build(ListSpout<String> spout, String owner) {
      TableCheckpointStore checkpoints = TableCheckpointStore.builder(on).owner(owner).build();
      FlowStates states = FlowStates.builder().clock(b -> 10 * b.txid()).build();
      CheckpointStore wrapped = injector.wrap(checkpoints);
      PipelineBuilder builder = Pipeline.newBuilder(PIPELINE).partitions(partitions).threads(partitions > 1 ? 2 : 1)
          .retryPolicy(RetryPolicy.immediate(20)).sleeper(d -> { }).checkpointStore(wrapped);
      Flow.process(builder.source(spout), "c", TimerScript::key, processor, states).to("out", out);
      return builder.build();
    }

    List<String> run(ListSpout<String> spout) {
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
      return o;
    }
  }

  static ListSpout<String> batches(int empties, List<String>... first) {
    List<List<String>> all = new ArrayList<>(Arrays.asList(first));
    for (int i = 0; i < empties; i++) {
      all.add(List.of());
    }
    return new ListSpout<>(all);
  }

  long pendingTimers() {
    return store.findTable(PIPELINE + "/c/t.timers").map(t -> {
      try (StoreTransaction tx = store.begin()) {
        return (long) tx.scan(t).size();
      }
    }).orElse(0L);
  }

  @Test
  void shouldFireInTriggerOrderOnceTheClockPassesTheTrigger() {
    Run run = new Run(1);
    List<String> out = run.run(batches(5, List.of("add k 50", "add k 20", "add k 35", "add j 20", "add j 5")));
    // batch 1 (now 10) fires j@5, batch 2 (now 20) k@20 then j@20 (added in that order), ...
    assertEquals(List.of("1:j@5", "2:k@20", "2:j@20", "4:k@35", "5:k@50"), out);
    assertEquals(0, pendingTimers());
    assertEquals(Map.of("k", 3L, "j", 2L), FlowTesting.read(store, PIPELINE + "/c/fired", Codecs.longs()));
  }

  @Test
  void shouldFireInTriggerOrderPerKeyOverManyPartitions() {
    Run run = new Run(4);
    List<String> cmds = new ArrayList<>();
    for (int k = 0; k < 20; k++) {
      for (int t = 60; t >= 0; t -= 15) {
        cmds.add("add k" + k + " " + (t + k));
      }
    }
    List<String> out = run.run(batches(10, cmds));
    assertEquals(100, out.size());
    for (int k = 0; k < 20; k++) {
      List<Long> triggers = new ArrayList<>();
      for (String o : out) {
        String v = o.substring(o.indexOf(':') + 1);
        if (v.startsWith("k" + k + "@")) {
          long trigger = Long.parseLong(v.substring(v.indexOf('@') + 1));
          long txid = Long.parseLong(o.substring(0, o.indexOf(':')));
          assertEquals(Math.max(1, (trigger + 9) / 10), txid, "fired in the first batch at or past " + o);
          triggers.add(trigger);
        }
      }
      List<Long> sorted = new ArrayList<>(triggers);
      sorted.sort(null);
      assertEquals(sorted, triggers, "key k" + k);
      assertEquals(5, triggers.size());
    }
  }

  @Test
  void shouldFireMoreThan128TimersOfOneTrigger() {
    // slot sequence numbers above 127 are outside the Long cache: a boxed comparison by identity reported them corrupt
    Run run = new Run(1);
    List<String> cmds = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (int k = 0; k < 300; k++) {
      cmds.add("add k" + k + " 15");
      expected.add("2:k" + k + "@15");
    }
    run.processor = () -> new TimerScript(TimeDomain.PROCESSING_TIME, 10_000, 100);
    assertEquals(expected, run.run(batches(2, cmds)), "all 300 fire at txid 2 in the order they were added");
    assertEquals(0, pendingTimers());
  }

  @Test
  void shouldDeduplicateEqualTimersKeepingTheLastPayload() {
    Run run = new Run(1);
    List<String> out = run.run(batches(3, List.of("add k 30 a", "add k 30 b"), List.of("add k 30 c", "add k 31")));
    assertEquals(List.of("3:k@30:c", "4:k@31"), out);
  }

  @Test
  void shouldDeleteAPendingTimerAndSayWhetherOneWasPending() {
    Run run = new Run(1);
    List<String> out = run.run(batches(3, List.of("add k 20", "add k 30", "add j 20"),
        List.of("del k 20", "del k 25", "del j 20", "add j 20")));
    assertEquals(List.of("2:del k@20=true", "2:del k@25=false", "2:del j@20=true", "2:j@20", "3:k@30"), out);
    assertEquals(0, pendingTimers());
  }

  @Test
  void shouldFireTimersAddedByTimerHandlersInLaterBatches() {
    Run run = new Run(2);
    List<String> out = run.run(batches(8, List.of("add k 10 again-3", "add j 30 again-0")));
    assertEquals(List.of("1:k@10:again-3", "2:k@20:again-2", "3:j@30:again-0", "3:k@30:again-1", "4:k@40:again-0"),
        sortedWithinBatch(out));
  }

  @Test
  void shouldFireAtMostTheBoundPerBatchAndKeepTheRestInOrder() {
    Run run = new Run(1);
    run.processor = () -> new TimerScript(TimeDomain.PROCESSING_TIME, 2, 2);
    List<String> out = run.run(batches(4, List.of("add a 5", "add b 5", "add c 5", "add d 5", "add e 3", "del c 5")));
    assertEquals(List.of("1:del c@5=true", "1:e@3", "1:a@5", "2:b@5", "2:d@5"), out);
    assertEquals(0, pendingTimers());
  }

  @Test
  void shouldRestoreTimersAfterARestart() {
    Run first = new Run(2);
    ListSpout<String> spout = batches(2, List.of("add k 100", "add j 45"));
    assertEquals(List.of(), first.run(spout));
    assertEquals(2, pendingTimers());
    // a new process: new checkpoint store, new states, same table store; the spout has more batches now
    Run second = new Run(2);
    for (int i = 0; i < 10; i++) {
      spout.batches.add(List.of());
    }
    assertEquals(List.of("5:j@45", "10:k@100"), second.run(spout));
    assertEquals(0, pendingTimers());
  }

  @Test
  void shouldLeaveAFiredTimerPendingAndItsOutputsInvisibleWhenTheAttemptFails() {
    // txid 2 fires k@20, then the process dies before the checkpoint commit: nothing of it may be visible
    Run run = new Run(1, new Fault(FaultPoint.AFTER_STATE_WRITES, 2, true, 0));
    ListSpout<String> spout = batches(2, List.of("add k 20", "add k 30"));
    Pipeline p = run.build(spout, "w1");
    assertThrows(SimulatedCrash.class, p::runUntilIdle);
    p.close();
    assertEquals(List.of(), run.outputs());
    assertEquals(2, pendingTimers(), "the fired timer's deletion must not have committed");
    assertEquals(Map.of(), FlowTesting.read(store, PIPELINE + "/c/fired", Codecs.longs()));
    // the restarted process fires it again, once; a retried (not crashed) failure at txid 3 too
    run.injector.schedule(new Fault(FaultPoint.AFTER_STATE_WRITES, 3, false, 0));
    try (Pipeline again = run.build(spout, "w2")) {
      again.runUntilIdle();
      assertEquals(1, again.metrics().failedAttempts());
    }
    assertEquals(List.of("2:k@20", "3:k@30"), run.outputs());
    assertEquals(Map.of("k", 2L), FlowTesting.read(store, PIPELINE + "/c/fired", Codecs.longs()));
    assertEquals(0, pendingTimers());
  }

  @Test
  void shouldRefuseToOpenTimersWrittenWithAnotherPartitionCount() {
    ListSpout<String> spout = batches(1, List.of("add k 100", "add j 200", "add i 300", "add h 400"));
    assertEquals(List.of(), new Run(4).run(spout));
    assertEquals(4, pendingTimers());
    // rebuilt with 2 partitions: refused at build, before any batch, naming both counts and what to do
    Run two = new Run(2);
    TimerPartitionsChangedException e = assertThrows(TimerPartitionsChangedException.class,
        () -> two.build(spout, "w2"));
    assertEquals(PIPELINE, e.pipeline());
    assertEquals("c", e.computation());
    assertEquals("t", e.timers());
    assertEquals(PIPELINE + "/c/t.timer-tree", e.table());
    assertEquals(4, e.storedPartitions());
    assertEquals(2, e.configuredPartitions());
    assertEquals(java.util.Optional.of(PIPELINE), e.context().pipeline());
    assertEquals(java.util.Optional.of(PIPELINE + "/c/t.timer-tree"), e.context().table());
    assertTrue(e.getMessage().contains(".partitions(4)"), e.getMessage());
    assertTrue(!e.retryable() && !io.epochal.errors.EpochalException.isRetryable(e));
    assertThrows(TimerPartitionsChangedException.class, () -> new Run(8).build(spout, "w3"));
    assertEquals(4, pendingTimers(), "nothing was changed");
    // with 4 partitions again: the timers fire, each once
    for (int i = 0; i < 40; i++) {
      spout.batches.add(List.of());
    }
    assertEquals(List.of("k@100", "j@200", "i@300", "h@400"),
        new Run(4).run(spout).stream().map(o -> o.substring(o.indexOf(':') + 1)).toList());
    assertEquals(0, pendingTimers());
  }

  @Test
  void shouldRefuseTimerTablesWrittenUnderTheOldModuloPartitioning() {
    ListSpout<String> spout = batches(1, List.of("add k 100"));
    new Run(2).run(spout);
    String path = PIPELINE + "/c/t.timers";
    io.epochal.store.table.TableSchema current = store.findTable(path).orElseThrow().schema();
    assertEquals("farm-hash-ranges", current.attributes().get("epochal.partitioning"));
    // The same table as an earlier version created it (keys assigned by farm_hash mod partitions): no attribute.
    io.epochal.store.table.TableSchema.Builder old = io.epochal.store.table.TableSchema.builder(path);
    current.userKeyColumns().forEach(old::key);
    current.valueColumns().forEach(old::value);
    current.attributes().forEach((name, value) -> {
      if (!name.equals("epochal.partitioning")) {
        old.attribute(name, value);
      }
    });
    TableStore earlier = TableStores.inMemory();
    earlier.openTable(old.build());
    Run onEarlier = new Run(2);
    onEarlier.on = earlier;
    io.epochal.errors.SchemaMismatchException e = assertThrows(io.epochal.errors.SchemaMismatchException.class,
        () -> onEarlier.build(batches(1, List.of("add k 100")), "w2"));
    assertTrue(e.getMessage().contains("epochal.partitioning"), e.getMessage());
  }

  @Test
  void shouldRecordThePartitionCountWithTheFirstTimerWrite() {
    ListSpout<String> spout = batches(0, List.of("del k 5"));
    new Run(3).run(spout); // a delete of nothing writes no timer: nothing recorded, any count may open them
    spout.batches.add(List.of("del k 6"));
    assertTrue(new Run(1).run(spout).contains("2:del k@6=false")); // (a reopened sink republishes txid 1's outbox)
    spout.batches.add(List.of("add k 500"));
    new Run(2).run(spout);
    assertEquals(1, pendingTimers());
    TimerPartitionsChangedException e = assertThrows(TimerPartitionsChangedException.class,
        () -> new Run(3).build(spout, "w4"));
    assertEquals(2, e.storedPartitions());
  }

  @Test
  void shouldRefuseTimersOnThePerKeyProtocol() {
    TableStore perKey = TableStores.inMemoryBuilder().atomicMultiTableCommit(false).build();
    FlowStates states = FlowStates.create();
    PipelineBuilder builder = Pipeline.newBuilder(PIPELINE).checkpointStore(TableCheckpointStore.on(perKey))
        .guarantee(io.epochal.pipeline.Guarantee.AT_LEAST_ONCE); // past the guarantee check, to the timers' refusal
    Flow.process(builder.source(batches(1)), "c", TimerScript::key, TimerScript::new, states);
    IllegalStateException e = assertThrows(IllegalStateException.class, builder::build);
    assertTrue(e.getMessage().contains("epoch protocol"), e.getMessage());
  }

  @Test
  void shouldRefuseAPayloadWithoutCodecAndANegativeTrigger() {
    Run run = new Run(1);
    run.processor = () -> new TimerScript() {
      @Override
      public void process(String key, List<String> records, Emitter<String> out) {
        assertThrows(IllegalArgumentException.class, () -> timers.add(key, -1));
        super.process(key, records, out);
      }
    };
    assertEquals(List.of("1:k@1"), run.run(batches(1, List.of("add k 1"))));
  }

  /** Outputs of one batch in any order across partitions: sorted by (txid, value) for comparison. */
  static List<String> sortedWithinBatch(List<String> out) {
    List<String> copy = new ArrayList<>(out);
    UnaryOperator<String> pad = s -> String.format("%6d", Long.parseLong(s.substring(0, s.indexOf(':'))))
        + s.substring(s.indexOf(':'));
    copy.sort((a, b) -> pad.apply(a).compareTo(pad.apply(b)));
    return copy;
  }
}
