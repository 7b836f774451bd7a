package io.epochal.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.IBackingMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Random fault schedules: deterministic per (seed, txid), at about the asked rate, and fired by the injector. */
class RandomFaultScheduleTest {

  @Test
  void shouldDrawTheSameFaultsForTheSameSeedAndTxid() {
    RandomFaultSchedule a = new RandomFaultSchedule(0.5, 42);
    RandomFaultSchedule b = new RandomFaultSchedule(0.5, 42);
    for (long txid = 1; txid <= 200; txid++) {
      assertEquals(a.forTxid(txid), b.forTxid(txid));
    }
    assertEquals(a.upTo(200), b.upTo(200));
    assertNotEquals(a.upTo(200), new RandomFaultSchedule(0.5, 43).upTo(200), "another seed, other faults");
  }

  @Test
  void shouldFailAttemptsAtAboutTheRateOnlyAtItsPointsAndNeverCrash() {
    RandomFaultSchedule schedule = new RandomFaultSchedule(0.4, 7);
    int batches = 20_000;
    List<Fault> faults = schedule.upTo(batches);
    // each point fails q = 0.1 of the attempts: E[repeats] = q / (1 - q) per point and batch, 4 points
    double expected = batches * 4 * (0.1 / 0.9);
    assertTrue(Math.abs(faults.size() - expected) < expected * 0.05, faults.size() + " vs " + expected);
    for (Fault f : faults) {
      assertTrue(RandomFaultSchedule.DEFAULT_POINTS.contains(f.point()), f::toString);
      assertTrue(f.txid() >= 1 && f.txid() <= batches, f::toString);
      assertTrue(!f.crash() && f.prefix() < 64, f::toString);
    }
    for (FaultPoint p : RandomFaultSchedule.DEFAULT_POINTS) {
      assertTrue(faults.stream().anyMatch(f -> f.point() == p), p::toString);
    }
  }

  @Test
  void shouldScheduleNothingAtRateZeroAndRefuseBadArguments() {
    assertEquals(List.of(), new RandomFaultSchedule(0, 1).upTo(1000));
    assertThrows(IllegalArgumentException.class, () -> new RandomFaultSchedule(1, 1));
    assertThrows(IllegalArgumentException.class, () -> new RandomFaultSchedule(-0.1, 1));
    assertThrows(IllegalArgumentException.class, () -> new RandomFaultSchedule(Double.NaN, 1));
    assertThrows(IllegalArgumentException.class, () -> new RandomFaultSchedule(0.1, 1, List.of(), 1));
    assertThrows(IllegalArgumentException.class, () -> new RandomFaultSchedule(0.1, 1,
        List.of(FaultPoint.AFTER_EMIT, FaultPoint.AFTER_EMIT), 1));
    assertThrows(IllegalArgumentException.class, () -> new RandomFaultSchedule(0.1, 1,
        List.of(FaultPoint.AFTER_EMIT), 0));
    assertThrows(IllegalArgumentException.class, () -> new RandomFaultSchedule(0.1, 1).forTxid(0));
  }

  @Test
  void shouldFireARepeatedFaultOnConsecutiveAttemptsThroughTheInjector() {
    RandomFaultSchedule schedule = new RandomFaultSchedule(0.9, 3, List.of(FaultPoint.BEFORE_STATE_WRITE), 1);
    long txid = 1;
    while (schedule.forTxid(txid).size() < 2) {
      txid++;
    }
    List<Fault> faults = schedule.forTxid(txid);
    // the injector's head is txid 1 until a checkpoint store tells it otherwise: move the faults to txid 1
    FaultInjector atHead = new FaultInjector(faults.stream()
        .map(f -> new Fault(f.point(), 1, f.crash(), f.prefix())).toList());
    IBackingMap<String, Long> map = atHead.wrap(new InMemoryBackingMap<>("m"));
    for (int attempt = 0; attempt < faults.size(); attempt++) {
      assertThrows(InjectedFailure.class, () -> map.multiGet(List.of("a")));
    }
    assertEquals(Map.of(), map.multiGet(List.of("a")), "after its faults the attempt goes through");
    assertEquals(faults.size(), atHead.fired().size());
  }
}
