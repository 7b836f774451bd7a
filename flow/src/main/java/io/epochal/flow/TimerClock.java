package io.epochal.flow;

import io.epochal.api.Evolving;
import io.epochal.spout.BatchAttempt;

/**
 * The processing-time clock of Flow timers, in milliseconds: read once per partition and batch attempt, before its
 * timers are looked for. A replayed attempt reads it again (a failed attempt's firings were discarded, so a later
 * reading may fire more timers, never fewer than are due). Tests inject a clock that is a function of the batch, so
 * that runs are deterministic.
 *
 * <p>Implementations must be thread-safe (partitions run in parallel).
 *
 * @since 0.5.0
 */
@FunctionalInterface
@Evolving
public interface TimerClock {

  /**
   * Reads the clock for one partition's batch attempt.
   *
   * @param batch the batch attempt about to look for due timers (its txid and attempt number)
   * @return the processing time of {@code batch}'s attempt, in milliseconds; never negative
   */
  long processingTime(BatchAttempt batch);

  /** @return the clock reading {@link System#currentTimeMillis()} */
  static TimerClock system() {
    return batch -> System.currentTimeMillis();
  }
}
