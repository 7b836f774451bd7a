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
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * State TTL of a Flow computation. Processing time: the clock reads {@code 10 * txid}, so with a TTL of 25 ms a key
 * written in txid {@code t} (deadline {@code 10t + 25}) reads as absent, and expires, from txid {@code t + 3}.
 */
class TtlTest {
  static final String PIPELINE = "ttl";
  static final String STATE = PIPELINE + "/c/v";
  final TableStore store = TableStores.inMemory();
  final CollectingSink<String> out = new CollectingSink<>("out");
  final ListSpout<Ev> spout = new ListSpout<>(List.of());
  Duration ttl = Duration.ofMillis(25);
  TimeDomain domain = TimeDomain.PROCESSING_TIME;
  int maxExpirations = 10_000;
  WatermarkStrategy<Ev> strategy;
  int incarnation;

  Pipeline build(FaultInjector injector) {
    TableCheckpointStore checkpoints = TableCheckpointStore.builder(store).owner("w" + incarnation++).build();
    FlowStates states = FlowStates.builder().clock(b -> 10 * b.txid()).build();
    PipelineBuilder builder = Pipeline.newBuilder(PIPELINE).retryPolicy(RetryPolicy.immediate(20)).sleeper(d -> { })
        .checkpointStore(injector.wrap(checkpoints));
    java.util.function.Supplier<TtlScript> p = () -> new TtlScript(ttl, domain, maxExpirations);
    (strategy == null ? Flow.process(builder.source(spout), "c", Ev::key, p, states)
        : Flow.process(builder.source(spout), "c", Ev::key, p, states, strategy)).to("out", out);
    return builder.build();
  }

  /** Appends the batches (commands at timestamp 0) and runs a new incarnation of the pipeline until idle. */
  void run(String... batches) {
    for (String b : batches) {
      List<Ev> evs = new ArrayList<>();
      for (String cmd : b.isEmpty() ? new String[0] : b.split(", ")) {
        evs.add(Ev.of(cmd, 0));
      }
      spout.batches.add(evs);
    }
    try (Pipeline p = build(new FaultInjector(List.of()))) {
      p.runUntilIdle();
    }
  }

  /** (txid:output) of the committed batches, without the republications of a reopened sink. */
  Set<String> outputs() {
    Set<String> o = new LinkedHashSet<>();
    for (CollectingSink.Output<String> e : out.committed()) {
      o.add(e.txid() + ":" + e.value());
    }
    return o;
  }

  Map<Object, String> rows() {
    return FlowTesting.read(store, STATE, Codecs.strings());
  }

  int rowCount(String path) {
    return store.findTable(path).map(t -> {
      try (StoreTransaction tx = store.begin()) {
        return tx.scan(t).size();
      }
    }).orElse(0);
  }

  int deadlines() {
    return rowCount(STATE + ".ttl-deadlines");
  }

  int pendingExpirations() {
    return rowCount(STATE + ".ttl.timers");
  }

  @Test
  void shouldReadAnExpiredKeyAsAbsentAndDeleteItsRowInTheEpochOfItsDeadline() {
    run("set a 1", "get a", "get a");                     // txids 1..3: deadline 35
    assertEquals(Set.of("2:get a=1", "3:get a=1"), outputs());
    assertEquals(Map.of("a", "1"), rows(), "not expired before its deadline");
    assertEquals(1, deadlines());
    assertEquals(1, pendingExpirations());
    run("get a");                                         // txid 4, now 40 >= 35: absent, and expired
    assertTrue(outputs().contains("4:get a=-"), outputs().toString());
    assertEquals(Map.of(), rows(), "the expired row is deleted, committed with txid 4");
    assertEquals(0, deadlines());
    assertEquals(0, pendingExpirations());
  }

  @Test
  void shouldTouchTheDeadlineOnWritesButNotOnReads() {
    run("set a 1, set b 1", "get a, get b", "set b 2, get a");   // a: deadline 35 (reads do not move it); b: 55
    run("get a, get b", "get b", "get b");                       // txids 4..6
    assertEquals(Set.of("2:get a=1", "2:get b=1", "3:get a=1", "4:get a=-", "4:get b=2", "5:get b=2", "6:get b=-"),
        outputs());
    assertEquals(Map.of(), rows());
    assertEquals(0, deadlines());
  }

