package io.epochal.examples;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The generated input of the {@code ad-join} example: shows, clicks and factors with event times, seeded.
 *
 * <p>Show {@code i} has id {@code s<i>} and time {@code T0 + i * 500 ms + U[0, 500 ms)}. Per show: 32% get one or
 * two clicks in its hour (a third of them within 5 s of the show, so that with the arrival delay many are read
 * before their show), 4% a late click 1 to 3 hours after the show (so some within the lateness hour, some after it),
 * 90% a factors record within 50 minutes, 3% a factors record after the hour (not used), and 1% a click on an id that
 * never shows ({@code x<i>}). Each record arrives {@code U[0, 60 s)} after its event time; each topic's records are
 * in arrival order, so within a partition a record is never more than 60 s of event time behind an earlier one,
 * below the watermark bound {@link AdJoinLogic#BOUND}. A record goes to partition
 * {@code floorMod(id.hashCode(), partitions)} of its topic. The input ends with one watermark tick per partition of
 * every topic, past every record's time plus {@code H + L + BOUND}, so every show is emitted and every cell deleted.
 *
 * <p>Stateless.
 */
final class AdJoinInput {
  /** The first show's time: 2026-01-01T00:00:00Z. */
  static final long T0 = 1_767_225_600_000L;
  static final long ARRIVAL_DELAY = Duration.ofSeconds(60).toMillis();

  private AdJoinInput() {
  }

  private record Arriving(long arrival, long seq, AdEvent event) {
  }

  /**
   * The shape of the input: the gap between shows and the shares of shows with clicks, a late click, factors, late
   * factors, and an orphan click (on an id that never shows).
   */
  record Mix(long gapMillis, double clicked, double late, double factors, double lateFactors, double orphan) {
    /** The default: a show every 500 ms (on average 750 ms), the shares of the class comment. */
    static final Mix DEFAULT = new Mix(500, 0.32, 0.04, 0.9, 0.03, 0.01);
  }

  /** {@link #generate(long, int, int[], Mix)} with {@link Mix#DEFAULT}. */
  static List<AdEvent> generate(long seed, int shows, int[] partitions) {
    return generate(seed, shows, partitions, Mix.DEFAULT);
  }

  /**
   * The input of {@code shows} shows, in the order to write it (arrival order, then the ticks).
   *
   * @param partitions the partition count of the shows, clicks and factors topics
   */
  static List<AdEvent> generate(long seed, int shows, int[] partitions, Mix mix) {
    List<Arriving> all = new ArrayList<>();
    long seq = 0;
    long max = T0;
    for (int i = 0; i < shows; i++) {
      SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + i);
      String id = "s" + i;
      long ts = T0 + i * mix.gapMillis() + r.nextLong(mix.gapMillis());
      List<AdEvent> events = new ArrayList<>();
      events.add(event(AdEvent.Kind.SHOW, id, ts, "", partitions));
      double u = r.nextDouble();
      int clicks = u < mix.clicked() * 0.78 ? 1 : u < mix.clicked() ? 2 : 0;
      for (int c = 0; c < clicks; c++) {
        long delay = r.nextDouble() < 1.0 / 3 ? r.nextLong(5_000) : r.nextLong(AdJoinLogic.WINDOW + 1);
        events.add(event(AdEvent.Kind.CLICK, id, ts + delay, "", partitions));
      }
      if (r.nextDouble() < mix.late()) {
        events.add(event(AdEvent.Kind.CLICK, id, ts + AdJoinLogic.WINDOW + 1 + r.nextLong(2 * AdJoinLogic.LATENESS),
            "", partitions));
      }
      if (r.nextDouble() < mix.factors()) {
        events.add(event(AdEvent.Kind.FACTORS, id, ts + r.nextLong(Duration.ofMinutes(50).toMillis()),
            String.format("ctr=%.4f;bid=%d;region=r%d", r.nextDouble() / 10, r.nextInt(1, 500), r.nextInt(20)),
            partitions));
      }
      if (r.nextDouble() < mix.lateFactors()) {
        events.add(event(AdEvent.Kind.FACTORS, id, ts + AdJoinLogic.WINDOW + 1 + r.nextLong(AdJoinLogic.WINDOW),
            "ctr=0.0000;late", partitions));
      }
      if (r.nextDouble() < mix.orphan()) {
        events.add(event(AdEvent.Kind.CLICK, "x" + i, ts + r.nextLong(AdJoinLogic.WINDOW), "", partitions));
      }
      for (AdEvent e : events) {
        all.add(new Arriving(e.time() + r.nextLong(ARRIVAL_DELAY), seq++, e));
        max = Math.max(max, e.time());
      }
    }
    all.sort(Comparator.comparingLong(Arriving::arrival).thenComparingLong(Arriving::seq));
    List<AdEvent> out = new ArrayList<>(all.size() + 16);
    all.forEach(a -> out.add(a.event()));
    long end = max + AdJoinLogic.WINDOW + AdJoinLogic.LATENESS + AdJoinLogic.BOUND + 1;
    for (int topic = 0; topic < 3; topic++) {
      for (int p = 0; p < partitions[topic]; p++) {
        out.add(new AdEvent(AdEvent.Kind.TICK, AdEvent.TICK_KEY, end, "", AdEvent.source(topic, p)));
      }
    }
    return out;
  }

  private static AdEvent event(AdEvent.Kind kind, String id, long time, String factors, int[] partitions) {
    int topic = kind.ordinal(); // SHOW 0, CLICK 1, FACTORS 2
    return new AdEvent(kind, id, time, factors, AdEvent.source(topic, Math.floorMod(id.hashCode(),
        partitions[topic])));
  }
}
