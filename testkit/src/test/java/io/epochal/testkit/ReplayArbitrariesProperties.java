package io.epochal.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The schedule generators respect their configuration. */
class ReplayArbitrariesProperties {

  @Provide
  Arbitrary<ReplaySchedule<String>> restricted() {
    return ReplayArbitraries.schedules(ReplayArbitraries.words(10))
        .withMaxBatch(2)
        .withParallelism(2, 1, 1)
        .withFaults(3, 2)
        .withPoints(FaultPoint.AFTER_EMIT, FaultPoint.INSIDE_MULTIPUT)
        .withoutCrashes();
  }

  @Property(tries = 100)
  void schedulesStayWithinTheirConfiguration(@ForAll("restricted") ReplaySchedule<String> schedule) {
    assertTrue(schedule.input().size() <= 10);
    assertTrue(schedule.cuts().sizes().stream().allMatch(s -> s >= 1 && s <= 2));
    assertTrue(schedule.cuts().recuts().stream().allMatch(s -> s >= 1 && s <= 2));
    assertTrue(schedule.parallelism().partitions() <= 2);
    assertEquals(1, schedule.parallelism().maxBatchesInFlight());
    assertEquals(1, schedule.parallelism().threads());
    assertTrue(schedule.faults().size() <= 2);
    for (Fault f : schedule.faults()) {
      assertTrue(f.txid() <= 3);
      assertFalse(f.crash());
      assertTrue(f.point() == FaultPoint.AFTER_EMIT || f.point() == FaultPoint.INSIDE_MULTIPUT, f.toString());
    }
  }

  @Property(tries = 50)
  void schedulesWithoutFaultsHaveNone(
      @ForAll("noFaults") ReplaySchedule<List<String>> schedule) {
    assertEquals(List.of(), schedule.faults());
  }

  @Provide
  Arbitrary<ReplaySchedule<List<String>>> noFaults() {
    return ReplayArbitraries.schedules(ReplayArbitraries.inputs(ReplayArbitraries.words(3), 5)).withoutFaults();
  }

  @Property(tries = 100)
  void opaqueCutsCycleThroughTheirSizes(@ForAll("cuts") BatchCuts cuts) {
    for (long txid = 1; txid <= 8; txid++) {
      assertEquals(cuts.sizes().get((int) ((txid - 1) % cuts.sizes().size())), cuts.size(txid));
      int recut = cuts.recut(txid, 1);
      assertEquals(cuts.recuts().isEmpty() ? cuts.size(txid) : cuts.recuts().get(0), recut);
    }
  }

  @Provide
  Arbitrary<BatchCuts> cuts() {
    return ReplayArbitraries.batchCuts(5);
  }
}