  @Test
  void shouldTouchEvenWhenAWriteLeavesTheValueUnchanged() {
    run("set a 1", "", "set a 1", "", "get a", "", "get a");     // rewritten at 3 (deadline 55): alive at 5, not 7
    assertEquals(Set.of("5:get a=1", "7:get a=-"), outputs());
  }

  @Test
  void shouldExpireKeysInIdleBatchesAndNotResurrectThem() {
    run("set a 1, set b 2", "", "", "");                         // expired in txid 4, no record of theirs in it
    assertEquals(Map.of(), rows());
    assertEquals(0, deadlines());
    run("get a, set b 3", "get b");
    assertEquals(Set.of("5:get a=-", "6:get b=3"), outputs());
    assertEquals(Map.of("b", "3"), rows());
    assertEquals(1, deadlines());
  }

  @Test
  void shouldForgetTheDeadlineOfAClearedKey() {
    run("set a 1", "del a");
    assertEquals(Map.of(), rows());
    assertEquals(0, deadlines());
    assertEquals(0, pendingExpirations(), "the expiration timer is deleted with the key");
    run("", "", "", "set a 2", "get a");
    assertEquals(Set.of("7:get a=2"), outputs());
  }

  @Test
  void shouldExpireAtMostTheBoundPerBatchAndReadTheRestAsAbsentMeanwhile() {
    maxExpirations = 2;
    run("set a 1, set b 1, set c 1, set d 1, set e 1", "", "");
    assertEquals(5, rows().size());
    run("");                                              // txid 4: 2 of the 5 expire (by key add order: a, b)
    assertEquals(Map.of("c", "1", "d", "1", "e", "1"), rows());
    run("get c, get d, get e");                           // txid 5: all read as absent; c, d expire
    assertEquals(Set.of("5:get c=-", "5:get d=-", "5:get e=-"), outputs());
    assertEquals(Map.of("e", "1"), rows());
    run("");
    assertEquals(Map.of(), rows());
    assertEquals(0, deadlines());
    assertEquals(0, pendingExpirations());
  }

  @Test
  void shouldKeepARowUntilItsExpirationCommitsWhenTheAttemptFails() {
    run("set a 1", "", "");
    FaultInjector crash = new FaultInjector(List.of(new Fault(FaultPoint.AFTER_STATE_WRITES, 4, true, 0)));
    spout.batches.add(List.of(Ev.of("get a", 0)));
    Pipeline p = build(crash);
    assertThrows(SimulatedCrash.class, p::runUntilIdle);
    p.close();
    assertEquals(Map.of("a", "1"), rows(), "the expiration of the crashed attempt did not commit");
    assertEquals(1, deadlines());
    assertEquals(1, pendingExpirations());
    FaultInjector fail = new FaultInjector(List.of(new Fault(FaultPoint.AFTER_STATE_WRITES, 4, false, 0)));
    try (Pipeline again = build(fail)) {
      again.runUntilIdle();
      assertEquals(1, again.metrics().failedAttempts());
    }
    assertTrue(outputs().contains("4:get a=-"), outputs().toString());
    assertEquals(Map.of(), rows());
    assertEquals(0, deadlines());
    assertEquals(0, pendingExpirations());
  }

  @Test
  void shouldExpireOnEventTimeWhenTheWatermarkPassesTheDeadline() {
    domain = TimeDomain.EVENT_TIME;
    ttl = Duration.ofMillis(100);
    strategy = EventScript.strategy(0).build();
    spout.batches.add(List.of(new Ev("set a 1", 1000, 0)));     // watermark 1000 after it: deadline 1100
    spout.batches.add(List.of(new Ev("get a", 1099, 0)));       // read at watermark 1000 (batch start): present
    spout.batches.add(List.of(new Ev("get a", 1100, 0)));       // read at 1099: present; watermark 1100: expires
    spout.batches.add(List.of(new Ev("get a", 1100, 0)));       // read at 1100: absent
    try (Pipeline p = build(new FaultInjector(List.of()))) {
      p.runUntilIdle();
    }
    assertEquals(Set.of("2:get a=1", "3:get a=1", "4:get a=-"), outputs());
    assertEquals(Map.of(), rows());
    assertEquals(0, deadlines());
  }

