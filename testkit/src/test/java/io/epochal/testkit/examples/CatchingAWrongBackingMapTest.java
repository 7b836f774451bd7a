package io.epochal.testkit.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.pipeline.Aggregators;
import io.epochal.state.opaque.OpaqueMap;
import io.epochal.testkit.ReplayArbitraries;
import io.epochal.testkit.ReplayCheck;
import io.epochal.testkit.ReplayCheckFailure;
import io.epochal.testkit.ReplayResult;
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
 * Example: the testkit catches a user's backing map whose {@code multiPut} is not idempotent on retry
 * ({@link RetryAddingBackingMap}), shrinks the schedule to one failed attempt, and prints it as a numbered timeline
 * with the expected and actual counts of the differing key.
 */
class CatchingAWrongBackingMapTest {

  /** The property a user writes for their store; it must fail for {@link RetryAddingBackingMap}. */
  @AddLifecycleHook(JqwikRunner.OnlyWhenLaunched.class)
  static class UserProperty {
    static final ReplayCheck<String, String, Long> CHECK = ReplayCheck
        .forBackingMap(RetryAddingBackingMap::new, OpaqueMap::factory)  // the user's store under the opaque rule
        .aggregate((String word) -> word, Aggregators.count())            // a word count over it
        .build();                                                         // oracle: the aggregation of the input

    @Property(seed = "42", tries = 200, shrinking = ShrinkingMode.FULL)
    void wordCountsAreExactlyOnce(@ForAll("schedules") ReplaySchedule<String> schedule) {
      CHECK.check(schedule);
    }

    @Provide
    Arbitrary<ReplaySchedule<String>> schedules() {
      return ReplayArbitraries.schedules(ReplayArbitraries.words(30));
    }
  }

  @Test
  void shouldCatchTheNonIdempotentRetryAndReportTheShrunkTimeline() {
    Throwable failure = JqwikRunner.failureOf(UserProperty.class, "wordCountsAreExactlyOnce")
        .orElseThrow(() -> new AssertionError("the kit did not catch RetryAddingBackingMap"));
    ReplayCheckFailure caught = assertInstanceOf(ReplayCheckFailure.class, failure, String.valueOf(failure));
    String report = caught.getMessage();

    // jqwik shrank the schedule to one failed attempt in a single, sequential batch
    ReplaySchedule<?> minimal = caught.result().schedule();
    assertEquals(1, minimal.faults().size(), report);
    assertEquals(1, minimal.parallelism().partitions(), report);
    assertEquals(1, minimal.parallelism().threads(), report);
    assertEquals(List.of(), caught.result().unfired(), report);

    // the report: verdict, the schedule, a numbered timeline of the attempts, and only the differing keys
    assertEquals(ReplayResult.Verdict.DIFFERS_FROM_MODEL, caught.result().verdict(), report);
    assertTrue(report.startsWith("Replay check failed: 1 of 1 key(s) differ from the aggregation of the input\n"
        + "Reference: the aggregation of the input (a model of the pipeline); the failure-free run of the same input "
        + "agrees with it\n"), report);
    assertTrue(report.contains("\nTimeline:\n"), report);
    assertTrue(report.matches("(?s).*\\n\\s+1\\. txid 1 attempt 1: emitted 1 record\\(s\\) \\[\\w+\\]\\n.*"), report);
    assertTrue(report.matches("(?s).*\\d+\\. txid 1 attempt 1 partition 0: wrote \\w+ = OpaqueValue\\[curr=1, "
        + "prev=Optional.empty, txid=1\\].*"), report);
    assertTrue(report.matches("(?s).*\\d+\\. txid 1 attempt 1: FAULT (fail|crash) at \\w+ of txid 1.*"), report);
    assertTrue(report.matches("(?s).*\\d+\\. txid 1 attempt 2 partition 0: wrote \\w+ = OpaqueValue\\[curr=1, "
        + "prev=Optional.empty, txid=1\\].*"), report);
    assertTrue(report.matches("(?s).*\\d+\\. txid 1 attempt 2: committed\\n.*"), report);
    assertTrue(report.matches("(?s).*Differing keys \\(expected vs actual\\):\\n  \\w+: expected 1, actual 2\\n"),
        report);
  }
}
