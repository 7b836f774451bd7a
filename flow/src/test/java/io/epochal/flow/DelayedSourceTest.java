package io.epochal.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.flow.EventScript.Ev;
import io.epochal.flow.FlowTesting.ListSpout;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.sink.CollectingSink;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import io.epochal.testkit.Fault;
import io.epochal.testkit.FaultInjector;
import io.epochal.testkit.FaultPoint;
import io.epochal.testkit.SimulatedCrash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Inputs read with an event-time delay: records reach the processor once the watermark passes ts + delay. */
class DelayedSourceTest {
  static final String PIPELINE = "delay";
  final TableStore store = TableStores.inMemory();
  final CollectingSink<String> out = new CollectingSink<>("out");
  final ListSpout<Ev> spout = new ListSpout<>(List.of());
  DelaySpec<Ev> delay = DelaySpec.of(Duration.ofMillis(100), DelayScript.CODEC);
  WatermarkStrategy<Ev> strategy = EventScript.strategy(0).build();
  int partitions = 1;
  int incarnation;

  Pipeline build(FaultInjector injector) {
    TableCheckpointStore checkpoints = TableCheckpointStore.builder(store).owner("w" + incarnation++).build();
    FlowStates states = FlowStates.builder().clock(b -> 10 * b.txid()).build();
    PipelineBuilder builder = Pipeline.newBuilder(PIPELINE).partitions(partitions).threads(partitions > 1 ? 2 : 1)
        .retryPolicy(RetryPolicy.immediate(20)).sleeper(d -> { }).checkpointStore(injector.wrap(checkpoints));
    Flow.process(builder.source(spout), "c", Ev::key, DelayScript::new, states, strategy, delay).to("out", out);
    return builder.build();
  }

  /** Appends one batch per argument and runs a new incarnation until idle. */
  @SafeVarargs
  final void run(List<Ev>... batches) {
    for (List<Ev> b : batches) {
      spout.batches.add(b);
    }
    try (Pipeline p = build(new FaultInjector(List.of()))) {
      p.runUntilIdle();
    }
  }

  static Ev ev(String cmd, long ts) {
    return Ev.of(cmd, ts);
  }

  List<String> outputs() {
    Set<String> o = new LinkedHashSet<>();
    for (CollectingSink.Output<String> e : out.committed()) {
      o.add(e.txid() + ":" + e.value());
    }
    return new ArrayList<>(o);
  }

  int buffered() {
    return store.findTable(PIPELINE + "/c/.delayed.timers").map(t -> {
      try (StoreTransaction tx = store.begin()) {
        return tx.scan(t).size();
      }
    }).orElse(0);
  }

  Map<Object, Long> seen() {
    return FlowTesting.read(store, PIPELINE + "/c/seen", Codecs.longs());
  }

  @Test
  void shouldReleaseARecordOnceTheWatermarkPassesItsTimestampPlusTheDelay() {
    run(List.of(ev("x k", 1000)),            // watermark 1000: x due at 1100
        List.of(ev("tick j", 1099)),          // 1099: not yet
        List.of(ev("tick j", 1100)),          // 1100: released, after the batch's records, seeing watermark 1100
        List.of(ev("tick j", 1200)));
    assertEquals(List.of("3:x k@1000 wm=1100"), outputs());
    assertEquals(Map.of("k", 1L), seen());
    assertEquals(1, buffered(), "the ticks are delayed too: the one at 1200 is still buffered (due at 1300)");
  }

  @Test
  void shouldReleaseInOrderOfTimestampPlusDelayThenOfArrivalAndGroupByKey() {
    run(List.of(ev("b k", 1050), ev("a k", 1000), ev("c j", 1000), ev("d k", 1000)),
        List.of(ev("tick z", 1150)));
    // due: a, c, d at 1100 (arrival order), b at 1150; k's records are processed together, k first
    assertEquals(List.of("2:a k@1000 wm=1150", "2:d k@1000 wm=1150", "2:b k@1050 wm=1150", "2:c j@1000 wm=1150"),
        outputs());
  }

  @Test
  void shouldKeepBufferedRecordsDurablyAcrossARestart() {
    run(List.of(ev("x k", 1000), ev("y j", 1010)), List.of(ev("tick z", 1050)));
    assertEquals(List.of(), outputs());
    assertEquals(3, buffered(), "x, y and the tick, buffered in the store, committed with the epochs");
    run(List.of(ev("tick z", 1105)));                       // a new process: released from the store
    run(List.of(ev("tick z", 1110)));
    assertEquals(List.of("3:x k@1000 wm=1105", "4:y j@1010 wm=1110"), outputs());
    assertEquals(3, buffered(), "the three ticks, due at 1150, 1205 and 1210");
  }

