package io.epochal.store.ytsaurus.internal;

import java.time.Duration;
import java.util.Objects;

/**
 * The option checks shared by the builders of this module ({@code YtTableStore.Builder},
 * {@code YtQueueSpoutConfig.Builder}): each option set at most once, durations positive. Stateless.
 */
public final class BuilderOptions {
  private BuilderOptions() {
  }

  /**
   * Rejects a builder option set twice.
   *
   * @param alreadySet whether the option was set before
   * @param option its name
   * @throws IllegalStateException if {@code alreadySet}
   */
  public static void once(boolean alreadySet, String option) {
    if (alreadySet) {
      throw new IllegalStateException(option + " was already set");
    }
  }

  /**
   * Checks that a duration option is positive.
   *
   * @param d a duration
   * @param option the option's name
   * @return {@code d}
   * @throws NullPointerException if {@code d} is null
   * @throws IllegalArgumentException if it is zero or negative
   */
  public static Duration positive(Duration d, String option) {
    Objects.requireNonNull(d, option);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(option + " must be positive, got " + d);
    }
    return d;
  }
}
