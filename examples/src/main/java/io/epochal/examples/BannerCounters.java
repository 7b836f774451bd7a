package io.epochal.examples;

import io.epochal.errors.InvalidRecordException;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.KeyValue;
import io.epochal.pipeline.KeyedProcessFunction;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.Stream;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Spout;
import io.epochal.spouts.GeneratedSpout;
import io.epochal.spouts.ReCuttingOpaqueSpout;
import io.epochal.spouts.kafka.KafkaRecord;
import io.epochal.state.MapState;
import io.epochal.state.State;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.LongFunction;

/**
 * Shows and clicks per banner, exactly once. Shows are counted per banner. Each click is joined to its show by show
 * id in a keyed processor ({@code show-clicks}, one state cell per show id): a click whose show is known counts for
 * the show's banner; one whose show has not been seen yet counts under {@code unknown} and is remembered, and when
 * the show arrives later those clicks move from {@code unknown} to its banner. So the counts depend only on which
 * events were committed, not on the order or the batches they came in: two Kafka topics (shows and clicks) read in
 * any interleaving give the same counts as one ordered stream, and a recount of the committed events verifies them.
 * A click on a show id that never shows (here: a click on a click) stays under {@code unknown}. Show ids are unique
 * (a repeated show of one id keeps the first banner).
 *
 * <p>Input: generated events (one stream), or two Kafka topics: shows (key = show id, value = banner id) and clicks
 * (key = show id; the value is not read), as {@code produce banner-counters} writes them.
 */
final class BannerCounters implements Main.Example {
  static final String UNKNOWN = "unknown";
  private final Main.Options options;
  private final Optional<KafkaInput> kafka;
  private final LongFunction<BannerEvent> events;

  BannerCounters(Main.Options options, Optional<KafkaInput> kafka) {
    this.options = options;
    this.kafka = kafka;
    this.events = BannerEvent.generator(options.seed());
  }

  @Override
  public Pipeline build(PipelineBuilder builder, ExampleStore store, RandomFaults faults) {
    String kind = options.spout();
    Stream<BannerEvent> all;
    if (kafka.isPresent()) {
      String showsTopic = kafka.get().settings().topics().get(0);
      all = builder.source(kafka.get().spout("ad-events", kind, options.batchSize()))
          .map(r -> event(r, showsTopic));
    } else {
      Spout<BannerEvent, ?> spout = kind.equals("opaque")
          ? ReCuttingOpaqueSpout.generated("ad-events", options.count(), events, Math.max(1, options.batchSize() / 2),
              options.batchSize(), options.seed())
          : GeneratedSpout.of("ad-events", options.count(), options.batchSize(), events);
      all = builder.source(spout);
    }
    all.filter(e -> !e.click()).groupBy(BannerEvent::bannerId)
        .persistentAggregate("shows", store.counts("shows", kind, faults), Aggregators.count());
    // The join's cells are read-modify-write: OpaqueMap's (curr, prev, txid) cells let a replay of a batch read the
    // value from before it on every protocol (on the per-key one, a failed attempt may have written some cells).
    all.groupBy(BannerEvent::showId)
        .process("show-clicks", store.strings("show-clicks", "opaque", faults), new JoinClicks())
        .toStream()
        .groupBy(KeyValue::key)
        .persistentAggregate("clicks", store.counts("clicks", kind, faults), Aggregators.sumLong((KeyValue<String, Long> kv) -> kv.value()));
    return builder.build();
  }

  /** A Kafka record as an event: a show from the shows topic, a click from the other; both need a key. */
  static BannerEvent event(KafkaRecord<String, String> r, String showsTopic) {
    String where = r.topic() + "-" + r.partition() + "@" + r.offset();
    String showId = r.key().orElseThrow(() -> new InvalidRecordException("record " + where
        + " has no key: banner-counters needs the show id as the key of every show and click"));
    if (!r.topic().equals(showsTopic)) {
      return new BannerEvent(true, showId, "");
    }
    String banner = r.value().orElseThrow(() -> new InvalidRecordException("show " + where
        + " has no value: banner-counters needs the banner id as the value of every show"));
    return new BannerEvent(false, showId, banner);
  }

