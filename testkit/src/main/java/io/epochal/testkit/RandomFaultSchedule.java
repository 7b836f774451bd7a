package io.epochal.testkit;

import io.epochal.api.Evolving;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Seeded random {@link Fault} schedules at a failure rate, for soak runs and demos (the examples' {@code
 * --failure-rate p}) rather than for shrinking: each attempt of a batch fails at each of its {@link #points()} with
 * probability {@code rate / points().size()}, independently. Since a {@link FaultInjector} fires each scheduled fault
 * once, a point that fails {@code k} attempts in a row is {@code k} equal faults of that txid (a geometric draw, at
 * most {@link #MAX_REPEATS}), so a retry fails again with the same probability, as a per-call failure rate would.
 *
 * <p>The schedule of a txid depends only on the seed and the txid ({@link #forTxid}), so it can be fed to an
 * injector batch by batch ({@link FaultInjector#schedule}) for runs of unknown length. Every fault is a retryable
 * {@link InjectedFailure} (no crashes); {@link FaultPoint#INSIDE_MULTIPUT} faults get a random prefix below
 * {@code maxPrefix}. Immutable and thread-safe.
 *
 * @since 0.1.0
 */
@Evolving
public final class RandomFaultSchedule {
  /** The most consecutive failing attempts drawn for one point of one batch. */
  public static final int MAX_REPEATS = 10;

  /** The default points: the state read, a multiPut, before and after the checkpoint commit. */
  public static final List<FaultPoint> DEFAULT_POINTS = List.of(FaultPoint.BEFORE_STATE_WRITE,
      FaultPoint.INSIDE_MULTIPUT, FaultPoint.AFTER_STATE_WRITES, FaultPoint.DURING_CHECKPOINT_COMMIT);

  private final double rate;
  private final long seed;
  private final List<FaultPoint> points;
  private final int maxPrefix;

  /**
   * A schedule over {@link #DEFAULT_POINTS} with multiPut prefixes below 64.
   *
   * @param rate the probability that an attempt fails, in {@code [0, 1)}
   * @param seed the random seed
   * @throws IllegalArgumentException if {@code rate} is not in {@code [0, 1)}
   */
  public RandomFaultSchedule(double rate, long seed) {
    this(rate, seed, DEFAULT_POINTS, 64);
  }

  /**
   * @param rate the probability that an attempt fails, in {@code [0, 1)}, split evenly over {@code points}
   * @param seed the random seed
   * @param points where faults fire
   * @param maxPrefix {@link FaultPoint#INSIDE_MULTIPUT} and {@link FaultPoint#INSIDE_CHECKPOINT_COMMIT} prefixes are
   *     drawn from {@code [0, maxPrefix)}
   * @throws IllegalArgumentException if {@code rate} is not in {@code [0, 1)}, {@code points} is empty or has
   *     duplicates, or {@code maxPrefix < 1}
   * @throws NullPointerException if {@code points} or one of them is null
   */
  public RandomFaultSchedule(double rate, long seed, List<FaultPoint> points, int maxPrefix) {
    if (!(rate >= 0 && rate < 1)) {
      throw new IllegalArgumentException("rate must be in [0, 1), was " + rate);
    }
    this.points = List.copyOf(Objects.requireNonNull(points, "points"));
    if (this.points.isEmpty() || this.points.stream().distinct().count() != this.points.size()) {
      throw new IllegalArgumentException("points must be non-empty and distinct, were " + points);
    }
    if (maxPrefix < 1) {
      throw new IllegalArgumentException("maxPrefix must be >= 1, was " + maxPrefix);
    }
    this.rate = rate;
    this.seed = seed;
    this.maxPrefix = maxPrefix;
  }

  /** @return the probability that an attempt fails */
  public double rate() {
    return rate;
  }

  /** @return the points faults fire at */
  public List<FaultPoint> points() {
    return points;
  }

  /**
   * @param txid the batch, from 1
   * @return the faults of batch {@code txid}, the same for the same seed and txid
   * @throws IllegalArgumentException if {@code txid < 1}
   */
  public List<Fault> forTxid(long txid) {
    if (txid < 1) {
      throw new IllegalArgumentException("txid must be >= 1, was " + txid);
    }
    List<Fault> faults = new ArrayList<>();
    if (rate == 0) {
      return faults;
    }
    SplittableRandom random = new SplittableRandom(seed ^ (txid * 0x9E3779B97F4A7C15L));
    double perPoint = rate / points.size();
    for (FaultPoint point : points) {
      for (int k = 0; k < MAX_REPEATS && random.nextDouble() < perPoint; k++) {
        faults.add(Fault.fail(point, txid).withPrefix(random.nextInt(maxPrefix)));
      }
    }
    return faults;
  }

  /**
   * @param lastTxid the last batch to schedule
   * @return the faults of batches {@code 1..lastTxid}
   */
  public List<Fault> upTo(long lastTxid) {
    List<Fault> faults = new ArrayList<>();
    for (long txid = 1; txid <= lastTxid; txid++) {
      faults.addAll(forTxid(txid));
    }
    return faults;
  }

  @Override
  public String toString() {
    return "RandomFaultSchedule(rate " + rate + ", seed " + seed + ", points " + points + ")";
  }
}
