package io.epochal.pipeline;

import io.epochal.api.Stable;
import java.time.Duration;

/**
 * Waits between retries. Tests inject a virtual sleeper so that no test sleeps for real.
 *
 * @since 0.1.0
 */
@FunctionalInterface
@Stable
public interface Sleeper {

  /**
   * Waits for {@code duration}.
   *
   * @param duration how long to wait, not negative
   * @throws InterruptedException if the waiting thread is interrupted
   */
  void sleep(Duration duration) throws InterruptedException;

  /**
   * Sleeps with {@link Thread#sleep(long)}.
   *
   * @return a sleeper that blocks the calling thread for real (and not at all for a zero duration)
   */
  static Sleeper system() {
    return d -> {
      if (!d.isZero()) {
        Thread.sleep(d.toMillis(), d.toNanosPart() % 1_000_000);
      }
    };
  }
}