  /**
   * The join of clicks to shows, per show id. A cell is {@code =<banner>} once the show was seen, else
   * {@code ?<n>} with the number of its clicks counted under {@code unknown} so far. Emits {@code (banner, delta)}
   * for the clicks state. The keys of a partition are loaded in one {@code multiGet} in {@link #begin} and written
   * in one {@code multiPut} after the last key; partitions run on their own threads, so the pending cells are kept
   * per state (one state per partition).
   */
  private static final class JoinClicks
      implements KeyedProcessFunction<MapState<String, String>, String, BannerEvent, KeyValue<String, Long>> {
    private final Map<State, Batch> batches = Collections.synchronizedMap(new IdentityHashMap<>());

    private record Batch(Map<String, String> stored, int keys, Map<String, String> written) {
    }

    @Override
    public void begin(MapState<String, String> state, BatchAttempt batch, List<String> keys) {
      batches.put(state, new Batch(state.multiGet(keys), keys.size(), new HashMap<>()));
    }

    @Override
    public void process(MapState<String, String> state, BatchAttempt batch, String showId, List<BannerEvent> events,
        Consumer<? super KeyValue<String, Long>> out) {
      Batch b = batches.get(state);
      String cell = b.stored().get(showId);
      String banner = cell != null && cell.startsWith("=") ? cell.substring(1) : null;
      long pending = cell != null && cell.startsWith("?") ? Long.parseLong(cell.substring(1)) : 0;
      for (BannerEvent e : events) {
        if (e.click()) {
          if (banner != null) {
            out.accept(new KeyValue<>(banner, 1L));
          } else {
            pending++;
            out.accept(new KeyValue<>(UNKNOWN, 1L));
          }
        } else if (banner == null) {
          banner = e.bannerId();
          if (pending > 0) {
            out.accept(new KeyValue<>(banner, pending));
            out.accept(new KeyValue<>(UNKNOWN, -pending));
            pending = 0;
          }
        }
      }
      b.written().put(showId, banner != null ? "=" + banner : "?" + pending);
      if (b.written().size() == b.keys()) {
        batches.remove(state);
        state.multiPut(b.written());
      }
    }
  }

  @Override
  public List<String> states() {
    return List.of("shows", "clicks");
  }

  @Override
  public Map<String, Map<String, Object>> recount(ExampleStore store) {
    List<BannerEvent> input = new ArrayList<>();
    if (kafka.isPresent()) {
      String showsTopic = kafka.get().settings().topics().get(0);
      kafka.get().committedRecords(store.checkpoint(options.command())).forEach(r -> input.add(event(r, showsTopic)));
    } else {
      for (long i = 0; i < options.count(); i++) {
        input.add(events.apply(i));
      }
    }
    return recount(input);
  }

  /** Shows and clicks per banner of {@code input}, in any order, with a plain loop (the verification). */
  static Map<String, Map<String, Object>> recount(List<BannerEvent> input) {
    Map<String, String> bannerOfShow = new HashMap<>();
    Map<String, Object> shows = new HashMap<>();
    for (BannerEvent e : input) {
      if (!e.click()) {
        bannerOfShow.putIfAbsent(e.showId(), e.bannerId()); // the first show of an id wins, as in the join
        shows.merge(e.bannerId(), 1L, (a, b) -> (Long) a + (Long) b);
      }
    }
    Map<String, Object> clicks = new HashMap<>();
    for (BannerEvent e : input) {
      if (e.click()) {
        clicks.merge(bannerOfShow.getOrDefault(e.showId(), UNKNOWN), 1L, (a, b) -> (Long) a + (Long) b);
      }
    }
    return Map.of("shows", shows, "clicks", clicks);
  }

  @Override
  public String unit() {
    return "events";
  }

  @Override
  public long units() {
    return options.count();
  }
}
