package io.epochal.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.errors.BatchFailedException;
import io.epochal.pipeline.Aggregators;
import io.epochal.spout.SpoutKind;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.StateKind;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.Lease;
import io.epochal.store.table.StoreCapabilities;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ReplayCheckTest {
  private static final List<String> WORDS = List.of("a", "b", "a", "c", "b", "a", "d");

  private static ReplayCheck.Builder<String, String, Long> transactionalCounts() {
    return ReplayCheck.forBackingMap(() -> new InMemoryBackingMap<String, TransactionalValue<Long>>(),
        TransactionalMap::factory).aggregate((String w) -> w, Aggregators.count());
  }

  @Test
  void shouldPassAndRecordEveryPointOfTheProtocol() {
    ReplaySchedule<String> schedule = new ReplaySchedule<>(WORDS, new BatchCuts(List.of(2, 3), List.of()),
        new Parallelism(2, 2, 1), List.of(Fault.fail(FaultPoint.AFTER_EMIT, 1),
            Fault.fail(FaultPoint.INSIDE_MULTIPUT, 1).withPrefix(1), Fault.crash(FaultPoint.AFTER_STATE_WRITES, 2),
            Fault.fail(FaultPoint.INSIDE_CHECKPOINT_COMMIT, 2), Fault.crash(FaultPoint.DURING_CHECKPOINT_COMMIT, 3)));
    ReplayResult<String, Long> result = transactionalCounts().build().check(schedule);
    assertTrue(result.passed(), result.report());
    assertEquals(Map.of("a", 3L, "b", 2L, "c", 1L, "d", 1L), result.actual());
    assertEquals(5, result.fired().size(), result.report());
    assertEquals(2, result.outcome().orElseThrow().restarts());
    assertTrue(result.report().startsWith("Replay check passed"), result.report());
    assertTrue(result.timeline().stream().anyMatch(e -> e.kind() == TimelineEvent.Kind.RESTARTED));
    assertTrue(result.timeline().stream().anyMatch(e -> e.kind() == TimelineEvent.Kind.WROTE
        && e.partition() >= 0 && !e.keys().isEmpty()));
  }

  @Test
  void shouldReportOnlyTheDifferingKeysAgainstAFold() {
    ReplayCheck<String, String, Long> check = transactionalCounts()
        .oracle(Oracle.fold("counts off by one for 'a'", input -> Map.of("a", 4L, "b", 2L, "c", 1L, "d", 1L)))
        .build();
    ReplayCheckFailure failure = assertThrows(ReplayCheckFailure.class, () -> check.check(ReplaySchedule.of(WORDS, 3)));
    String report = failure.getMessage();
    // the failure-free run agrees with the faulty one, not with the fold: the verdict says which reference disagrees
    assertEquals(ReplayResult.Verdict.FAILURE_FREE_RUN_DIFFERS_FROM_MODEL, failure.result().verdict(), report);
    assertTrue(report.endsWith("Differing keys (expected vs failure-free run vs actual):\n"
        + "  a: expected 4, failure-free run 3, actual 3\n"), report);
    assertEquals(Map.of("a", new ReplayResult.Difference<>(Optional.of(4L), Optional.of(3L))),
        failure.result().differences());
  }

  @Test
  void shouldFailWithTheTimelineWhenThePipelineGivesUp() {
    ReplayCheck<String, String, Long> check = transactionalCounts().maxAttempts(2).build();
    ReplayResult<String, Long> result = check.run(ReplaySchedule.of(WORDS, 2).withFaults(
        Fault.fail(FaultPoint.BEFORE_STATE_WRITE, 2), Fault.fail(FaultPoint.AFTER_STATE_WRITES, 2)));
    assertFalse(result.passed());
    assertInstanceOf(BatchFailedException.class, result.error().orElseThrow());
    assertTrue(result.report().startsWith("Replay check failed: the pipeline stopped with"), result.report());
    assertTrue(result.report().contains("STOPPED"), result.report());
  }

  @Test
  void shouldInjectInsideTheWritesOfAUsersMapState() {
    ReplayCheck<String, String, Long> check = ReplayCheck
        .forMapState(() -> TransactionalMap.factory(new InMemoryBackingMap<String, TransactionalValue<Long>>()))
        .aggregate((String w) -> w, Aggregators.count())
        .build();
    ReplayResult<String, Long> result = check.check(ReplaySchedule.of(WORDS, 4).withFaults(
        Fault.crash(FaultPoint.INSIDE_MULTIPUT, 1).withPrefix(1), Fault.fail(FaultPoint.BEFORE_STATE_WRITE, 2)));
    assertEquals(2, result.fired().size(), result.report());
    assertTrue(result.report().contains("wrote a = 2"), "state-level writes show values: " + result.report());
  }

  @Test
  void shouldFireInsideTheStoresCommitAndLetItsAtomicityDecide() {
    ReplayCheck<String, String, Long> check = ReplayCheck
        .forInMemoryTableStore(hook -> TableStores.inMemoryBuilder().commitHook(hook).build(), KeyCodec.strings(),
            Codecs.longs(), StateKind.TRANSACTIONAL)
        .aggregate((String w) -> w, Aggregators.count())
        .spout(SpoutKind.OPAQUE)
        .build();
    ReplaySchedule<String> schedule = new ReplaySchedule<>(WORDS, new BatchCuts(List.of(3), List.of(1)),
        Parallelism.sequential(), List.of(Fault.fail(FaultPoint.INSIDE_CHECKPOINT_COMMIT, 1).withPrefix(1),
            Fault.crash(FaultPoint.INSIDE_CHECKPOINT_COMMIT, 2)));
    ReplayResult<String, Long> result = check.check(schedule);
    assertEquals(2, result.fired().size(), result.report());
  }

  /** A store that claims atomic multi-table commit but writes table by table: the replay check catches the lie. */
  @Test
  void shouldCatchAStoreThatIsNotAsAtomicAsItClaims() {
    ReplayCheckFailure failure = assertThrows(ReplayCheckFailure.class, () -> TableStoreReplayChecks.run(
        hook -> new ClaimsAtomic(TableStores.inMemoryBuilder().atomicMultiTableCommit(false).commitHook(hook)
            .build()), "", SpoutKind.OPAQUE, StateKind.TRANSACTIONAL));
    assertTrue(failure.getMessage().contains("INSIDE_CHECKPOINT_COMMIT"), failure.getMessage());
  }

  @Test
  void shouldValidateItsOptions() {
    ReplayCheck.Builder<String, String, Long> builder = transactionalCounts().name("x");
    assertThrows(IllegalStateException.class, () -> builder.name("y"));
    assertThrows(IllegalArgumentException.class, () -> builder.spout(SpoutKind.NON_TRANSACTIONAL));
    assertThrows(IllegalArgumentException.class, () -> builder.maxAttempts(0));
    assertThrows(IllegalArgumentException.class, () -> new BatchCuts(List.of(), List.of()));
    assertThrows(IllegalArgumentException.class, () -> new Parallelism(0, 1, 1));
    assertThrows(IllegalArgumentException.class, () -> new Fault(FaultPoint.AFTER_EMIT, 0, false, 0));
  }

  @Test
  void shouldFireInsideTheCheckpointCommitBeforeWritingOnAStoreWithoutAHook() {
    FaultInjector faults = new FaultInjector(List.of(Fault.fail(FaultPoint.INSIDE_CHECKPOINT_COMMIT, 1)));
    io.epochal.store.InMemoryCheckpointStore raw = new io.epochal.store.InMemoryCheckpointStore();
    io.epochal.store.CheckpointStore wrapped = faults.wrap(raw);
    wrapped.load("p");
    assertThrows(InjectedFailure.class, () -> wrapped.commit("p", 1, new byte[0]));
    assertEquals(0, raw.load("p").committedTxid(), "nothing landed");
    wrapped.commit("p", 1, new byte[0]);
    assertEquals(1, raw.load("p").committedTxid());
  }

  /** Delegates to a per-table store but declares atomic multi-table commit. */
  private record ClaimsAtomic(TableStore store) implements TableStore {
    @Override
    public StoreCapabilities capabilities() {
      return StoreCapabilities.full();
    }

    @Override
    public Table openTable(TableSchema schema) {
      return store.openTable(schema);
    }

    @Override
    public Optional<Table> findTable(String path) {
      return store.findTable(path);
    }

    @Override
    public Lease acquireLease(String name, String owner) {
      return store.acquireLease(name, owner);
    }

    @Override
    public StoreTransaction begin() {
      return store.begin();
    }

    @Override
    public StoreTransaction begin(Lease lease) {
      return store.begin(lease);
    }

    @Override
    public String describe() {
      return "claims-atomic " + store.describe();
    }

    @Override
    public void close() {
      store.close();
    }
  }

}
