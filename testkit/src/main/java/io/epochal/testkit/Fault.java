package io.epochal.testkit;

import java.util.Objects;

/**
 * One scheduled fault: it fires the first time batch {@code txid}'s commit phase reaches {@code point}.
 *
 * @param point where it fires
 * @param txid the batch it fires in, from 1
 * @param crash true: the whole process "dies" ({@link SimulatedCrash}) and the harness restarts the pipeline from
 *     its stores; false: the attempt fails with {@link InjectedFailure} and the coordinator retries it
 * @param prefix for {@link FaultPoint#INSIDE_MULTIPUT}: how many cells are written before the failure (capped at
 *     the put's size minus one)
 */
public record Fault(FaultPoint point, long txid, boolean crash, int prefix) {
  public Fault {
    Objects.requireNonNull(point, "point");
    if (txid < 1) {
      throw new IllegalArgumentException("txid must be >= 1, was " + txid);
    }
    if (prefix < 0) {
      throw new IllegalArgumentException("prefix must be >= 0, was " + prefix);
    }
  }

  @Override
  public String toString() {
    return (crash ? "crash" : "fail") + " at " + point + " of txid " + txid
        + (point == FaultPoint.INSIDE_MULTIPUT ? " after " + prefix + " cell(s)" : "");
  }
}
