package io.epochal.metrics.internal;

import io.epochal.cache.CacheStats;
import io.epochal.cache.StateCache;
import io.epochal.metrics.EpochalMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.BaseUnits;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Binds a {@link StateCache}'s {@link CacheStats} to a registry: per level ({@code uncompressed}, {@code compressed})
 * function counters of hits and misses ({@link EpochalMetrics#CACHE_LOOKUPS}) and evictions, gauges of the weight in
 * bytes and of the entries; and function counters of promotions, demotions and expirations
 * ({@link EpochalMetrics#CACHE_MOVES}). Every meter reads {@link StateCache#stats()} when it is read (at a scrape); the
 * registry holds the cache weakly.
 *
 * <p>Stateless and thread-safe (the cache's stats are thread-safe).
 */
public final class CacheMeters {
  private CacheMeters() {
  }

  /**
   * Registers the cache's meters in {@code registry}, tagged {@code cache=<name>}.
   *
   * @param cache the cache whose lookups, evictions, moves, weight and entries are measured
   * @param registry where the meters are registered
   * @param name the value of the {@code cache} tag
   * @throws NullPointerException if an argument is null
   */
  public static void bind(StateCache cache, MeterRegistry registry, String name) {
    Objects.requireNonNull(cache, "cache");
    Objects.requireNonNull(registry, "registry");
    Objects.requireNonNull(name, "name");
    level(cache, registry, name, "uncompressed", CacheStats::uncompressed);
    level(cache, registry, name, "compressed", CacheStats::compressed);
    moves(cache, registry, name, "promotion", CacheStats::promotions);
    moves(cache, registry, name, "demotion", CacheStats::demotions);
    moves(cache, registry, name, "expiration", CacheStats::expirations);
  }

  private static void level(StateCache cache, MeterRegistry registry, String name, String level,
      Function<CacheStats, CacheStats.Level> of) {
    lookups(cache, registry, name, level, "hit", s -> of.apply(s).hits());
    lookups(cache, registry, name, level, "miss", s -> of.apply(s).misses());
    FunctionCounter.builder(EpochalMetrics.CACHE_EVICTIONS, cache, c -> of.apply(c.stats()).evictions())
        .description("entries a cache level dropped to stay within its weight")
        .tags("cache", name, "level", level)
        .register(registry);
    gauge(cache, registry, EpochalMetrics.CACHE_WEIGHT, BaseUnits.BYTES, "current weight of a cache level in bytes",
        name, level, c -> of.apply(c.stats()).weightedSize());
    gauge(cache, registry, EpochalMetrics.CACHE_ENTRIES, null, "entries of a cache level", name, level,
        c -> of.apply(c.stats()).entries());
  }

  private static void lookups(StateCache cache, MeterRegistry registry, String name, String level, String result,
      ToLongFunction<CacheStats> count) {
    FunctionCounter.builder(EpochalMetrics.CACHE_LOOKUPS, cache, c -> count.applyAsLong(c.stats()))
        .description("cache lookups by level and result")
        .tags("cache", name, "level", level, "result", result)
        .register(registry);
  }

  private static void moves(StateCache cache, MeterRegistry registry, String name, String kind,
      ToLongFunction<CacheStats> count) {
    FunctionCounter.builder(EpochalMetrics.CACHE_MOVES, cache, c -> count.applyAsLong(c.stats()))
        .description("entries moved between the cache's levels or expired")
        .tags("cache", name, "kind", kind)
        .register(registry);
  }

  private static void gauge(StateCache cache, MeterRegistry registry, String meter, String unit, String description,
      String name, String level, ToDoubleFunction<StateCache> value) {
    Gauge.builder(meter, cache, value).description(description).baseUnit(unit).tags("cache", name, "level", level)
        .register(registry);
  }
}