  @Test
  void shouldReleaseAtMostTheBoundPerBatchInOrder() {
    delay = DelaySpec.of(Duration.ofMillis(100), DelayScript.CODEC).withMaxReleasedPerBatch(2).withPageSize(1);
    run(List.of(ev("a k", 1000), ev("b k", 1001), ev("c k", 1002), ev("d k", 1003), ev("e k", 1004)),
        List.of(ev("tick z", 2000)), List.of(), List.of());
    assertEquals(List.of("2:a k@1000 wm=2000", "2:b k@1001 wm=2000", "3:c k@1002 wm=2000", "3:d k@1003 wm=2000",
        "4:e k@1004 wm=2000"), outputs());
  }

  @Test
  void shouldReleaseAgainAfterAFailedOrCrashedAttemptAndOnlyOnce() {
    run(List.of(ev("x k", 1000)));
    spout.batches.add(List.of(ev("tick z", 1200)));
    Pipeline p = build(new FaultInjector(List.of(new Fault(FaultPoint.AFTER_STATE_WRITES, 2, true, 0))));
    assertThrows(SimulatedCrash.class, p::runUntilIdle);
    p.close();
    assertEquals(List.of(), outputs());
    assertEquals(1, buffered(), "the release of the crashed attempt did not commit");
    assertEquals(Map.of(), seen());
    try (Pipeline again = build(new FaultInjector(List.of(new Fault(FaultPoint.AFTER_STATE_WRITES, 2, false, 0))))) {
      again.runUntilIdle();
      assertEquals(1, again.metrics().failedAttempts());
    }
    assertEquals(List.of("2:x k@1000 wm=1200"), outputs());
    assertEquals(Map.of("k", 1L), seen());
    assertEquals(1, buffered(), "the tick, due at 1300");
  }

  @Test
  void shouldApplyTheLatePolicyBeforeDelaying() {
    strategy = EventScript.strategy(0).latePolicy(WatermarkStrategy.LatePolicy.SIDE_OUTPUT).build();
    run(List.of(ev("x k", 1000)), List.of(ev("y k", 900), ev("z k", 1001)), List.of(ev("tick q", 1200)));
    // y is late (below the watermark 1000 at batch 2's start): handed to processLate at once; z is delayed
    assertEquals(List.of("2:late y k@900", "3:x k@1000 wm=1200", "3:z k@1001 wm=1200"), outputs());
  }

  @Test
  void shouldProcessAtOnceWithAZeroDelayOnceTheWatermarkReachesTheRecord() {
    delay = DelaySpec.of(Duration.ZERO, DelayScript.CODEC);
    run(List.of(ev("x k", 1000), ev("y k", 1005)));
    // the watermark after the batch is 1005: both are released in their own batch
    assertEquals(List.of("1:x k@1000 wm=1005", "1:y k@1005 wm=1005"), outputs());
  }

  @Test
  void shouldReleaseOverManyPartitions() {
    partitions = 3;
    List<Ev> first = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      first.add(ev("r" + i + " k" + (i % 7), 1000 + i));
    }
    run(first, List.of(ev("tick z", 1115)), List.of(ev("tick z", 1200)));
    List<String> o = outputs();
    assertEquals(30, o.size());
    for (String s : o) {
      int i = Integer.parseInt(s.substring(s.indexOf(':') + 2, s.indexOf(' ')));
      assertEquals(i <= 15 ? "2" : "3", s.substring(0, s.indexOf(':')), s);
    }
    assertEquals(2, buffered(), "the two ticks");
    assertEquals(30L, seen().values().stream().mapToLong(Long::longValue).sum());
  }

  @Test
  void shouldBufferWithoutLookingUpTheBufferedRecords() {
    delay = DelaySpec.of(Duration.ofSeconds(10), DelayScript.CODEC);   // none released in the batch
    FlowTesting.CountingStore counting = new FlowTesting.CountingStore(TableStores.inMemory());
    List<Ev> batch = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      batch.add(ev("r" + i + " k" + (i % 10), 1000 + i));
    }
    spout.batches.add(batch);
    PipelineBuilder builder = Pipeline.newBuilder(PIPELINE).checkpointStore(TableCheckpointStore.on(counting));
    Flow.process(builder.source(spout), "c", Ev::key, DelayScript::new, FlowStates.create(), strategy, delay)
        .to("out", out);
    try (Pipeline p = builder.build()) {
      counting.reset();
      p.runUntilIdle();
    }
    assertEquals(0, counting.lookups(PIPELINE + "/c/.delayed.timers"), "each buffered record is new by construction");
    assertEquals(0, counting.lookups(PIPELINE + "/c/seen"), "no state is loaded for records that are only buffered");
    assertEquals(200, counting.rowsWritten.get(PIPELINE + "/c/.delayed.timers").get());
    assertEquals(List.of(), outputs());
  }

  @Test
  void shouldValidateTheDelay() {
    assertThrows(IllegalArgumentException.class, () -> DelaySpec.of(Duration.ofMillis(-1), DelayScript.CODEC));
    assertThrows(IllegalArgumentException.class, () -> delay.withMaxReleasedPerBatch(0));
    assertThrows(IllegalArgumentException.class, () -> delay.withPageSize(0));
    assertThrows(NullPointerException.class, () -> DelaySpec.of(Duration.ZERO, null));
    assertTrue(delay.millis() == 100);
  }
}
