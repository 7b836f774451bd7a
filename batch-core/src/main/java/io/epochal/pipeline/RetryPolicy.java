package io.epochal.pipeline;

import io.epochal.api.Stable;
import java.time.Duration;
import java.util.Objects;

/**
 * How often a failed batch is retried, and how long the coordinator waits between attempts (exponential backoff,
 * doubling from {@code initialBackoff} up to {@code maxBackoff}). When {@code maxAttempts} attempts of one txid have
 * failed, the pipeline stops with {@link io.epochal.errors.BatchFailedException}: no batch is ever skipped.
 *
 * @param maxAttempts attempts per txid, at least 1
 * @param initialBackoff wait after the first failed attempt, not negative
 * @param maxBackoff the longest wait, not less than {@code initialBackoff}
 *
 * @since 0.1.0
 */
@Stable
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {

  /**
   * Validates: at least one attempt, {@code 0 <= initialBackoff <= maxBackoff}.
   *
   * @param maxAttempts attempts per txid, at least 1
   * @param initialBackoff wait after the first failed attempt, not negative
   * @param maxBackoff the longest wait, not less than {@code initialBackoff}
   * @throws IllegalArgumentException if {@code maxAttempts < 1} or the backoffs are out of order
   */
  public RetryPolicy {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be >= 1, was " + maxAttempts);
    }
    Objects.requireNonNull(initialBackoff, "initialBackoff");
    Objects.requireNonNull(maxBackoff, "maxBackoff");
    if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0) {
      throw new IllegalArgumentException("backoff must satisfy 0 <= initial (" + initialBackoff + ") <= max ("
          + maxBackoff + ")");
    }
  }

  /**
   * 10 attempts, backoff from 10 ms to 1 s.
   *
   * @return the default policy
   */
  public static RetryPolicy defaults() {
    return new RetryPolicy(10, Duration.ofMillis(10), Duration.ofSeconds(1));
  }

  /**
   * {@code maxAttempts} attempts without waiting (for tests).
   *
   * @param maxAttempts attempts per txid, at least 1
   * @return a policy with zero backoff
   */
  public static RetryPolicy immediate(int maxAttempts) {
    return new RetryPolicy(maxAttempts, Duration.ZERO, Duration.ZERO);
  }

  /**
   * The wait after failed attempt number {@code attempt} (from 1): {@code initial * 2^(attempt-1)}, capped.
   *
   * @param attempt the failed attempt's number, from 1 (values below 1 count as 1)
   * @return the wait, at most {@code maxBackoff}; zero if {@code initialBackoff} is zero
   */
  public Duration backoffAfter(int attempt) {
    if (initialBackoff.isZero()) {
      return Duration.ZERO;
    }
    int shift = Math.min(Math.max(attempt - 1, 0), 30);
    Duration d = initialBackoff.multipliedBy(1L << shift);
    return d.compareTo(maxBackoff) > 0 ? maxBackoff : d;
  }
}
