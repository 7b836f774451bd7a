package io.epochal.testkit.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.pipeline.Aggregators;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.testkit.Oracle;
import io.epochal.testkit.ReplayArbitraries;
import io.epochal.testkit.ReplayCheck;
import io.epochal.testkit.ReplayCheckFailure;
import io.epochal.testkit.ReplayResult;
import io.epochal.testkit.ReplaySchedule;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.junit.jupiter.api.Test;

/**
 * Gap 1 of issue 17, the default oracle: a backing map that is wrong on every run ({@link ReadCachingBackingMap},
 * whose read cache never sees its writes) passes a check against the failure-free run of the same input, because
 * the reference run is just as wrong. The map targets know what the pipeline means ({@code aggregate(keyFn,
 * aggregator)}), so by default they compare with the aggregation of the input, run the failure-free run beside it,
 * and say which reference disagrees; the wrong reference run is shown as "failure-free run", never as "expected".
 */
class CatchingABugWithoutFaultsTest {

  /** The README's configuration, over the wrong map. */
  @AddLifecycleHook(JqwikRunner.OnlyWhenLaunched.class)
  static class DefaultOracle {
    static final ReplayCheck<String, String, Long> CHECK = ReplayCheck
        .forBackingMap(ReadCachingBackingMap<TransactionalValue<Long>>::new, TransactionalMap::factory)
        .aggregate((String word) -> word, Aggregators.count())
        .build();                                       // oracle: the aggregation of the input (and the failure-free run)

    @Property(seed = "17", tries = 100, shrinking = ShrinkingMode.FULL)
    void wordCountsAreExactlyOnce(@ForAll("schedules") ReplaySchedule<String> schedule) {
      CHECK.check(schedule);
    }

    @Provide
    Arbitrary<ReplaySchedule<String>> schedules() {
      return ReplayArbitraries.schedules(ReplayArbitraries.words(30));
    }
  }

  /** The failure-free oracle alone: what it cannot catch. */
  @AddLifecycleHook(JqwikRunner.OnlyWhenLaunched.class)
  static class FailureFreeOracleOnly {
    static final ReplayCheck<String, String, Long> CHECK = ReplayCheck
        .forBackingMap(ReadCachingBackingMap<TransactionalValue<Long>>::new, TransactionalMap::factory)
        .aggregate((String word) -> word, Aggregators.count())
        .oracle(Oracle.failureFree())
        .build();

    @Property(seed = "17", tries = 100, shrinking = ShrinkingMode.FULL)
    void wordCountsAreExactlyOnce(@ForAll("schedules") ReplaySchedule<String> schedule) {
      CHECK.check(schedule);
    }

    @Provide
    Arbitrary<ReplaySchedule<String>> schedules() {
      return ReplayArbitraries.schedules(ReplayArbitraries.words(30));
    }
  }

  @Test
  void shouldCatchTheReadCacheAgainstTheModelAndSayTheReferenceRunIsWrongToo() {
    Throwable failure = JqwikRunner.failureOf(DefaultOracle.class, "wordCountsAreExactlyOnce")
        .orElseThrow(() -> new AssertionError("the default oracle did not catch ReadCachingBackingMap"));
    ReplayCheckFailure caught = assertInstanceOf(ReplayCheckFailure.class, failure, String.valueOf(failure));
    ReplayResult<?, ?> result = caught.result();
    String report = caught.getMessage();

    assertEquals(ReplayResult.Verdict.FAILURE_FREE_RUN_DIFFERS_FROM_MODEL, result.verdict(), report);
    assertTrue(result.referenceIsModel(), report);
    assertEquals("the aggregation of the input", result.reference(), report);
    // shrunk to one record, no fault: the bug needs none
    assertEquals(1, result.schedule().input().size(), report);
    assertEquals(List.of(), result.schedule().faults(), report);
    Object word = result.schedule().input().get(0);
    assertEquals(Map.of(word, new ReplayResult.Difference<>(Optional.of(1L), Optional.empty())),
        result.differences(), report);
    assertEquals(Map.of(word, new ReplayResult.Difference<>(Optional.of(1L), Optional.empty())),
        result.failureFreeDifferences(), report);

    assertTrue(report.startsWith("Replay check failed: the failure-free run of the same input already differs from "
        + "the aggregation of the input in 1 of 1 key(s): the code is wrong without any fault\n"
        + "Reference: the aggregation of the input (a model of the pipeline); the failure-free run of the same "
        + "input differs from it in 1 key(s)\n"), report);
    assertTrue(report.endsWith("Differing keys (expected vs failure-free run vs actual):\n"
        + "  " + word + ": expected 1, failure-free run (absent), actual (absent)\n"), report);
  }

  @Test
  void shouldPassTheSameWrongMapWithTheFailureFreeOracleAlone() {
    // documented limitation: a bug that shows without faults is in the reference run too
    assertEquals(Optional.empty(), JqwikRunner.failureOf(FailureFreeOracleOnly.class, "wordCountsAreExactlyOnce")
        .map(String::valueOf));
  }

  @Test
  void shouldPassACorrectMapWithTheDefaultOracle() {
    ReplayCheck<String, String, Long> check = ReplayCheck
        .forBackingMap(ReplacingBackingMap<TransactionalValue<Long>>::new, TransactionalMap::factory)
        .aggregate((String word) -> word, Aggregators.count())
        .build();
    ReplayResult<String, Long> result = check.check(ReplaySchedule.of(List.of("the", "cat", "the"), 2));
    assertEquals(ReplayResult.Verdict.PASSED, result.verdict(), result.report());
    assertEquals(Optional.of(Map.of("the", 2L, "cat", 1L)), result.failureFree(), result.report());
    assertTrue(result.report().startsWith("Replay check passed: the final state equals the aggregation of the input\n"
        + "Reference: the aggregation of the input (a model of the pipeline); the failure-free run of the same input "
        + "agrees with it\n"), result.report());
  }
}
