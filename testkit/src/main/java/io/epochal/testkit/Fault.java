package io.epochal.testkit;

import io.epochal.api.Evolving;
import java.util.Objects;

/**
 * One scheduled fault: it fires the first time batch {@code txid} reaches {@code point} (for the spout point
 * {@link FaultPoint#AFTER_EMIT}: the first time batch {@code txid} is emitted after the fault was scheduled). A
 * schedule is a plain {@code List<Fault>}, so jqwik shrinks it like any list: fewer faults, earlier points, smaller
 * txids, retryable failures before crashes, smaller prefixes.
 *
 * <p>Immutable.
 *
 * @param point where it fires
 * @param txid the batch it fires in, from 1
 * @param crash true: the whole process "dies" ({@link SimulatedCrash}) and the harness restarts the pipeline from
 *     its stores; false: the attempt fails with {@link InjectedFailure} and the coordinator retries it (ignored at
 *     the lease points, where the stale worker always dies)
 * @param prefix for {@link FaultPoint#INSIDE_MULTIPUT}: how many cells are written before the failure (capped at
 *     the put's size minus one); for {@link FaultPoint#INSIDE_CHECKPOINT_COMMIT}: how many table writes of the store's
 *     commit pass its hook before the failure (a commit with at most that many table writes lands whole, and the
 *     call fails after it); ignored elsewhere
 * @since 0.1.0
 */
@Evolving
public record Fault(FaultPoint point, long txid, boolean crash, int prefix) {
  /**
   * Validates a fault.
   *
   * @param point where it fires
   * @param txid the batch it fires in, at least 1
   * @param crash whether the process dies instead of the attempt failing
   * @param prefix the cells or table writes that pass before the failure, at least 0
   * @throws NullPointerException if {@code point} is null
   * @throws IllegalArgumentException if {@code txid < 1} or {@code prefix < 0}
   */
  public Fault {
    Objects.requireNonNull(point, "point");
    if (txid < 1) {
      throw new IllegalArgumentException("txid must be >= 1, was " + txid);
    }
    if (prefix < 0) {
      throw new IllegalArgumentException("prefix must be >= 0, was " + prefix);
    }
  }

  /**
   * A retryable failure of batch {@code txid} at {@code point}.
   *
   * @param point where it fires
   * @param txid the batch it fires in, at least 1
   * @return the fault, with prefix 0
   * @throws IllegalArgumentException if {@code txid < 1}
   */
  public static Fault fail(FaultPoint point, long txid) {
    return new Fault(point, txid, false, 0);
  }

  /**
   * A process death in batch {@code txid} at {@code point}, followed by a restart over the same stores.
   *
   * @param point where it fires
   * @param txid the batch it fires in, at least 1
   * @return the fault, with prefix 0
   * @throws IllegalArgumentException if {@code txid < 1}
   */
  public static Fault crash(FaultPoint point, long txid) {
    return new Fault(point, txid, true, 0);
  }

  /**
   * Returns this fault with another {@link #prefix()}.
   *
   * @param prefix the cells or table writes that pass before the failure, at least 0
   * @return this fault with {@code prefix}
   * @throws IllegalArgumentException if {@code prefix < 0}
   */
  public Fault withPrefix(int prefix) {
    return new Fault(point, txid, crash, prefix);
  }

  @Override
  public String toString() {
    String where = switch (point) {
      case INSIDE_MULTIPUT -> " after " + prefix + " cell(s)";
      case INSIDE_CHECKPOINT_COMMIT -> " after " + prefix + " table write(s)";
      default -> "";
    };
    if (point.isLeasePoint()) {
      return "zombie at " + point + " of txid " + txid;
    }
    return (crash ? "crash" : "fail") + " at " + point + " of txid " + txid + where;
  }
}
