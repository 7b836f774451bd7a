package io.epochal.examples;

import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.MapStateRef;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.ReducerAggregator;
import io.epochal.pipeline.Stream;
import io.epochal.spouts.GeneratedSpout;
import io.epochal.spouts.ReCuttingOpaqueSpout;
import io.epochal.spout.Spout;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;

/**
 * Shows and clicks per banner, exactly once. Shows are counted per banner and remembered by show id; each click is
 * joined to its show (a lookup in the show-id state, declared after the state's writer so it sees shows of the same
 * batch) and counted for that show's banner.
 */
final class BannerCounters implements Main.Example {
  private final Main.Options options;
  private final LongFunction<BannerEvent> events;

  BannerCounters(Main.Options options) {
    this.options = options;
    this.events = BannerEvent.generator(options.seed());
  }

  /** Keeps the banner of a show: the last show event's banner (there is one per show id). */
  private static final ReducerAggregator<BannerEvent, String> BANNER_OF_SHOW = new ReducerAggregator<>() {
    @Override
    public String init() {
      return "";
    }

    @Override
    public String reduce(String current, BannerEvent show) {
      return show.bannerId();
    }
  };

  @Override
  public Pipeline build(PipelineBuilder builder, ExampleStore store, RandomFaults faults) {
    String kind = options.spout().equals("opaque") ? "opaque" : "transactional";
    Spout<BannerEvent, ?> spout = options.spout().equals("opaque")
        ? ReCuttingOpaqueSpout.generated("ad-events", options.count(), events, Math.max(1, options.batchSize() / 2),
            options.batchSize(), options.seed())
        : GeneratedSpout.of("ad-events", options.count(), options.batchSize(), events);
    Stream<BannerEvent> all = builder.source(spout);
    Stream<BannerEvent> shows = all.filter(e -> !e.click());
    MapStateRef<String, String> showBanner = shows.groupBy(BannerEvent::showId)
        .persistentAggregate("show-banner", store.strings("show-banner", kind, faults), BANNER_OF_SHOW);
    shows.groupBy(BannerEvent::bannerId)
        .persistentAggregate("shows", store.counts("shows", kind, faults), Aggregators.count());
    all.filter(BannerEvent::click)
        .lookup(showBanner, BannerEvent::showId, (click, banner) -> banner.orElse("unknown"))
        .groupBy(banner -> banner)
        .persistentAggregate("clicks", store.counts("clicks", kind, faults), Aggregators.count());
    return builder.build();
  }

  @Override
  public List<String> states() {
    return List.of("shows", "clicks");
  }

  @Override
  public Map<String, Map<String, Object>> recount() {
    Map<String, String> bannerOfShow = new HashMap<>();
    Map<String, Object> shows = new HashMap<>();
    Map<String, Object> clicks = new HashMap<>();
    for (long i = 0; i < options.count(); i++) {
      BannerEvent e = events.apply(i);
      if (e.click()) {
        clicks.merge(bannerOfShow.getOrDefault(e.showId(), "unknown"), 1L, (a, b) -> (Long) a + (Long) b);
      } else {
        bannerOfShow.put(e.showId(), e.bannerId());
        shows.merge(e.bannerId(), 1L, (a, b) -> (Long) a + (Long) b);
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
