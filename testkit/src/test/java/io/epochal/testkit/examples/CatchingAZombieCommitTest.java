package io.epochal.testkit.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.pipeline.Aggregators;
import io.epochal.state.StateKind;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableStores;
import io.epochal.testkit.Fault;
import io.epochal.testkit.FaultPoint;
import io.epochal.testkit.ReplayArbitraries;
import io.epochal.testkit.ReplayCheck;
import io.epochal.testkit.ReplayCheckFailure;
import io.epochal.testkit.ReplayResult;
import io.epochal.testkit.ReplaySchedule;
import io.epochal.testkit.TimelineEvent;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.junit.jupiter.api.Test;

/**
 * Gap 3 of issue 17, fencing: the default schedules now include zombies, where a new owner takes the pipeline's lease
 * over before the stale worker's checkpoint commit ({@link FaultPoint#LEASE_TAKEN_BEFORE_COMMIT}) or between the
 * {@code begin(lease)} and the {@code commit()} of its transaction ({@link FaultPoint#LEASE_TAKEN_INSIDE_COMMIT}).
 * The final counts of such a run can be right; the kit fails it because the stale commit landed. A store that checks
 * leases only at begin ({@link LeaseAtBeginOnlyStore}) is caught by a replay check, not only by the contract suite.
 */
class CatchingAZombieCommitTest {

  static ReplayCheck.MapTarget<String, Long> leaseAtBeginOnly() {
    return ReplayCheck.forInMemoryTableStore(hook -> new LeaseAtBeginOnlyStore(TableStores.inMemoryBuilder()
        .commitHook(hook).build()), KeyCodec.strings(), Codecs.longs(), StateKind.TRANSACTIONAL);
  }

  /** The README's configuration. */
  @AddLifecycleHook(JqwikRunner.OnlyWhenLaunched.class)
  static class UserProperty {
    static final ReplayCheck<String, String, Long> CHECK = leaseAtBeginOnly()
        .aggregate((String word) -> word, Aggregators.count())
        .build();

    // FULL shrinking: the default (BOUNDED) stops shrinking after 10 s, which a loaded machine reaches before the
    // minimal schedule that the test below asserts (seen: 5 faults left instead of 1 at a load average of 20).
    @Property(seed = "3", tries = 300, shrinking = ShrinkingMode.FULL)
    void wordCountsAreExactlyOnce(@ForAll("schedules") ReplaySchedule<String> schedule) {
      CHECK.check(schedule);
    }

    @Provide
    Arbitrary<ReplaySchedule<String>> schedules() {
      return ReplayArbitraries.schedules(ReplayArbitraries.words(30));
    }
  }

  @Test
  void shouldCatchTheStaleCommitThatLandedBetweenBeginAndCommit() {
    Throwable failure = JqwikRunner.failureOf(UserProperty.class, "wordCountsAreExactlyOnce")
        .orElseThrow(() -> new AssertionError("the kit did not catch LeaseAtBeginOnlyStore"));
    ReplayCheckFailure caught = assertInstanceOf(ReplayCheckFailure.class, failure, String.valueOf(failure));
    ReplayResult<?, ?> result = caught.result();
    String report = caught.getMessage();

    assertEquals(ReplayResult.Verdict.FENCING_VIOLATED, result.verdict(), report);
    assertEquals(List.of(Fault.fail(FaultPoint.LEASE_TAKEN_INSIDE_COMMIT, 1)), result.schedule().faults(), report);
    assertEquals(1, result.fencingViolations().size(), report);
    assertTrue(report.matches("Replay check failed: fencing violated: the store accepted the commit of txid 1 by "
        + "worker-0 after worker-0-successor took lease 'pipeline:[\\w-]+' over between begin and commit "
        + "\\(LEASE_TAKEN_INSIDE_COMMIT\\)\\n(?s).*"), report);
    assertTrue(report.matches("(?s).*\\d+\\. txid 1 attempt 1: LEASE TAKEN OVER: worker-0-successor took lease "
        + "'pipeline:[\\w-]+' over from worker-0 between begin and commit\\n\\s+\\d+\\. txid 1 attempt 1: FENCING "
        + "VIOLATED: .*"), report);
    // the counts are right: only the fencing check sees the zombie
    assertTrue(result.differences().isEmpty(), report);
  }

  @Test
  void shouldPassAFencedStoreThroughBothZombies() {
    ReplayCheck<String, String, Long> check = ReplayCheck
        .forInMemoryTableStore(hook -> TableStores.inMemoryBuilder().commitHook(hook).build(), KeyCodec.strings(),
            Codecs.longs(), StateKind.TRANSACTIONAL)
        .aggregate((String word) -> word, Aggregators.count())
        .build();
    ReplayResult<String, Long> result = check.check(ReplaySchedule.of(List.of("a", "b", "a", "c"), 2).withFaults(
        Fault.fail(FaultPoint.LEASE_TAKEN_BEFORE_COMMIT, 1), Fault.fail(FaultPoint.LEASE_TAKEN_INSIDE_COMMIT, 2)));
    assertEquals(ReplayResult.Verdict.PASSED, result.verdict(), result.report());
    assertEquals(2, result.fired().size(), result.report());
    assertEquals(2, result.timeline().stream().filter(e -> e.kind() == TimelineEvent.Kind.FENCED).count(),
        result.report());
    assertFalse(result.timeline().stream().anyMatch(e -> e.kind() == TimelineEvent.Kind.FENCING_VIOLATED),
        result.report());
  }

  @Test
  void shouldCatchAStoreThatIgnoresLeasesAtEitherPointAndTheBeginOnlyStoreInsideTheCommitOnly() {
    ReplaySchedule<String> before = ReplaySchedule.of(List.of("a", "b"), 1)
        .withFaults(Fault.fail(FaultPoint.LEASE_TAKEN_BEFORE_COMMIT, 1));
    ReplaySchedule<String> inside = ReplaySchedule.of(List.of("a", "b"), 1)
        .withFaults(Fault.fail(FaultPoint.LEASE_TAKEN_INSIDE_COMMIT, 1));
    ReplayCheck<String, String, Long> ignoresLeases = ReplayCheck
        .forInMemoryTableStore(hook -> new io.epochal.testkit.store.ForwardingTableStore(TableStores.inMemoryBuilder()
            .commitHook(hook).build()) {
          @Override
          public io.epochal.store.table.StoreTransaction begin(io.epochal.store.table.Lease lease) {
            return super.begin(); // never fenced
          }
        }, KeyCodec.strings(), Codecs.longs(), StateKind.TRANSACTIONAL)
        .aggregate((String word) -> word, Aggregators.count())
        .build();
    assertEquals(ReplayResult.Verdict.FENCING_VIOLATED, ignoresLeases.run(before).verdict());
    assertEquals(ReplayResult.Verdict.FENCING_VIOLATED, ignoresLeases.run(inside).verdict());

    ReplayCheck<String, String, Long> atBeginOnly = leaseAtBeginOnly()
        .aggregate((String word) -> word, Aggregators.count())
        .build();
    ReplayResult<String, Long> refusedAtBegin = atBeginOnly.run(before);
    assertEquals(ReplayResult.Verdict.PASSED, refusedAtBegin.verdict(), refusedAtBegin.report());
    assertEquals(ReplayResult.Verdict.FENCING_VIOLATED, atBeginOnly.run(inside).verdict());
  }
}
