package io.epochal.spouts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.spout.BatchAttempt;
import java.time.Duration;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class FaultPlanTest {

  static BatchAttempt at(long txid, int attempt) {
    return new BatchAttempt(txid, attempt);
  }

  @Test
  void shouldInjectNothingByDefault() {
    FaultPlan plan = FaultPlan.none();
    assertFalse(plan.throwsBeforeEmit(at(1, 1)));
    assertFalse(plan.delaysEmit(at(1, 1)));
    assertFalse(plan.throwsMidEmit(at(1, 1)));
    assertFalse(plan.throwsAfterEmit(at(1, 1)));
    assertEquals(Duration.ZERO, plan.delay());
  }

  @Test
  void shouldMatchAttemptsWithTheHelperPredicates() {
    Predicate<BatchAttempt> first = FaultPlan.firstAttemptOf(2, 5);
    assertTrue(first.test(at(2, 1)));
    assertTrue(first.test(at(5, 1)));
    assertFalse(first.test(at(2, 2)));
    assertFalse(first.test(at(3, 1)));
    Predicate<BatchAttempt> upTo = FaultPlan.attemptsOf(4, 2);
    assertTrue(upTo.test(at(4, 1)));
    assertTrue(upTo.test(at(4, 2)));
    assertFalse(upTo.test(at(4, 3)));
    assertFalse(upTo.test(at(5, 1)));
    assertTrue(FaultPlan.always().test(at(9, 9)));
  }

  @Test
  void shouldRejectAnOptionSetTwiceAndBadValues() {
    FaultPlan.Builder b = FaultPlan.builder().throwBeforeEmit(FaultPlan.always());
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> b.throwBeforeEmit(a -> false));
    assertTrue(e.getMessage().contains("throwBeforeEmit"), e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> FaultPlan.builder().delayEmit(FaultPlan.always(), Duration.ofMillis(-1)));
    assertThrows(IllegalArgumentException.class, () -> FaultPlan.builder().throwMidEmit(FaultPlan.always(), -1));
    assertThrows(NullPointerException.class, () -> FaultPlan.builder().throwAfterEmit(null));
    assertThrows(NullPointerException.class, () -> FaultPlan.builder().sleeper(null));
  }

  @Test
  void shouldBuildRepeatedlyWithoutChangingTheBuilder() {
    FaultPlan.Builder b = FaultPlan.builder().throwMidEmit(FaultPlan.firstAttemptOf(1), 3)
        .delayEmit(FaultPlan.always(), Duration.ofSeconds(2));
    FaultPlan p1 = b.build();
    FaultPlan p2 = b.build();
    assertNotSame(p1, p2);
    assertEquals(3, p2.midEmitAfterRecords());
    assertEquals(Duration.ofSeconds(2), p2.delay());
    assertTrue(p1.throwsMidEmit(at(1, 1)));
  }
}
