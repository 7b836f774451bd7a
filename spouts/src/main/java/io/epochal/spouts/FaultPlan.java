package io.epochal.spouts;

import io.epochal.pipeline.Sleeper;
import io.epochal.spout.BatchAttempt;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Which emit calls of a {@link FaultInjectingSpout} fail or slow down, and how. Each {@link FaultPoint} has a
 * {@code Predicate<BatchAttempt>} (default: never) evaluated once per emit call; {@link FaultPoint#MID_EMIT} also
 * has the number of records let through before the fault, {@link FaultPoint#SLOW_EMIT} a delay and the
 * {@link Sleeper} that waits it ({@link Sleeper#system()} by default; inject a recording one in tests).
 *
 * <p>Immutable and thread-safe if its predicates and sleeper are. Built with {@link #builder()}; {@link #none()} is
 * the plan without faults. Null arguments throw {@link NullPointerException}. A plan is deterministic (the same
 * attempt always meets the same faults) if its predicates are, which the helpers {@link #firstAttemptOf},
 * {@link #attemptsOf} and {@link #always} are.
 *
 * @since 0.1.0
 */
public final class FaultPlan {
  private final Predicate<BatchAttempt> beforeEmit;
  private final Predicate<BatchAttempt> slowEmit;
  private final Duration delay;
  private final Predicate<BatchAttempt> midEmit;
  private final long midEmitAfterRecords;
  private final Predicate<BatchAttempt> afterEmit;
  private final Sleeper sleeper;

  private FaultPlan(Builder b) {
    this.beforeEmit = b.beforeEmit == null ? never() : b.beforeEmit;
    this.slowEmit = b.slowEmit == null ? never() : b.slowEmit;
    this.delay = b.delay == null ? Duration.ZERO : b.delay;
    this.midEmit = b.midEmit == null ? never() : b.midEmit;
    this.midEmitAfterRecords = b.midEmitAfterRecords;
    this.afterEmit = b.afterEmit == null ? never() : b.afterEmit;
    this.sleeper = b.sleeper == null ? Sleeper.system() : b.sleeper;
  }

  /** @return the plan that injects nothing */
  public static FaultPlan none() {
    return new Builder().build();
  }

  /** @return a new builder of a plan */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * @param txids the txids whose first attempt should fail
   * @return a predicate matching attempt 1 of each of {@code txids} (so their replay succeeds)
   */
  public static Predicate<BatchAttempt> firstAttemptOf(long... txids) {
    long[] copy = txids.clone();
    return a -> a.attempt() == 1 && Arrays.stream(copy).anyMatch(t -> t == a.txid());
  }

  /**
   * @return a predicate matching attempts {@code 1..lastAttempt} of {@code txid} (attempt {@code lastAttempt + 1}
   *     succeeds)
   */
  public static Predicate<BatchAttempt> attemptsOf(long txid, int lastAttempt) {
    return a -> a.txid() == txid && a.attempt() <= lastAttempt;
  }

  /** @return a predicate matching every attempt */
  public static Predicate<BatchAttempt> always() {
    return a -> true;
  }

  private static Predicate<BatchAttempt> never() {
    return a -> false;
  }

  /** @return whether to throw at {@link FaultPoint#BEFORE_EMIT} for {@code attempt} */
  public boolean throwsBeforeEmit(BatchAttempt attempt) {
    return beforeEmit.test(attempt);
  }

  /** @return whether to delay at {@link FaultPoint#SLOW_EMIT} for {@code attempt} */
  public boolean delaysEmit(BatchAttempt attempt) {
    return slowEmit.test(attempt);
  }

  /** @return whether to throw at {@link FaultPoint#MID_EMIT} for {@code attempt} */
  public boolean throwsMidEmit(BatchAttempt attempt) {
    return midEmit.test(attempt);
  }

  /** @return whether to throw at {@link FaultPoint#AFTER_EMIT} for {@code attempt} */
  public boolean throwsAfterEmit(BatchAttempt attempt) {
    return afterEmit.test(attempt);
  }

  /** @return the delay of {@link FaultPoint#SLOW_EMIT} */
  public Duration delay() {
    return delay;
  }

  /** @return how many records pass before the {@link FaultPoint#MID_EMIT} fault */
  public long midEmitAfterRecords() {
    return midEmitAfterRecords;
  }

  /** @return the sleeper of {@link FaultPoint#SLOW_EMIT} */
  public Sleeper sleeper() {
    return sleeper;
  }

  /**
   * Builds a {@link FaultPlan}. Each option may be set once ({@link IllegalStateException} otherwise); bad values
   * throw {@link IllegalArgumentException}. {@link #build()} may be called repeatedly and never changes the builder.
   * Not thread-safe.
   */
  public static final class Builder {
    private Predicate<BatchAttempt> beforeEmit;
    private Predicate<BatchAttempt> slowEmit;
    private Duration delay;
    private Predicate<BatchAttempt> midEmit;
    private long midEmitAfterRecords;
    private Predicate<BatchAttempt> afterEmit;
    private Sleeper sleeper;

    private Builder() {
    }

    /** Throws {@link InjectedFault} before emitting, for the attempts {@code when} matches. */
    public Builder throwBeforeEmit(Predicate<BatchAttempt> when) {
      checkUnset(beforeEmit, "throwBeforeEmit");
      beforeEmit = Objects.requireNonNull(when, "when");
      return this;
    }

    /**
     * Delays the emission by {@code delay} (through the sleeper) for the attempts {@code when} matches.
     *
     * @throws IllegalArgumentException if {@code delay} is negative
     */
    public Builder delayEmit(Predicate<BatchAttempt> when, Duration delay) {
      checkUnset(slowEmit, "delayEmit");
      Objects.requireNonNull(when, "when");
      if (Objects.requireNonNull(delay, "delay").isNegative()) {
        throw new IllegalArgumentException("delay must not be negative, was " + delay);
      }
      slowEmit = when;
      this.delay = delay;
      return this;
    }

    /**
     * Throws {@link InjectedFault} from the collector when the wrapped spout emits record number
     * {@code afterRecords + 1} (so {@code afterRecords} records reached the real collector), for the attempts
     * {@code when} matches. A batch of at most {@code afterRecords} records does not fail.
     *
     * @throws IllegalArgumentException if {@code afterRecords < 0}
     */
    public Builder throwMidEmit(Predicate<BatchAttempt> when, long afterRecords) {
      checkUnset(midEmit, "throwMidEmit");
      Objects.requireNonNull(when, "when");
      if (afterRecords < 0) {
        throw new IllegalArgumentException("afterRecords must be >= 0, was " + afterRecords);
      }
      midEmit = when;
      midEmitAfterRecords = afterRecords;
      return this;
    }

    /** Throws {@link InjectedFault} after the whole batch was emitted, for the attempts {@code when} matches. */
    public Builder throwAfterEmit(Predicate<BatchAttempt> when) {
      checkUnset(afterEmit, "throwAfterEmit");
      afterEmit = Objects.requireNonNull(when, "when");
      return this;
    }

    /** Waits the delays of {@link #delayEmit} with {@code sleeper} instead of {@link Sleeper#system()}. */
    public Builder sleeper(Sleeper sleeper) {
      checkUnset(this.sleeper, "sleeper");
      this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
      return this;
    }

    /** @return a new plan with the options set so far */
    public FaultPlan build() {
      return new FaultPlan(this);
    }

    private static void checkUnset(Object current, String option) {
      if (current != null) {
        throw new IllegalStateException(option + " was already set");
      }
    }
  }
}
