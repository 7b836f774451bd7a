package io.epochal.testkit.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.errors.StateAheadException;
import io.epochal.pipeline.Aggregators;
import io.epochal.state.StateKind;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import io.epochal.testkit.Fault;
import io.epochal.testkit.FaultPoint;
import io.epochal.testkit.ReplayArbitraries;
import io.epochal.testkit.ReplayCheck;
import io.epochal.testkit.ReplayCheckFailure;
import io.epochal.testkit.ReplayResult;
import io.epochal.testkit.ReplaySchedule;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.junit.jupiter.api.Test;

/**
 * Gap 2 of issue 17, simulated crashes: a crash now drops the store object. {@code forTableStore((dir, hook) ->
 * ...)} reopens the store from its durable part at every restart (the dead object is not even closed, as a killed
 * process never runs {@code close()}) and reads the final state through a freshly opened store. A store whose write
 * buffers hide lost writes while the object lives ({@link WriteBufferingStore}) is caught; the same store checked as
 * an in-memory one (the object survives the "crash") is not, which is what {@code forInMemoryTableStore} says.
 */
class CatchingWhatACrashLosesTest {
  /** The durable part of each run's stores: a "disk" per run directory (the in-memory store plays the disk). */
  static final Map<Path, TableStore> DISKS = new ConcurrentHashMap<>();

  static TableStore disk(Path dir, io.epochal.store.table.CommitHook hook) {
    return DISKS.computeIfAbsent(dir, d -> TableStores.inMemoryBuilder().commitHook(hook).build());
  }

  /** The README's configuration over the wrong store. */
  @AddLifecycleHook(JqwikRunner.OnlyWhenLaunched.class)
  static class Reopened {
    static final ReplayCheck<String, String, Long> CHECK = ReplayCheck
        .forTableStore((dir, hook) -> new WriteBufferingStore(disk(dir, hook), 3), KeyCodec.strings(),
            Codecs.longs(), StateKind.TRANSACTIONAL)
        .aggregate((String word) -> word, Aggregators.count())
        .build();

    @Property(seed = "2", tries = 300, shrinking = ShrinkingMode.FULL)
    void wordCountsAreExactlyOnce(@ForAll("schedules") ReplaySchedule<String> schedule) {
      CHECK.check(schedule);
    }

    @Provide
    Arbitrary<ReplaySchedule<String>> schedules() {
      return ReplayArbitraries.schedules(ReplayArbitraries.words(30));
    }
  }

  @Test
  void shouldCatchTheBufferedWritesACrashLoses() {
    Throwable failure = JqwikRunner.failureOf(Reopened.class, "wordCountsAreExactlyOnce")
        .orElseThrow(() -> new AssertionError("the kit did not catch WriteBufferingStore"));
    ReplayCheckFailure caught = assertInstanceOf(ReplayCheckFailure.class, failure, String.valueOf(failure));
    ReplayResult<?, ?> result = caught.result();
    String report = caught.getMessage();

    // the disk kept a batch's state rows but lost its checkpoint row: the restarted pipeline finds state ahead
    assertEquals(ReplayResult.Verdict.STOPPED, result.verdict(), report);
    assertInstanceOf(StateAheadException.class, result.error().orElseThrow(), report);
    assertTrue(result.fired().stream().anyMatch(Fault::crash), report);
    assertTrue(report.matches("(?s).*RESTART: the process died \\(simulated crash: crash at \\w+ of txid \\d+[^)]*\\) "
        + "with txid \\d+ committed; incarnation 1 reopens the store from its durable part \\(the old store object is "
        + "dropped\\)\\n.*"), report);
  }

  @Test
  void shouldNotCatchItWhenTheStoreIsDeclaredInMemory() {
    // the same store object survives the crash: nothing is lost, which is all an in-memory target can prove
    ReplaySchedule<String> schedule = ReplaySchedule.of(List.of("a", "b", "c", "d", "a"), 2)
        .withFaults(Fault.crash(FaultPoint.AFTER_STATE_WRITES, 3));
    ReplayResult<String, Long> survives = ReplayCheck
        .forInMemoryTableStore(hook -> new WriteBufferingStore(TableStores.inMemoryBuilder().commitHook(hook)
            .build(), 3), KeyCodec.strings(), Codecs.longs(), StateKind.TRANSACTIONAL)
        .aggregate((String word) -> word, Aggregators.count())
        .build().run(schedule);
    assertEquals(ReplayResult.Verdict.PASSED, survives.verdict(), survives.report());
    assertTrue(survives.report().contains("rebuilds the pipeline over the same store object (an in-memory store: it "
        + "has no durable part)"), survives.report());
  }

  @Test
  void shouldPassTheStoreThatWritesEveryCommitThrough() {
    ReplayCheck<String, String, Long> check = ReplayCheck
        .forTableStore((dir, hook) -> new WriteBufferingStore(disk(dir, hook), 1), KeyCodec.strings(),
            Codecs.longs(), StateKind.TRANSACTIONAL)
        .aggregate((String word) -> word, Aggregators.count())
        .build();
    ReplayResult<String, Long> result = check.check(ReplaySchedule.of(List.of("a", "b", "c", "d", "a", "e"), 2)
        .withFaults(Fault.crash(FaultPoint.AFTER_STATE_WRITES, 2), Fault.crash(FaultPoint.INSIDE_CHECKPOINT_COMMIT,
            3)));
    assertEquals(ReplayResult.Verdict.PASSED, result.verdict(), result.report());
    assertEquals(2, result.outcome().orElseThrow().restarts(), result.report());
  }

  /** The durable part of each run's backing maps. */
  static final Map<Path, Map<String, TransactionalValue<Long>>> MAP_DISKS = new ConcurrentHashMap<>();

  static ReplayCheck<String, String, Long> bufferingMap(int flushEvery) {
    return ReplayCheck
        .forDurableBackingMap((Path dir) -> new BufferingBackingMap<TransactionalValue<Long>>(
            MAP_DISKS.computeIfAbsent(dir, d -> new ConcurrentHashMap<>()), flushEvery), TransactionalMap::factory)
        .aggregate((String word) -> word, Aggregators.count())
        .build();
  }

  @Test
  void shouldCatchABackingMapThatLosesAcknowledgedWritesAtACrash() {
    ReplaySchedule<String> schedule = ReplaySchedule.of(List.of("a", "a", "a"), 1)
        .withFaults(Fault.crash(FaultPoint.BEFORE_STATE_WRITE, 2));
    ReplayResult<String, Long> lost = bufferingMap(2).run(schedule);
    // txid 1 was committed, its buffered cell died with the process: the count restarts from nothing
    assertEquals(ReplayResult.Verdict.DIFFERS_FROM_MODEL, lost.verdict(), lost.report());
    assertEquals(Map.of("a", new ReplayResult.Difference<>(Optional.of(3L), Optional.of(2L))), lost.differences(),
        lost.report());
    assertTrue(lost.report().contains("incarnation 1 reopens the map from its durable part (the old map object is "
        + "dropped)"), lost.report());

    ReplayResult<String, Long> writesThrough = bufferingMap(1).run(schedule);
    assertEquals(ReplayResult.Verdict.PASSED, writesThrough.verdict(), writesThrough.report());
  }
}
