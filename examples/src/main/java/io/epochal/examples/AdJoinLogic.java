package io.epochal.examples;

import io.epochal.codec.Codec;
import io.epochal.codec.CodecException;
import io.epochal.codec.Codecs;
import io.epochal.flow.DelaySpec;
import io.epochal.flow.Emitter;
import io.epochal.flow.KeyedProcessor;
import io.epochal.flow.ProcessorContext;
import io.epochal.flow.StateAccessor;
import io.epochal.flow.StateClient;
import io.epochal.flow.StateSpec;
import io.epochal.flow.TimeDomain;
import io.epochal.flow.Timer;
import io.epochal.flow.TimerClient;
import io.epochal.flow.TimerSpec;
import io.epochal.flow.WatermarkStrategy;
import io.epochal.store.table.KeyCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The click/show join of the {@code ad-join} example (the YTsaurus Flow article's use case), as a Flow keyed processor
 * over event time, and the batch recomputation that verifies it.
 *
 * <p><b>What it computes</b>, per show id, with {@code H} = {@link #WINDOW} (one hour), {@code L} =
 * {@link #LATENESS} (one more hour) and {@code D} = {@link #FACTORS_DELAY} (one hour):
 * <ul>
 *   <li>a show at {@code ts}: (show id, show time, clicked?, the first joined click's time, the number of joined
 *       clicks, the factors) — a click joins if its time is in {@code [ts, ts + H]}; the factors are those of the
 *       factors record with the earliest time in {@code [ts, ts + H]} (ties: the greatest value), the first one the
 *       factors computation ({@link #FACTORS_COMPUTATION}, the factors read with the delay {@code D}, as the article
 *       reads them) releases. It is emitted when those factors reach the join after the show's hour (the join's
 *       watermark reached {@code ts + H}), or at {@code ts + H + D} without factors;</li>
 *   <li>a click in {@code (ts + H, ts + H + L]} is counted as {@code late-clicks}; a click before its show, after
 *       {@code ts + H + L}, or on a show id that never shows (counted once the watermark reaches the click's time) as
 *       {@code unmatched-clicks}; each emitted show as {@code shows-emitted}.</li>
 * </ul>
 * These are functions of event times only, so the result does not depend on how the input is cut into batches or
 * interleaved between topics, as long as every source partition is ordered within the watermark's bound
 * ({@link #BOUND}): a record never comes later than {@code BOUND} of event time after a record of its partition.
 * Then, when a timer at {@code T} fires, every record with a time {@code <= T} has been processed (it is not late,
 * and timers fire after a batch's records). The join reads every factors record as a tick of its time and partition
 * ({@link #forJoin}), so its watermark is never ahead of the factors computation's, which releases every record with
 * {@code tf + D} at or below its watermark in the batch (the release bound is {@link #MAX_FIRED}) and upstream of the
 * join: when the timer at {@code ts + H + D} fires, every factors record of the show's hour was released. Counters
 * expose a violation instead of hiding it: {@code missed-clicks} and {@code missed-factors} (a record of the hour
 * that came after its show's hour was closed or emitted) and {@code duplicate-shows} (a second show of one id while
 * the first is kept); the recomputation never expects them.
 *
 * <p><b>State</b> (Flow state cells keyed by show id): {@code open} (table {@code <pipeline>/join/open}, no TTL)
 * holds a show in its hour (show time, joined clicks, factors released so far) and the clicks and factors that came
 * before their show; {@code shows} (table {@code <pipeline>/join/shows}) holds a show past its hour, with an
 * event-time TTL of {@link #SHOW_TTL} (two hours). Two event-time timer specs: {@code show} holds two timers per show,
 * fired in trigger order: at {@code ts + H} the show moves from {@code open} to {@code shows} (emitted if its factors
 * are there; that write touches the TTL at a watermark past {@code ts + H}, so the cell outlives the lateness hour
 * and the delay), at {@code ts + H + D} it is emitted without factors if it was not; after emission the cell keeps a
 * tombstone (the show time, to classify late clicks) until the TTL expires it. A {@code shows} cell is written only
 * when it changes, so late and unmatched clicks do not prolong it. {@code orphan} at a waiting record's time gives it
 * up if no show came. A show does not go to the TTL'd state on arrival: written while the watermark lags its time by
 * more than {@code TTL - H}, it would expire before its hour ends. All timers are added by {@code process}, none by
 * {@code onTimer}, so the last input batch fires everything that is due; the expirations of the cells written in that
 * batch need a later watermark (two hours more), so at the end of an input those cells are left, not due.
 *
 * <p>Stateless helpers; the processor instances are per partition (not thread-safe, as Flow uses them).
 */
final class AdJoinLogic {
  static final long WINDOW = Duration.ofHours(1).toMillis();
  static final long LATENESS = Duration.ofHours(1).toMillis();
  /** The watermark's out-of-orderness bound; the generator keeps its disorder below it. */
  static final long BOUND = Duration.ofMinutes(2).toMillis();
  /** The computation's name. */
  static final String COMPUTATION = "join";
  /** The name of the computation that reads the factors with {@link #FACTORS_DELAY}. */
  static final String FACTORS_COMPUTATION = "factors";
  /** The event-time delay of the factors: a factors record at {@code tf} reaches the join at {@code tf + 1 h}. */
  static final Duration FACTORS_DELAY = Duration.ofHours(1);
  static final String SHOWS_EMITTED = "shows-emitted";
  static final String LATE_CLICKS = "late-clicks";
  static final String UNMATCHED_CLICKS = "unmatched-clicks";
  static final String MISSED_CLICKS = "missed-clicks";
  static final String MISSED_FACTORS = "missed-factors";
  static final String DUPLICATE_SHOWS = "duplicate-shows";
  /** The most timers one partition fires per batch: high, so the last batch fires every due timer. */
  static final int MAX_FIRED = 1_000_000;
  /**
   * The event-time TTL of the {@code shows} state: a show's cell expires once the watermark is two hours past its last
   * write (at the latest the emit timer's, at or after {@code ts + H}), so it outlives the lateness hour.
   */
  static final Duration SHOW_TTL = Duration.ofHours(2);
  /** The state of the shows past their hour (TTL {@link #SHOW_TTL}); before, a show is in {@link #OPEN}. */
  static final String SHOWS = "shows";
  /**
   * The state of the shows in their hour and of the clicks and factors that came before their show (no TTL: the
   * show's first timer moves it to {@link #SHOWS}, the orphan timers remove the waiting records).
   */
  static final String OPEN = "open";

  private AdJoinLogic() {
  }

  /**
   * What the processor emits: a show's result ({@code kind} {@link #SHOWS_EMITTED}, {@code line} its output value)
   * or one count of {@code kind} ({@code line} empty).
   */
  record Out(String kind, String showId, String line) {
    boolean isResult() {
      return kind.equals(SHOWS_EMITTED);
    }
  }

  /** The watermark strategy: event time of the record, {@link #BOUND}, one source partition per topic partition. */
  static WatermarkStrategy<AdEvent> watermarks() {
    return WatermarkStrategy.<AdEvent>boundedOutOfOrderness(Duration.ofMillis(BOUND), AdEvent::time)
        .sourcePartition(AdEvent::source).build();
  }

  /** The output value of a show: {@code show=<ts> clicked=<bool> click=<t|-> clicks=<n> factors=<tf|-> <factors>}. */
  static String line(long showTime, int clicks, long firstClick, long factorsTime, String factors) {
    return "show=" + showTime + " clicked=" + (clicks > 0) + " click=" + (clicks > 0 ? Long.toString(firstClick) : "-")
        + " clicks=" + clicks + " factors=" + (factorsTime >= 0 ? factorsTime + " " + factors : "-");
  }

  /** A record waiting for its show: a click ({@code factors} null) or a factors record. */
  record Waiting(long time, String factors) {
  }

  /**
   * One show id's cell. {@code showTime} -1: no show yet; {@code complete}: the show's hour is over (its clicks are
   * all joined); {@code emitted}: a tombstone after the show's result (keeping the emitted factors' time).
   * Immutable; {@link #EMPTY} is stored as no row.
   */
  record Entry(long showTime, boolean complete, boolean emitted, int clicks, long firstClick, long factorsTime,
      String factors, List<Waiting> waiting) {
    static final Entry EMPTY = new Entry(-1, false, false, 0, -1, -1, "", List.of());

    Entry {
      Objects.requireNonNull(factors, "factors");
      waiting = List.copyOf(waiting);
    }
  }

  /** Encodes an {@link Entry} as UTF-8 text (factors in Base64). */
  static final class EntryCodec implements Codec<Entry> {
    private static final Codec<String> STRINGS = Codecs.strings();

    @Override
    public byte[] encode(Entry e) {
      StringBuilder sb = new StringBuilder("v2|").append(e.showTime()).append('|').append(e.complete() ? 1 : 0)
          .append('|').append(e.emitted() ? 1 : 0)
          .append('|').append(e.clicks()).append('|').append(e.firstClick()).append('|').append(e.factorsTime())
          .append('|').append(b64(e.factors())).append('|');
      for (int i = 0; i < e.waiting().size(); i++) {
        Waiting w = e.waiting().get(i);
        sb.append(i == 0 ? "" : ",").append(w.time()).append(w.factors() == null ? "" : ":" + b64(w.factors()));
      }
      return STRINGS.encode(sb.toString());
    }

    @Override
    public Entry decode(byte[] bytes) {
      String s = STRINGS.decode(bytes);
      String[] f = s.split("\\|", -1);
      if (f.length != 9 || !f[0].equals("v2")) {
        throw new CodecException(id() + " cannot decode '" + s + "'");
      }
      try {
        List<Waiting> waiting = new ArrayList<>();
        if (!f[8].isEmpty()) {
          for (String w : f[8].split(",")) {
            int colon = w.indexOf(':');
            waiting.add(colon < 0 ? new Waiting(Long.parseLong(w), null)
                : new Waiting(Long.parseLong(w.substring(0, colon)), unb64(w.substring(colon + 1))));
          }
        }
        return new Entry(Long.parseLong(f[1]), f[2].equals("1"), f[3].equals("1"), Integer.parseInt(f[4]),
            Long.parseLong(f[5]), Long.parseLong(f[6]), unb64(f[7]), waiting);
      } catch (IllegalArgumentException e) {
        throw new CodecException(id() + " cannot decode '" + s + "': " + e.getMessage());
      }
    }

    @Override
    public String id() {
      return "epochal-examples-ad-join-entry:v2";
    }

    static String b64(String s) {
      return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    static String unb64(String s) {
      return new String(Base64.getDecoder().decode(s), StandardCharsets.UTF_8);
    }
  }

  /** The input of the {@link #FACTORS_COMPUTATION}: the factors records and the factors topic's ticks. */
  static boolean readDelayed(AdEvent e) {
    return e.kind() == AdEvent.Kind.FACTORS || (e.kind() == AdEvent.Kind.TICK && e.topicIndex() == 2);
  }

  /**
   * What the join computation reads of an input record: a factors record as a tick of its time and source partition
   * (it moves the join's watermark as it moves the factors computation's, so that the join's watermark never passes
   * the factors' and a timer never fires before the factors of its time were released; its content comes later,
   * delayed); every other record as it is.
   */
  static AdEvent forJoin(AdEvent e) {
    return e.kind() == AdEvent.Kind.FACTORS ? new AdEvent(AdEvent.Kind.TICK, AdEvent.TICK_KEY, e.time(), "", e.source())
        : e;
  }

  /** The delay of the factors computation: {@link #FACTORS_DELAY}, releasing every due record in one batch. */
  static DelaySpec<AdEvent> delay() {
    return DelaySpec.of(FACTORS_DELAY, new EventCodec()).withMaxReleasedPerBatch(MAX_FIRED);
  }

  /**
   * The factors computation's processor: passes each factors record on as the delay releases it (at the watermark
   * {@code tf + 1 h}, with its own time {@code tf}); drops the ticks (they only move the watermark). Stateless.
   */
  static final class Release implements KeyedProcessor<String, AdEvent, AdEvent> {
    @Override
    public void init(ProcessorContext<String> ctx) {
    }

    @Override
    public void process(String showId, List<AdEvent> records, Emitter<AdEvent> out) {
      for (AdEvent r : records) {
        if (r.kind() == AdEvent.Kind.FACTORS) {
          out.emit(r);
        }
      }
    }

    @Override
    public void onTimer(String showId, Timer timer, Emitter<AdEvent> out) {
      throw new IllegalStateException("the factors computation adds no timers, but " + timer + " fired");
    }
  }

  /** Encodes an {@link AdEvent} (the records the delay buffers) as UTF-8 text (id and factors in Base64). */
  static final class EventCodec implements Codec<AdEvent> {
    private static final Codec<String> STRINGS = Codecs.strings();

    @Override
    public byte[] encode(AdEvent e) {
      return STRINGS.encode("v1|" + e.kind().name() + "|" + EntryCodec.b64(e.showId()) + "|" + e.time() + "|"
          + e.source() + "|" + EntryCodec.b64(e.factors()));
    }

    @Override
    public AdEvent decode(byte[] bytes) {
      String s = STRINGS.decode(bytes);
      String[] f = s.split("\\|", -1);
      if (f.length != 6 || !f[0].equals("v1")) {
        throw new CodecException(id() + " cannot decode '" + s + "'");
      }
      try {
        return new AdEvent(AdEvent.Kind.valueOf(f[1]), EntryCodec.unb64(f[2]), Long.parseLong(f[3]),
            EntryCodec.unb64(f[5]), Integer.parseInt(f[4]));
      } catch (IllegalArgumentException e) {
        throw new CodecException(id() + " cannot decode '" + s + "': " + e.getMessage());
      }
    }

    @Override
    public String id() {
      return "epochal-examples-ad-join-event:v1";
    }
  }

  /** The join as a Flow keyed processor, keyed by show id (see the class comment). */
  static final class Processor implements KeyedProcessor<String, AdEvent, Out> {
    private StateClient<String, Entry> cells;
    private StateClient<String, Entry> openCells;
    private TimerClient<String, Void> show;
    private TimerClient<String, Void> orphan;

    @Override
    public void init(ProcessorContext<String> ctx) {
      cells = ctx.state(StateSpec.internal(SHOWS, KeyCodec.strings(), new EntryCodec(), Entry.EMPTY)
          .ttl(SHOW_TTL, TimeDomain.EVENT_TIME).maxExpirationsPerBatch(MAX_FIRED).build());
      openCells = ctx.state(StateSpec.internal(OPEN, KeyCodec.strings(), new EntryCodec(), Entry.EMPTY).build());
      show = ctx.timers(TimerSpec.of("show", TimeDomain.EVENT_TIME, Codecs.strings())
          .maxFiredPerBatch(MAX_FIRED).build());
      orphan = ctx.timers(TimerSpec.of("orphan", TimeDomain.EVENT_TIME, Codecs.strings())
          .maxFiredPerBatch(MAX_FIRED).build());
    }

    @Override
    public void process(String showId, List<AdEvent> records, Emitter<Out> out) {
      StateAccessor<Entry> cell = null;
      Entry before = null;
      Entry e = null;
      for (AdEvent r : records) {
        if (r.kind() == AdEvent.Kind.TICK) {
          continue; // only moves the watermark
        }
        if (cell == null) {
          // a show past its hour is in the TTL'd state; before, the show and the waiting records are in the open one
          StateAccessor<Entry> closed = cells.accessor(showId);
          Entry c = closed.getOrDefault(Entry.EMPTY);
          cell = c.showTime() >= 0 ? closed : openCells.accessor(showId);
          before = c.showTime() >= 0 ? c : cell.getOrDefault(Entry.EMPTY);
          e = before;
        }
        switch (r.kind()) {
          case SHOW -> {
            if (e.showTime() >= 0) {
              out.emit(new Out(DUPLICATE_SHOWS, showId, ""));
              continue;
            }
            List<Waiting> arrivedFirst = e.waiting();
            e = new Entry(r.time(), false, false, 0, -1, -1, "", List.of());
            show.add(showId, r.time() + WINDOW);                               // the hour's clicks are complete
            show.add(showId, r.time() + WINDOW + FACTORS_DELAY.toMillis());    // emit if no factors came
            for (Waiting w : arrivedFirst) {
              orphan.delete(showId, w.time());
              e = w.factors() == null ? click(e, showId, w.time(), out) : factors(e, w.time(), w.factors(), out);
            }
          }
          case CLICK -> e = e.showTime() < 0 ? waiting(e, showId, new Waiting(r.time(), null))
              : click(e, showId, r.time(), out);
          case FACTORS -> e = e.showTime() < 0 ? waiting(e, showId, new Waiting(r.time(), r.factors()))
              : factors(e, r.time(), r.factors(), out);
          default -> throw new IllegalStateException("unexpected " + r);
        }
      }
      if (e != null && e.complete() && !e.emitted() && e.factorsTime() >= 0) {
        e = emit(showId, e, out); // the (delayed) factors came after the hour: emit now
      }
      if (cell != null && !e.equals(before)) {
        cell.set(e); // a write to the TTL'd state touches its deadline: only when the cell changed
      }
    }

    private Entry waiting(Entry e, String showId, Waiting w) {
      List<Waiting> ws = new ArrayList<>(e.waiting());
      ws.add(w);
      orphan.add(showId, w.time());
      return new Entry(e.showTime(), e.complete(), e.emitted(), e.clicks(), e.firstClick(), e.factorsTime(),
          e.factors(), ws);
    }

    private static Entry click(Entry e, String showId, long t, Emitter<Out> out) {
      long ts = e.showTime();
      if (t < ts || t > ts + WINDOW + LATENESS) {
        out.emit(new Out(UNMATCHED_CLICKS, showId, ""));
        return e;
      }
      if (t > ts + WINDOW) {
        out.emit(new Out(LATE_CLICKS, showId, ""));
        return e;
      }
      if (e.complete()) {
        out.emit(new Out(MISSED_CLICKS, showId, ""));
        return e;
      }
      return new Entry(ts, false, false, e.clicks() + 1, e.clicks() == 0 ? t : Math.min(t, e.firstClick()),
          e.factorsTime(), e.factors(), e.waiting());
    }

    private static Entry factors(Entry e, long t, String factors, Emitter<Out> out) {
      long ts = e.showTime();
      if (t < ts || t > ts + WINDOW) {
        return e; // not the factors of this show's hour
      }
      if (e.emitted()) {
        if (e.factorsTime() < 0 || t < e.factorsTime()) {
          out.emit(new Out(MISSED_FACTORS, "", "")); // emitted without them, or with later ones
        }
        return e; // a later factors record of the hour: the first released (earliest) is the show's
      }
      if (e.factorsTime() < 0 || t < e.factorsTime() || (t == e.factorsTime() && factors.compareTo(e.factors()) > 0)) {
        return new Entry(ts, e.complete(), false, e.clicks(), e.firstClick(), t, factors, e.waiting());
      }
      return e;
    }

    @Override
    public void onTimer(String showId, Timer timer, Emitter<Out> out) {
      switch (timer.spec()) {
        case "show" -> {
          StateAccessor<Entry> open = openCells.accessor(showId);
          Entry o = open.getOrDefault(Entry.EMPTY);
          StateAccessor<Entry> cell = cells.accessor(showId);
          Entry e = cell.getOrDefault(Entry.EMPTY);
          if (o.showTime() >= 0 && timer.trigger() == o.showTime() + WINDOW && !o.complete()) {
            // the hour's clicks are all joined: the show moves to the TTL'd state (the write touches its deadline:
            // the watermark is past ts + H, so it lives past ts + 3 h, after the lateness hour and the factors'
            // delay) and is emitted if its (delayed) factors are already here
            Entry c = new Entry(o.showTime(), true, false, o.clicks(), o.firstClick(), o.factorsTime(), o.factors(),
                List.of());
            cell.set(c.factorsTime() >= 0 ? emit(showId, c, out) : c);
            open.clear();
          } else if (e.showTime() >= 0 && timer.trigger() == e.showTime() + WINDOW + FACTORS_DELAY.toMillis()
              && e.complete()) {
            if (!e.emitted()) {
              // every factors record of the hour was released by now (the factors' watermark is at or ahead of the
              // join's): the show has none
              cell.set(emit(showId, e, out));
            }
          } else {
            throw new IllegalStateException("timer " + timer + " of show '" + showId + "' fired, but its cells hold "
                + o + " (state '" + OPEN + "') and " + e + " (state '" + SHOWS + "', TTL " + SHOW_TTL + "): only the"
                + " show's own two timers are ever added, one spec fires them in trigger order, and the TTL'd cell"
                + " is written at the first, with the watermark past the show's time plus " + WINDOW + " ms");
          }
        }
        case "orphan" -> {
          StateAccessor<Entry> open = openCells.accessor(showId);
          Entry o = open.getOrDefault(Entry.EMPTY);
          if (o.showTime() < 0) {
            List<Waiting> left = new ArrayList<>();
            for (Waiting x : o.waiting()) {
              if (x.time() != timer.trigger()) {
                left.add(x);
              } else if (x.factors() == null) {
                out.emit(new Out(UNMATCHED_CLICKS, showId, ""));
              }
            }
            open.set(new Entry(-1, false, false, 0, -1, -1, "", left));
          }
        }
        default -> throw new IllegalStateException("timer of unknown spec " + timer);
      }
    }

    private static Entry emit(String showId, Entry e, Emitter<Out> out) {
      out.emit(new Out(SHOWS_EMITTED, showId, line(e.showTime(), e.clicks(), e.firstClick(), e.factorsTime(),
          e.factors())));
      return new Entry(e.showTime(), true, true, 0, -1, e.factorsTime(), "", List.of());
    }
  }

  /**
   * The expected result of a complete run over {@code input} (in any order), by a plain recomputation from event times:
   * the output lines by show id and the counts by kind (no zero counts).
   *
   * @param outputs the expected output value per emitted show id
   * @param counts the expected counts ({@link #SHOWS_EMITTED}, {@link #LATE_CLICKS}, {@link #UNMATCHED_CLICKS})
   * @param watermark the final watermark: the least, over the source partitions, largest time minus {@link #BOUND}
   */
  record Expected(Map<String, String> outputs, Map<String, Long> counts, long watermark) {
  }

  /**
   * Recomputes the join over {@code input} with plain maps: a show is emitted iff {@code ts + H + D} is at or below
   * the final watermark, or {@code ts + H} is and its factors' {@code tf + D} is at or below the final watermark of
   * the factors' partitions (they were released); clicks of a show id that shows are classified by their times,
   * those of a show id that never
   * shows count as unmatched iff their time is at or below the final watermark (when their orphan timer fires).
   * Assumes show ids are unique (the first show of an id is kept, as the processor keeps it).
   */
  static Expected recompute(List<AdEvent> input) {
    Map<Integer, Long> maxBySource = new HashMap<>();
    Map<Integer, Long> maxByFactorsSource = new HashMap<>();
    Map<String, Long> showTime = new HashMap<>();
    for (AdEvent e : input) {
      maxBySource.merge(e.source(), e.time(), Math::max);
      if (e.topicIndex() == 2) {
        maxByFactorsSource.merge(e.source(), e.time(), Math::max);
      }
      if (e.kind() == AdEvent.Kind.SHOW) {
        showTime.putIfAbsent(e.showId(), e.time());
      }
    }
    long watermark = maxBySource.isEmpty() ? Long.MIN_VALUE
        : maxBySource.values().stream().mapToLong(Long::longValue).min().getAsLong() - BOUND;
    long factorsWatermark = maxByFactorsSource.isEmpty() ? Long.MIN_VALUE
        : maxByFactorsSource.values().stream().mapToLong(Long::longValue).min().getAsLong() - BOUND;
    Map<String, long[]> joined = new HashMap<>(); // clicks, first click
    Map<String, Map.Entry<Long, String>> factors = new HashMap<>();
    Map<String, Long> counts = new TreeMap<>();
    for (AdEvent e : input) {
      Long ts = showTime.get(e.showId());
      if (e.kind() == AdEvent.Kind.CLICK) {
        if (ts == null) {
          if (e.time() <= watermark) {
            counts.merge(UNMATCHED_CLICKS, 1L, Long::sum);
          }
        } else if (e.time() < ts || e.time() > ts + WINDOW + LATENESS) {
          counts.merge(UNMATCHED_CLICKS, 1L, Long::sum);
        } else if (e.time() > ts + WINDOW) {
          counts.merge(LATE_CLICKS, 1L, Long::sum);
        } else {
          long[] j = joined.computeIfAbsent(e.showId(), k -> new long[] {0, Long.MAX_VALUE});
          j[0]++;
          j[1] = Math.min(j[1], e.time());
        }
      } else if (e.kind() == AdEvent.Kind.FACTORS && ts != null && e.time() >= ts && e.time() <= ts + WINDOW) {
        Map.Entry<Long, String> best = factors.get(e.showId());
        if (best == null || e.time() < best.getKey()
            || (e.time() == best.getKey() && e.factors().compareTo(best.getValue()) > 0)) {
          factors.put(e.showId(), Map.entry(e.time(), e.factors()));
        }
      }
    }
    Map<String, String> outputs = new TreeMap<>();
    showTime.forEach((id, ts) -> {
      Map.Entry<Long, String> f = factors.get(id);
      boolean released = f != null && f.getKey() + FACTORS_DELAY.toMillis() <= factorsWatermark;
      if ((ts + WINDOW <= watermark && released) || ts + WINDOW + FACTORS_DELAY.toMillis() <= watermark) {
        long[] j = joined.getOrDefault(id, new long[] {0, -1});
        outputs.put(id, line(ts, (int) j[0], j[1], f == null ? -1 : f.getKey(), f == null ? "" : f.getValue()));
      }
    });
    if (!outputs.isEmpty()) {
      counts.put(SHOWS_EMITTED, (long) outputs.size());
    }
    return new Expected(outputs, counts, watermark);
  }
}
