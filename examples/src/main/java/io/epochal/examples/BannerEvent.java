package io.epochal.examples;

import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.LongFunction;

/**
 * An ad event: a show of a banner (with a unique show id) or a click on an earlier show (carrying only the show id;
 * the banner is found by joining the click to its show).
 *
 * @param click true for a click, false for a show
 * @param showId the show's id
 * @param bannerId the banner, for shows; empty for clicks
 */
record BannerEvent(boolean click, String showId, String bannerId) {
  BannerEvent {
    Objects.requireNonNull(showId, "showId");
    Objects.requireNonNull(bannerId, "bannerId");
  }

  /**
   * Event {@code i}: a show {@code s<i>} of one of 50 banners (skewed), or, one time in four, a click on a show
   * 1..2000 events earlier. Pure: the same {@code (seed, i)} gives the same event.
   */
  static LongFunction<BannerEvent> generator(long seed) {
    return i -> {
      SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + i);
      if (i > 0 && r.nextInt(4) == 0) {
        long back = 1 + r.nextLong(Math.min(i, 2000));
        long show = i - back;
        // a click on a click is a click on nothing: the join reports it under "unknown"
        return new BannerEvent(true, "s" + show, "");
      }
      int banner = (int) Math.floor(Math.pow(r.nextDouble(), 2) * 50);
      return new BannerEvent(false, "s" + i, "b" + banner);
    };
  }
}
