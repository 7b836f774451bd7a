package io.epochal.trident;

import io.epochal.testkit.Fault;
import io.epochal.testkit.FaultPoint;
import io.epochal.testkit.ReplayResult;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.statistics.StatisticsCoverage;

/**
 * The fault points a replay property reached, as jqwik statistics, with the requirement that every point, failed and
 * crashed, fired over the tries (the lease points excepted: these targets have no table-store checkpoint lease).
 */
final class ReplayCoverage {
  private ReplayCoverage() {
  }

  /** Collects which points fired in {@code result} and checks the coverage over the tries so far. */
  static void record(ReplayResult<?, ?> result) {
    for (Fault f : result.fired()) {
      Statistics.label("failure point").collect(f.point() + (f.crash() ? " + restart" : ""));
    }
    Statistics.label("failure point").coverage(ReplayCoverage::everyPointReached);
  }

  private static void everyPointReached(StatisticsCoverage coverage) {
    for (FaultPoint p : FaultPoint.values()) {
      if (p == FaultPoint.LEASE_TAKEN_BEFORE_COMMIT || p == FaultPoint.LEASE_TAKEN_INSIDE_COMMIT) {
        continue;
      }
      coverage.check(p + "").count(c -> c > 0);
      coverage.check(p + " + restart").count(c -> c > 0);
    }
  }
}
