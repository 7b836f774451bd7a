package io.epochal.pipeline;

import io.epochal.api.Stable;
import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link PipelineService} restarts a pipeline that stopped on a retryable failure (a store or broker
 * unreachable, retries of a batch exhausted by such an outage): up to {@code maxConsecutiveRestarts} restarts in a
 * row without a commit between them, waiting {@code initialBackoff} before the first and doubling up to
 * {@code maxBackoff}. A commit resets the count. A non-retryable failure is never restarted. Immutable.
 *
 * @param maxConsecutiveRestarts restarts allowed without a commit in between; 0 never restarts
 * @param initialBackoff the wait before the first restart of a row
 * @param maxBackoff the longest wait
 *
 * @since 0.1.0
 */
@Stable
public record RestartPolicy(int maxConsecutiveRestarts, Duration initialBackoff, Duration maxBackoff) {

  /**
   * Validates: a non-negative count, {@code 0 <= initialBackoff <= maxBackoff}.
   *
   * @param maxConsecutiveRestarts restarts allowed without a commit in between, {@code >= 0}
   * @param initialBackoff the wait before the first restart of a row, not negative
   * @param maxBackoff the longest wait, not less than {@code initialBackoff}
   * @throws IllegalArgumentException if the count is negative or the backoffs are out of order
   */
  public RestartPolicy {
    if (maxConsecutiveRestarts < 0) {
      throw new IllegalArgumentException("maxConsecutiveRestarts must be >= 0, was " + maxConsecutiveRestarts);
    }
    Objects.requireNonNull(initialBackoff, "initialBackoff");
    Objects.requireNonNull(maxBackoff, "maxBackoff");
    if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0) {
      throw new IllegalArgumentException("backoff must satisfy 0 <= initial (" + initialBackoff + ") <= max ("
          + maxBackoff + ")");
    }
  }

  /**
   * 20 restarts in a row, waiting 1 s, 2 s, 4 s ... up to 1 min.
   *
   * @return the default policy
   */
  public static RestartPolicy defaults() {
    return new RestartPolicy(20, Duration.ofSeconds(1), Duration.ofMinutes(1));
  }

  /**
   * No restart: the first failure stops the service.
   *
   * @return a policy allowing 0 restarts
   */
  public static RestartPolicy never() {
    return new RestartPolicy(0, Duration.ZERO, Duration.ZERO);
  }

  /**
   * The wait before restart number {@code restart} (from 1) of a row: {@code initial * 2^(restart-1)}, capped.
   *
   * @param restart the restart's number in the row, from 1 (values below 1 count as 1)
   * @return the wait, at most {@code maxBackoff}; zero if {@code initialBackoff} is zero
   */
  public Duration backoffBefore(int restart) {
    if (initialBackoff.isZero()) {
      return Duration.ZERO;
    }
    int shift = Math.min(Math.max(restart - 1, 0), 30);
    Duration d = initialBackoff.multipliedBy(1L << shift);
    return d.compareTo(maxBackoff) > 0 ? maxBackoff : d;
  }
}