  @Test
  void shouldNotExpireOnEventTimeWhileTheWatermarkStands() {
    domain = TimeDomain.EVENT_TIME;
    ttl = Duration.ofMillis(100);
    strategy = EventScript.strategy(0).build();
    spout.batches.add(List.of(new Ev("set a 1", 1000, 0)));
    for (int i = 0; i < 5; i++) {
      spout.batches.add(List.of());                              // processing time runs, event time does not
    }
    spout.batches.add(List.of(new Ev("get a", 1050, 0)));
    try (Pipeline p = build(new FaultInjector(List.of()))) {
      p.runUntilIdle();
    }
    assertEquals(Set.of("7:get a=1"), outputs());
  }

  @Test
  void shouldRefuseAnEventTimeTtlWithoutAWatermark() {
    domain = TimeDomain.EVENT_TIME;
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> build(new FaultInjector(
        List.of())));
    assertTrue(e.getMessage().contains("WatermarkStrategy"), e.getMessage());
  }

  @Test
  void shouldRefuseToChangeTheDomainOfAnExistingTtlButAcceptANewDuration() {
    run("set a 1");
    domain = TimeDomain.EVENT_TIME;
    strategy = EventScript.strategy(0).build();
    assertThrows(io.epochal.errors.SchemaMismatchException.class, () -> build(new FaultInjector(List.of())));
    domain = TimeDomain.PROCESSING_TIME;
    strategy = null;
    ttl = Duration.ofMillis(1000);
    run("get a", "set b 1", "", "get a, get b");  // a keeps its deadline 35 (written under 25 ms); b gets 1030
    assertEquals(Set.of("2:get a=1", "5:get a=-", "5:get b=1"), outputs());
  }

  @Test
  void shouldRefuseATtlOnThePerKeyProtocol() {
    TableStore perKey = TableStores.inMemoryBuilder().atomicMultiTableCommit(false).build();
    PipelineBuilder builder = Pipeline.newBuilder(PIPELINE).checkpointStore(TableCheckpointStore.on(perKey))
        .guarantee(io.epochal.pipeline.Guarantee.AT_LEAST_ONCE);
    Flow.process(builder.source(spout), "c", Ev::key, () -> new TtlScript(ttl, domain, 10), FlowStates.create());
    IllegalStateException e = assertThrows(IllegalStateException.class, builder::build);
    assertTrue(e.getMessage().contains("epoch protocol"), e.getMessage());
  }

  @Test
  void shouldValidateTheTtlOptions() {
    StateSpec.Builder<String, String> b = StateSpec.internal("v", io.epochal.store.table.KeyCodec.strings(),
        Codecs.strings(), "");
    assertThrows(IllegalArgumentException.class, () -> b.ttl(Duration.ZERO, TimeDomain.PROCESSING_TIME));
    assertThrows(IllegalArgumentException.class, () -> b.maxExpirationsPerBatch(0));
    assertThrows(IllegalStateException.class, () -> StateSpec.internal("w", io.epochal.store.table.KeyCodec.strings(),
        Codecs.strings(), "").maxExpirationsPerBatch(3).build());
    b.ttl(Duration.ofSeconds(1), TimeDomain.PROCESSING_TIME);
    assertThrows(IllegalStateException.class, () -> b.ttl(Duration.ofSeconds(2), TimeDomain.PROCESSING_TIME));
    assertEquals(java.util.Optional.of(new StateTtl(Duration.ofSeconds(1), TimeDomain.PROCESSING_TIME,
        StateTtl.DEFAULT_MAX_EXPIRATIONS_PER_BATCH)), b.build().ttl());
    assertEquals(java.util.Optional.empty(), StateSpec.internal("w", io.epochal.store.table.KeyCodec.strings(),
        Codecs.strings(), "").build().ttl());
  }
}
