package io.epochal.cache;

import io.epochal.api.Evolving;

/**
 * A source of nanosecond time for the {@link StateCache}'s TTL expiry. Only differences between two readings are
 * meaningful (like {@link System#nanoTime()}). Tests inject a manual ticker so that no test sleeps.
 *
 * <p>Implementations must be thread-safe and never go backwards.
 *
 * @since 0.1.0
 */
@FunctionalInterface
@Evolving
public interface Ticker {

  /** @return the current time in nanoseconds, from an arbitrary origin */
  long read();

  /** @return the ticker reading {@link System#nanoTime()} */
  static Ticker system() {
    return System::nanoTime;
  }
}
