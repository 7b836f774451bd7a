package io.epochal.testkit.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.pipeline.Aggregators;
import io.epochal.state.opaque.OpaqueMap;
import io.epochal.state.opaque.OpaqueValue;
import io.epochal.testkit.ReplayArbitraries;
import io.epochal.testkit.ReplayCheck;
import io.epochal.testkit.ReplayCheckFailure;
import io.epochal.testkit.ReplayResult;
import io.epochal.testkit.ReplaySchedule;
import io.epochal.testkit.TimelineEvent;
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
 * Gap 5 of issue 17, the timeline: what a backing map returned on each read, and, read back right after each
 * {@code multiPut}, what it holds. A map that drops a cell ({@link KeyDroppingBackingMap}) shows a
 * {@code LOST WRITE} step naming the dropped key, where the timeline used to repeat the put's arguments.
 */
class ShowingWhatAStoreHoldsTest {

  @AddLifecycleHook(JqwikRunner.OnlyWhenLaunched.class)
  static class UserProperty {
    static final ReplayCheck<String, String, Long> CHECK = ReplayCheck
        .forBackingMap(KeyDroppingBackingMap<OpaqueValue<Long>>::new, OpaqueMap::factory)
        .aggregate((String word) -> word, Aggregators.count())
        .build();

    @Property(seed = "5", tries = 200, shrinking = ShrinkingMode.FULL)
    void wordCountsAreExactlyOnce(@ForAll("schedules") ReplaySchedule<String> schedule) {
      CHECK.check(schedule);
    }

    @Provide
    Arbitrary<ReplaySchedule<String>> schedules() {
      return ReplayArbitraries.schedules(ReplayArbitraries.words(30));
    }
  }

  @Test
  void shouldShowTheDroppedKeyAsALostWrite() {
    Throwable failure = JqwikRunner.failureOf(UserProperty.class, "wordCountsAreExactlyOnce")
        .orElseThrow(() -> new AssertionError("the kit did not catch KeyDroppingBackingMap"));
    ReplayCheckFailure caught = assertInstanceOf(ReplayCheckFailure.class, failure, String.valueOf(failure));
    ReplayResult<?, ?> result = caught.result();
    String report = caught.getMessage();

    // the dropped key is the one that differs, and the timeline says the store does not hold it
    assertEquals(1, result.differences().size(), report);
    Object dropped = result.differences().keySet().iterator().next();
    assertEquals(Optional.empty(), result.differences().get(dropped).actual(), report);
    TimelineEvent lost = result.timeline().stream().filter(e -> e.kind() == TimelineEvent.Kind.LOST_WRITE)
        .findFirst().orElseThrow(() -> new AssertionError("no LOST_WRITE step:\n" + report));
    assertEquals(List.of(dropped), lost.keys(), report);
    assertTrue(report.matches("(?s).*\\n\\s+\\d+\\. txid 1 attempt 1 partition 0: wrote (\\w+ = OpaqueValue\\[curr=1, "
        + "prev=Optional.empty, txid=1\\](, )?){4}\\n\\s+\\d+\\. txid 1 attempt 1 partition 0: LOST WRITE: read back "
        + dropped + " = \\(absent\\) \\(not what was written\\)\\n.*"), report);
    // reads are shown with what the map returned
    assertTrue(report.matches("(?s).*\\d+\\. txid 1 attempt 1 partition 0: read (\\w+ = \\(absent\\)(, )?){4}\\n.*"),
        report);
  }

  @Test
  void shouldShowNoLostWriteForACorrectMap() {
    ReplayCheck<String, String, Long> check = ReplayCheck
        .forBackingMap(ReplacingBackingMap<OpaqueValue<Long>>::new, OpaqueMap::factory)
        .aggregate((String word) -> word, Aggregators.count())
        .build();
    ReplayResult<String, Long> result = check.check(ReplaySchedule.of(List.of("a", "b", "c", "d", "e", "a"), 6));
    assertEquals(ReplayResult.Verdict.PASSED, result.verdict(), result.report());
    assertFalse(result.timeline().stream().anyMatch(e -> e.kind() == TimelineEvent.Kind.LOST_WRITE),
        result.report());
    assertTrue(result.timeline().stream().anyMatch(e -> e.kind() == TimelineEvent.Kind.READ
        && e.keys().size() == 5), result.report());
  }
}
