package io.epochal.testkit.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.pipeline.Aggregators;
import io.epochal.spout.SpoutKind;
import io.epochal.state.StateKind;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableStores;
import io.epochal.testkit.FaultPoint;
import io.epochal.testkit.ReplayArbitraries;
import io.epochal.testkit.ReplayCheck;
import io.epochal.testkit.ReplayCheckFailure;
import io.epochal.testkit.ReplayResult;
import io.epochal.testkit.ReplaySchedule;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.junit.jupiter.api.Test;

/**
 * Gap 4 of issue 17, the default spout: a store that claims atomic multi-table commits but applies them table by
 * table ({@link ClaimsAtomicCommitStore}) passes under a transactional spout (a replay emits the same batch, and the
 * txid in each cell makes the half-landed commit harmless). {@code forTableStore} now runs every schedule under each
 * spout kind the store's declared capabilities make exactly-once, so the claim is tested by the opaque spout, whose
 * replays re-cut the batch.
 */
class CatchingAFalseCapabilityTest {

  static ReplayCheck.MapTarget<String, Long> claimsAtomic() {
    return ReplayCheck.forInMemoryTableStore(hook -> new ClaimsAtomicCommitStore(TableStores.inMemoryBuilder()
        .atomicMultiTableCommit(false).commitHook(hook).build()), KeyCodec.strings(), Codecs.longs(),
        StateKind.TRANSACTIONAL);
  }

  /** The README's configuration: no spout set. */
  @AddLifecycleHook(JqwikRunner.OnlyWhenLaunched.class)
  static class DefaultSpouts {
    static final ReplayCheck<String, String, Long> CHECK = claimsAtomic()
        .aggregate((String word) -> word, Aggregators.count())
        .build();

    @Property(seed = "4", tries = 300, shrinking = ShrinkingMode.FULL)
    void wordCountsAreExactlyOnce(@ForAll("schedules") ReplaySchedule<String> schedule) {
      CHECK.check(schedule);
    }

    @Provide
    Arbitrary<ReplaySchedule<String>> schedules() {
      return ReplayArbitraries.schedules(ReplayArbitraries.words(30));
    }
  }

  @Test
  void shouldCatchTheNonAtomicCommitUnderTheOpaqueSpout() {
    Throwable failure = JqwikRunner.failureOf(DefaultSpouts.class, "wordCountsAreExactlyOnce")
        .orElseThrow(() -> new AssertionError("the kit did not catch ClaimsAtomicCommitStore"));
    ReplayCheckFailure caught = assertInstanceOf(ReplayCheckFailure.class, failure, String.valueOf(failure));
    ReplayResult<?, ?> result = caught.result();
    String report = caught.getMessage();

    assertEquals(Optional.of(SpoutKind.OPAQUE), result.spout(), report);
    assertEquals(ReplayResult.Verdict.DIFFERS_FROM_MODEL, result.verdict(), report);
    // the commit failed after its first table write: the state landed, the checkpoint did not, and the replay re-cut
    assertTrue(result.fired().stream().anyMatch(f -> f.point() == FaultPoint.INSIDE_CHECKPOINT_COMMIT), report);
    assertTrue(report.matches("(?s).*FAULT (fail|crash) at INSIDE_CHECKPOINT_COMMIT of txid \\d+ after 1 table "
        + "write\\(s\\).*"), report);
    assertTrue(report.contains("\nSpout: OPAQUE\n"), report);
  }

  @Test
  void shouldRunBothSpoutsForAnAtomicStoreAndOnlyTheTransactionalOneForAPerTableStore() {
    ReplaySchedule<String> schedule = ReplaySchedule.of(List.of("a", "b", "a", "c"), 2);
    ReplayResult<String, Long> atomic = ReplayCheck
        .forInMemoryTableStore(hook -> TableStores.inMemoryBuilder().commitHook(hook).build(), KeyCodec.strings(),
            Codecs.longs(), StateKind.TRANSACTIONAL)
        .aggregate((String word) -> word, Aggregators.count())
        .build().check(schedule);
    assertEquals(Optional.of(SpoutKind.OPAQUE), atomic.spout(), atomic.report()); // the last kind run, passed

    ReplayResult<String, Long> perTable = ReplayCheck
        .forInMemoryTableStore(hook -> TableStores.inMemoryBuilder().atomicMultiTableCommit(false).commitHook(hook)
            .build(), KeyCodec.strings(), Codecs.longs(), StateKind.TRANSACTIONAL)
        .aggregate((String word) -> word, Aggregators.count())
        .build().check(schedule);
    // the builder refuses an opaque spout into the transactional layout without the epoch protocol: skipped
    assertEquals(Optional.of(SpoutKind.TRANSACTIONAL), perTable.spout(), perTable.report());
  }
}
