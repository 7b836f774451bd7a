package io.epochal.testkit.examples;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.GuaranteeNotDeliverableException;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Guarantee;
import io.epochal.spout.SpoutKind;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.testkit.ReplayArbitraries;
import io.epochal.testkit.ReplayCheck;
import io.epochal.testkit.ReplayCheckFailure;
import io.epochal.testkit.ReplaySchedule;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.junit.jupiter.api.Test;

/**
 * Example: a pairing the pipeline builder refuses (an opaque, re-cutting spout into a {@code TransactionalMap} on the
 * per-key protocol), forced through with {@code AT_LEAST_ONCE}: the kit finds a schedule where a replayed batch counts
 * the failed attempt's writes again, and shrinks it. ({@code AT_LEAST_ONCE} re-applies cells the failed attempt wrote
 * under the txid instead of skipping them, so what the kit shows is duplicates, never a loss.)
 */
class CatchingAWrongPairingTest {

  static ReplayCheck.Builder<String, String, Long> opaqueIntoTransactionalMap() {
    return ReplayCheck
        .forBackingMap(() -> new InMemoryBackingMap<String, TransactionalValue<Long>>("counts"),
            TransactionalMap::factory)
        .aggregate((String word) -> word, Aggregators.count())
        .spout(SpoutKind.OPAQUE);   // the kit's spout re-cuts every replayed batch with the schedule's re-cuts
  }

  /** The property a user might write for this pairing; it must fail. */
  @AddLifecycleHook(JqwikRunner.OnlyWhenLaunched.class)
  static class UserProperty {
    static final ReplayCheck<String, String, Long> CHECK = opaqueIntoTransactionalMap()
        .guarantee(Guarantee.AT_LEAST_ONCE)
        .build();

    @Property(seed = "7", tries = 300, shrinking = ShrinkingMode.FULL)
    void opaqueSpoutIntoTransactionalMapIsExactlyOnce(@ForAll("schedules") ReplaySchedule<String> schedule) {
      CHECK.check(schedule);
    }

    @Provide
    Arbitrary<ReplaySchedule<String>> schedules() {
      return ReplayArbitraries.schedules(ReplayArbitraries.words(30));
    }
  }

  @Test
  void shouldCatchTheWrongPairingForcedToAtLeastOnce() {
    Throwable failure = JqwikRunner.failureOf(UserProperty.class, "opaqueSpoutIntoTransactionalMapIsExactlyOnce")
        .orElseThrow(() -> new AssertionError("the kit did not catch (opaque spout, TransactionalMap)"));
    ReplayCheckFailure caught = assertInstanceOf(ReplayCheckFailure.class, failure, String.valueOf(failure));
    String report = caught.getMessage();
    ReplaySchedule<?> minimal = caught.result().schedule();
    assertFalse(minimal.faults().isEmpty(), report);
    assertFalse(caught.result().differences().isEmpty(), report);
    caught.result().differences().forEach((key, d) -> {
      long actual = d.actual().map(v -> ((Number) v).longValue()).orElse(0L);
      long expected = d.expected().map(v -> ((Number) v).longValue()).orElse(0L);
      assertTrue(actual > expected, "AT_LEAST_ONCE counts a replay again, it never loses a record: " + key + " " + d
          + "\n" + report);
    });
    assertTrue(report.contains("Differing keys (expected vs actual):"), report);
    assertTrue(report.matches("(?s).*\\d+\\. txid 1 attempt 2: emitted .*"), "the replay is in the timeline: " + report);
  }

  @Test
  void shouldBeRefusedWithoutTheOptIn() {
    ReplayCheck<String, String, Long> check = opaqueIntoTransactionalMap().build();
    ReplayCheckFailure refused = assertThrows(ReplayCheckFailure.class,
        () -> check.run(ReplaySchedule.of(List.of("a", "b"), 1)));
    assertInstanceOf(GuaranteeNotDeliverableException.class, refused.getCause(), refused.getMessage());
    assertTrue(refused.getMessage().startsWith("Replay check failed: the failure-free reference run stopped with"),
        refused.getMessage());
  }
}
