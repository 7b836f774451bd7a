package io.epochal.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.cache.CacheRegion;
import io.epochal.cache.CacheStats;
import io.epochal.cache.StateCache;
import io.epochal.codec.Codecs;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@link EpochalMetrics#bindCache} over a real {@link StateCache} with synchronous maintenance. */
class CacheMetersTest {
  private static final int KIB = 1024;
  private final MeterRegistry registry = new SimpleMeterRegistry();
  private final AtomicLong nanos = new AtomicLong();

  private StateCache cache(long uncompressed, long compressed) {
    return StateCache.builder().uncompressedCacheWeight(uncompressed).compressedCacheWeight(compressed)
        .ticker(nanos::get).executor(Runnable::run).build();
  }

  private double lookups(String level, String result) {
    return registry.get(EpochalMetrics.CACHE_LOOKUPS).tags("cache", "states", "level", level, "result", result)
        .functionCounter().count();
  }

  private double evictions(String level) {
    return registry.get(EpochalMetrics.CACHE_EVICTIONS).tags("cache", "states", "level", level).functionCounter()
        .count();
  }

  private double moves(String kind) {
    return registry.get(EpochalMetrics.CACHE_MOVES).tags("cache", "states", "kind", kind).functionCounter().count();
  }

  private double gauge(String name, String level) {
    return registry.get(name).tags("cache", "states", "level", level).gauge().value();
  }

  private static String text(int i, int size) {
    StringBuilder sb = new StringBuilder();
    while (sb.length() < size) {
      sb.append("value-").append(i).append(';').append(sb.length() * 31 % 97).append(' ');
    }
    return sb.substring(0, size);
  }

  @Test
  void hitsAndMissesArePerLevelAndResult() {
    StateCache cache = cache(64 * KIB, 64 * KIB);
    EpochalMetrics.bindCache(cache, registry, "states");
    CacheRegion<String, String> region = cache.<String>newRegion("words", Codecs.strings()).build();
    assertEquals(0, lookups("uncompressed", "hit"));
    assertEquals(0, gauge(EpochalMetrics.CACHE_ENTRIES, "uncompressed"));

    region.put("a", "alpha");
    region.put("b", "beta");
    region.getAllPresent(List.of("a", "b", "c"));
    region.getAllPresent(List.of("a", "d"));
    cache.cleanUp();

    assertEquals(3, lookups("uncompressed", "hit"));
    assertEquals(2, lookups("uncompressed", "miss"));
    assertEquals(0, lookups("compressed", "hit"));
    assertEquals(2, lookups("compressed", "miss"), "each level-1 miss consults level 2");
    assertEquals(2, gauge(EpochalMetrics.CACHE_ENTRIES, "uncompressed"));
    assertEquals(0, gauge(EpochalMetrics.CACHE_ENTRIES, "compressed"));
    assertEquals(cache.stats().uncompressed().weightedSize(), gauge(EpochalMetrics.CACHE_WEIGHT, "uncompressed"));
    assertTrue(gauge(EpochalMetrics.CACHE_WEIGHT, "uncompressed") > 0);
    assertEquals(0, evictions("uncompressed"));
    assertEquals(0, moves("demotion"));
  }

  @Test
  void evictionsDemotionsPromotionsAndWeightFollowTheCache() {
    StateCache cache = cache(4 * KIB, 16 * KIB);
    EpochalMetrics.bindCache(cache, registry, "states");
    CacheRegion<Integer, String> region = cache.<String>newRegion("big", Codecs.strings()).build();
    for (int i = 0; i < 200; i++) {
      region.put(i, text(i, 600));
      cache.cleanUp();
    }
    for (int i = 0; i < 200; i++) {
      region.getAllPresent(List.of(i)); // the keys level 2 still holds are hits there and are promoted
    }
    cache.cleanUp();

    CacheStats stats = cache.stats();
    assertTrue(stats.demotions() > 0 && stats.promotions() > 0 && stats.compressed().evictions() > 0,
        "the workload exercises both levels: " + stats);
    assertEquals(stats.uncompressed().evictions(), evictions("uncompressed"));
    assertEquals(stats.compressed().evictions(), evictions("compressed"));
    assertEquals(stats.demotions(), moves("demotion"));
    assertEquals(stats.promotions(), moves("promotion"));
    assertEquals(stats.compressed().hits(), lookups("compressed", "hit"));
    assertEquals(stats.uncompressed().weightedSize(), gauge(EpochalMetrics.CACHE_WEIGHT, "uncompressed"));
    assertEquals(stats.compressed().weightedSize(), gauge(EpochalMetrics.CACHE_WEIGHT, "compressed"));
    assertTrue(gauge(EpochalMetrics.CACHE_WEIGHT, "uncompressed") <= 4 * KIB);
    assertTrue(gauge(EpochalMetrics.CACHE_WEIGHT, "compressed") <= 16 * KIB);
    assertEquals(stats.compressed().entries(), gauge(EpochalMetrics.CACHE_ENTRIES, "compressed"));
    assertEquals(0, moves("expiration"));
  }

  @Test
  void expirationsAreCounted() {
    StateCache cache = cache(64 * KIB, 64 * KIB);
    EpochalMetrics.bindCache(cache, registry, "states");
    CacheRegion<String, Long> region = cache.<Long>newRegion("joined", Codecs.longs()).ttl(Duration.ofSeconds(1))
        .build();
    region.put("k", 1L);
    nanos.addAndGet(Duration.ofSeconds(2).toNanos());
    assertTrue(region.getAllPresent(List.of("k")).isEmpty(), "expired");
    cache.cleanUp();
    assertEquals(cache.stats().expirations(), moves("expiration"));
    assertTrue(moves("expiration") >= 1);
    assertEquals(1, lookups("uncompressed", "miss"));
  }

  @Test
  void prometheusNamesAndTags() {
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    StateCache cache = cache(64 * KIB, 64 * KIB);
    EpochalMetrics.bindCache(cache, prometheus, "states");
    CacheRegion<String, Long> region = cache.<Long>newRegion("r", Codecs.longs()).build();
    region.put("k", 1L);
    region.getAllPresent(List.of("k"));
    String scrape = prometheus.scrape();
    assertTrue(scrape.contains("epochal_cache_lookups_total{cache=\"states\",level=\"uncompressed\",result=\"hit\"} 1"),
        scrape);
    assertTrue(scrape.contains("epochal_cache_weight_bytes{cache=\"states\",level=\"compressed\"} 0"), scrape);
    assertTrue(scrape.contains("epochal_cache_moves_total{cache=\"states\",kind=\"promotion\"} 0"), scrape);
  }
}
