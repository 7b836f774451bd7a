package io.epochal.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class StateCacheTest {
  private static final int KIB = 1024;

  /** A value of about {@code size} UTF-8 bytes that LZ4 compresses (repetitive text with a random part). */
  private static String value(Random random, int size) {
    StringBuilder sb = new StringBuilder(size);
    while (sb.length() < size) {
      sb.append("banner-").append(random.nextInt(1000)).append(";shows=").append(random.nextInt(50)).append(' ');
    }
    sb.setLength(size);
    return sb.toString();
  }

  private static StateCache synchronousCache(long uncompressed, long compressed, Ticker ticker) {
    return StateCache.builder().uncompressedCacheWeight(uncompressed).compressedCacheWeight(compressed)
        .ticker(ticker).executor(Runnable::run).build();
  }

  private static <K, V> Optional<V> get(CacheRegion<K, V> region, K key) {
    Map<K, Optional<V>> found = region.getAllPresent(List.of(key));
    return found.containsKey(key) ? found.get(key) : null;
  }

  // ------------------------------------------------------------------------------------------------ builder

  @Test
  void shouldDefaultTo100MiBUncompressedAnd1GiBCompressed() {
    StateCache cache = StateCache.builder().build();
    assertEquals(100L * 1024 * 1024, cache.uncompressedCacheWeight());
    assertEquals(1024L * 1024 * 1024, cache.compressedCacheWeight());
    assertEquals(cache.uncompressedCacheWeight(), cache.stats().uncompressed().maximumWeight());
    assertEquals(cache.compressedCacheWeight(), cache.stats().compressed().maximumWeight());
  }

  @Test
  void shouldRejectNegativeWeightsAndOptionsSetTwice() {
    assertThrows(IllegalArgumentException.class, () -> StateCache.builder().uncompressedCacheWeight(-1));
    assertThrows(IllegalArgumentException.class, () -> StateCache.builder().compressedCacheWeight(-1));
    assertThrows(IllegalStateException.class,
        () -> StateCache.builder().uncompressedCacheWeight(1).uncompressedCacheWeight(2));
    assertThrows(IllegalStateException.class,
        () -> StateCache.builder().compressedCacheWeight(1).compressedCacheWeight(2));
    StateCache cache = StateCache.builder().build();
    assertThrows(IllegalArgumentException.class, () -> cache.newRegion("r", Codecs.longs()).ttl(Duration.ZERO));
    assertThrows(IllegalStateException.class,
        () -> cache.newRegion("r", Codecs.longs()).ttl(Duration.ofSeconds(1)).ttl(Duration.ofSeconds(2)));
    assertThrows(NullPointerException.class, () -> cache.newRegion(null, Codecs.longs()));
  }

  @Test
  void shouldNotChangeTheBuilderOnBuild() {
    StateCache.Builder builder = StateCache.builder().uncompressedCacheWeight(KIB);
    StateCache first = builder.build();
    StateCache second = builder.build();
    assertEquals(KIB, first.uncompressedCacheWeight());
    assertEquals(KIB, second.uncompressedCacheWeight());
    assertTrue(first != second);
  }

  // ------------------------------------------------------------------------------------------------ bounds

  @Test
  void shouldKeepBothLevelsWithinTheirByteBoundsUnderLoad() {
    long uncompressed = 64 * KIB;
    long compressed = 256 * KIB;
    StateCache cache = synchronousCache(uncompressed, compressed, new ManualTicker());
    List<CacheRegion<Integer, String>> regions = new ArrayList<>();
    for (int r = 0; r < 4; r++) {
      regions.add(cache.<String>newRegion("state-" + r, Codecs.strings()).build());
    }
    Random random = new Random(42);
    long inserted = 0;
    for (int i = 0; i < 20_000; i++) {
      String v = value(random, 200 + random.nextInt(2 * KIB));
      inserted += v.length();
      CacheRegion<Integer, String> region = regions.get(i % regions.size());
      region.put(i, v);
      if (i % 7 == 0) {
        get(region, random.nextInt(i + 1)); // promotions interleaved with the load
      }
      if (i % 500 == 0) {
        cache.cleanUp();
        assertWithinBounds(cache);
      }
    }
    cache.cleanUp();
    assertWithinBounds(cache);
    assertTrue(inserted > 50 * (uncompressed + compressed), "the load must exceed both bounds by far: " + inserted);
    CacheStats stats = cache.stats();
    assertTrue(stats.uncompressed().evictions() > 10_000, stats.toString());
    assertTrue(stats.demotions() > 10_000, stats.toString());
    assertTrue(stats.compressed().evictions() > 0, stats.toString());
    assertTrue(stats.promotions() > 0, stats.toString());
    // both levels are in use, not trivially empty
    assertTrue(stats.uncompressed().weightedSize() > uncompressed / 2, stats.toString());
    assertTrue(stats.compressed().weightedSize() > compressed / 2, stats.toString());
  }

  @Test
  void shouldKeepBothLevelsWithinTheirBoundsWithConcurrentWritersAndAsyncMaintenance() throws Exception {
    long uncompressed = 32 * KIB;
    long compressed = 128 * KIB;
    StateCache cache = StateCache.builder().uncompressedCacheWeight(uncompressed).compressedCacheWeight(compressed)
        .build(); // default executor: eviction runs asynchronously
    CacheRegion<Integer, String> region = cache.<String>newRegion("load", Codecs.strings()).build();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int thread = t;
        futures.add(pool.submit(() -> {
          Random random = new Random(thread);
          for (int i = 0; i < 5_000; i++) {
            int key = thread * 1_000_000 + i;
            region.put(key, value(random, 100 + random.nextInt(KIB)));
            get(region, thread * 1_000_000 + random.nextInt(i + 1));
          }
        }));
      }
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    cache.cleanUp();
    assertWithinBounds(cache);
  }

  @Test
  void shouldWeighLevelOneByTheUserWeigherWhenGiven() {
    StateCache cache = synchronousCache(10 * KIB, 0, new ManualTicker());
    CacheRegion<Integer, String> region = cache.<String>newRegion("weighed", Codecs.strings())
        .weigher(s -> 1000).build();
    for (int i = 0; i < 100; i++) {
      region.put(i, "x");
    }
    cache.cleanUp();
    CacheStats stats = cache.stats();
    assertTrue(stats.uncompressed().weightedSize() <= 10 * KIB, stats.toString());
    // 1000 bytes + overhead each: at most 9 entries fit in 10 KiB
    assertTrue(stats.uncompressed().entries() <= 9, stats.toString());
    assertEquals(0, stats.compressed().entries(), "a zero-weight level 2 keeps nothing");
  }

  private static void assertWithinBounds(StateCache cache) {
    CacheStats stats = cache.stats();
    assertTrue(stats.uncompressed().weightedSize() <= cache.uncompressedCacheWeight(),
        "level 1 over its bound: " + stats);
    assertTrue(stats.compressed().weightedSize() <= cache.compressedCacheWeight(),
        "level 2 over its bound: " + stats);
  }

  // ------------------------------------------------------------------------------------------------ levels

  @Test
  void shouldDemoteLevelOneEvictionsAndPromoteThemBackOnAHit() {
    // Level 1 holds about 4 entries of ~1 KiB; level 2 holds all of them compressed.
    StateCache cache = synchronousCache(4 * KIB + 300, 1024 * KIB, new ManualTicker());
    CacheRegion<Integer, String> region = cache.<String>newRegion("levels", Codecs.strings()).build();
    Random random = new Random(7);
    Map<Integer, String> written = new java.util.HashMap<>();
    for (int i = 0; i < 50; i++) {
      String v = value(random, KIB);
      written.put(i, v);
      region.put(i, v);
    }
    cache.cleanUp();
    CacheStats afterWrites = cache.stats();
    assertEquals(afterWrites.uncompressed().evictions(), afterWrites.demotions());
    assertTrue(afterWrites.demotions() >= 45, afterWrites.toString());
    assertEquals(50, afterWrites.uncompressed().entries() + afterWrites.compressed().entries(),
        "levels are exclusive and nothing was lost: " + afterWrites);
    assertTrue(afterWrites.compressed().weightedSize()
        < afterWrites.compressed().entries() * (KIB + 64L), "level 2 holds compressed bytes: " + afterWrites);

    // every key is found, with the value written, in one level or the other
    for (int i = 0; i < 50; i++) {
      assertEquals(Optional.of(written.get(i)), get(region, i), "key " + i);
    }
    cache.cleanUp();
    CacheStats afterReads = cache.stats();
    long l2Hits = afterReads.compressed().hits();
    assertTrue(l2Hits >= 45, afterReads.toString());
    assertEquals(l2Hits, afterReads.promotions());
    assertEquals(0, afterReads.compressed().misses());
    assertEquals(50, afterReads.uncompressed().hits() + afterReads.uncompressed().misses());
    assertEquals(afterReads.uncompressed().misses(), afterReads.compressed().hits());
  }

  @Test
  void shouldNeverServeADemotedValueOlderThanTheLastPut() {
    StateCache cache = synchronousCache(2 * KIB, 1024 * KIB, new ManualTicker());
    CacheRegion<Integer, String> region = cache.<String>newRegion("fresh", Codecs.strings()).build();
    Random random = new Random(3);
    for (int round = 0; round < 20; round++) {
      for (int key = 0; key < 20; key++) {
        region.put(key, round + ":" + value(random, 500));
      }
      cache.cleanUp();
      for (int key = 0; key < 20; key++) {
        Optional<String> got = get(region, key);
        assertTrue(got != null && got.orElseThrow().startsWith(round + ":"), "key " + key + " round " + round);
      }
    }
    assertTrue(cache.stats().demotions() > 0);
    assertTrue(cache.stats().promotions() > 0);
  }

  @Test
  void shouldCacheMissingRowsInBothLevels() {
    StateCache cache = synchronousCache(0, 1024 * KIB, new ManualTicker());
    CacheRegion<String, Long> region = cache.<Long>newRegion("missing", Codecs.longs()).build();
    region.putMissing("absent");
    region.put("present", 5L);
    cache.cleanUp();
    assertEquals(0, cache.stats().uncompressed().entries(), "a zero-weight level 1 demotes everything at once");
    Map<String, Optional<Long>> found = region.getAllPresent(List.of("absent", "present", "unknown"));
    assertEquals(Map.of("absent", Optional.empty(), "present", Optional.of(5L)), found);
  }

  @Test
  void shouldCountHitsAndMissesPerLevel() {
    StateCache cache = synchronousCache(1024 * KIB, 1024 * KIB, new ManualTicker());
    CacheRegion<String, Long> region = cache.<Long>newRegion("counted", Codecs.longs()).build();
    region.putAll(Map.of("a", Optional.of(1L), "b", Optional.empty()));
    assertEquals(Map.of("a", Optional.of(1L), "b", Optional.empty()),
        region.getAllPresent(List.of("a", "b", "c", "a")));
    get(region, "d");
    CacheStats stats = cache.stats();
    assertEquals(2, stats.uncompressed().hits());
    assertEquals(2, stats.uncompressed().misses());
    assertEquals(0, stats.compressed().hits());
    assertEquals(2, stats.compressed().misses());
    assertEquals(0.5, stats.uncompressed().hitRate());
    assertEquals(0, stats.uncompressed().evictions());
    assertEquals(2, stats.uncompressed().entries());
  }

  // ------------------------------------------------------------------------------------------------ TTL

  @Test
  void shouldExpireJoinerEntriesAfterTheirTtlWithoutSleeping() {
    ManualTicker ticker = new ManualTicker();
    StateCache cache = synchronousCache(1024 * KIB, 1024 * KIB, ticker);
    CacheRegion<String, Long> joined = cache.<Long>newRegion("joined", Codecs.longs())
        .ttl(Duration.ofSeconds(10)).build();
    CacheRegion<String, Long> owned = cache.<Long>newRegion("owned", Codecs.longs()).build();
    joined.put("k", 1L);
    owned.put("k", 2L);
    ticker.advance(Duration.ofSeconds(9));
    joined.putMissing("late");
    assertEquals(Optional.of(1L), get(joined, "k"));
    ticker.advance(Duration.ofSeconds(1));
    assertEquals(null, get(joined, "k"), "expired exactly at the TTL");
    assertEquals(Optional.empty(), get(joined, "late"), "the TTL counts from each entry's own put");
    assertEquals(Optional.of(2L), get(owned, "k"), "a region without TTL never expires");
    ticker.advance(Duration.ofDays(365));
    assertEquals(null, get(joined, "late"));
    assertEquals(Optional.of(2L), get(owned, "k"));
    cache.cleanUp();
    assertEquals(1, cache.stats().uncompressed().entries(), "expired entries are swept: " + cache.stats());
    assertTrue(joined.ttl().isPresent() && owned.ttl().isEmpty());
  }

  @Test
  void shouldExpireDemotedEntriesFromTheirOriginalPutTime() {
    ManualTicker ticker = new ManualTicker();
    StateCache cache = synchronousCache(0, 1024 * KIB, ticker); // everything is demoted at once
    CacheRegion<String, String> joined = cache.<String>newRegion("joined", Codecs.strings())
        .ttl(Duration.ofMinutes(1)).build();
    joined.put("k", "v");
    cache.cleanUp();
    assertEquals(1, cache.stats().compressed().entries());
    ticker.advance(Duration.ofSeconds(59));
    assertEquals(Optional.of("v"), get(joined, "k"), "still valid: promoted");
    cache.cleanUp(); // level 1 holds nothing: demoted again, with the original put time
    ticker.advance(Duration.ofSeconds(1));
    assertEquals(null, get(joined, "k"));
    cache.cleanUp();
    CacheStats stats = cache.stats();
    assertEquals(0, stats.uncompressed().entries() + stats.compressed().entries(), stats.toString());
    assertTrue(stats.expirations() >= 1, stats.toString());
  }

  // ------------------------------------------------------------------------------------------------ invalidation

  @Test
  void shouldDropARegionFromBothLevelsOnInvalidateAllAndKeepOtherRegions() {
    StateCache cache = synchronousCache(3 * KIB, 1024 * KIB, new ManualTicker());
    CacheRegion<Integer, String> failed = cache.<String>newRegion("failed", Codecs.strings()).build();
    CacheRegion<Integer, String> other = cache.<String>newRegion("other", Codecs.strings()).build();
    Random random = new Random(11);
    for (int i = 0; i < 30; i++) {
      failed.put(i, value(random, 600));
      other.put(i, "o" + i);
    }
    cache.cleanUp();
    assertTrue(cache.stats().demotions() > 0);
    failed.invalidateAll();
    for (int i = 0; i < 30; i++) {
      assertEquals(null, get(failed, i), "key " + i);
      assertEquals(Optional.of("o" + i), get(other, i), "key " + i);
    }
    failed.put(1, "again");
    assertEquals(Optional.of("again"), get(failed, 1));
  }

  @Test
  void shouldDropOneKeyFromBothLevelsOnInvalidate() {
    StateCache cache = synchronousCache(0, 1024 * KIB, new ManualTicker());
    CacheRegion<String, Long> region = cache.<Long>newRegion("r", Codecs.longs()).build();
    region.put("a", 1L);
    region.put("b", 2L);
    cache.cleanUp();
    region.invalidate("a");
    assertEquals(Map.of("b", Optional.of(2L)), region.getAllPresent(List.of("a", "b")));
  }

  @Test
  void shouldRejectNulls() {
    CacheRegion<String, Long> region = StateCache.builder().build().<Long>newRegion("r", Codecs.longs()).build();
    assertThrows(NullPointerException.class, () -> region.put(null, 1L));
    assertThrows(NullPointerException.class, () -> region.put("k", null));
    assertThrows(NullPointerException.class, () -> region.putMissing(null));
    assertThrows(NullPointerException.class, () -> region.getAllPresent(null));
    assertThrows(NullPointerException.class, () -> region.getAllPresent(java.util.Arrays.asList("a", null)));
    assertThrows(NullPointerException.class, () -> region.invalidate(null));
  }

  // ------------------------------------------------------------------------------------------------ concurrency

  /**
   * Many threads write versioned values while the levels demote and promote under pressure. Each thread owns some
   * keys (it must read its own last write or a miss, never an older version) and all threads share others (a read
   * must never return a version below the one the reader saw committed before it started).
   */
  @Test
  void shouldStayConsistentPerKeyUnderConcurrentPutsReadsAndInvalidations() throws Exception {
    StateCache cache = StateCache.builder().uncompressedCacheWeight(8 * KIB).compressedCacheWeight(64 * KIB)
        .build();
    CacheRegion<String, String> region = cache.<String>newRegion("concurrent", Codecs.strings()).build();
    int threads = 8;
    int shared = 16;
    ConcurrentHashMap<String, Long> published = new ConcurrentHashMap<>(); // highest version put of a shared key
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    try {
      for (int t = 0; t < threads; t++) {
        int thread = t;
        futures.add(pool.submit(() -> {
          start.await();
          Random random = new Random(thread);
          long[] own = new long[32];
          String pad = value(random, 200);
          for (int i = 1; i <= 20_000; i++) {
            int op = random.nextInt(10);
            if (op < 4) {
              int k = random.nextInt(own.length);
              own[k] = i;
              region.put("t" + thread + "-" + k, i + ":" + pad);
            } else if (op < 7) {
              int k = random.nextInt(own.length);
              Optional<String> got = get(region, "t" + thread + "-" + k);
              if (got != null && own[k] != 0) {
                assertEquals(own[k], version(got.orElseThrow()), "own key " + k + " of thread " + thread);
              } else if (got != null) {
                throw new AssertionError("a key never written by its owner is cached");
              }
            } else if (op < 8) {
              int k = random.nextInt(own.length);
              own[k] = 0;
              region.invalidate("t" + thread + "-" + k);
            } else {
              String key = "s" + random.nextInt(shared);
              long seen = published.getOrDefault(key, 0L);
              Optional<String> got = get(region, key);
              if (got != null) {
                assertTrue(version(got.orElseThrow()) >= seen, "shared " + key + " went back in time");
              }
              long v = (long) i * threads + thread;
              synchronized (published) {
                if (v > published.getOrDefault(key, 0L)) {
                  region.put(key, v + ":" + pad);
                  published.put(key, v);
                }
              }
            }
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : futures) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    cache.cleanUp();
    assertWithinBounds(cache);
    CacheStats stats = cache.stats();
    assertTrue(stats.demotions() > 0 && stats.promotions() > 0, stats.toString());
    for (Map.Entry<String, Long> e : published.entrySet()) {
      Optional<String> got = get(region, e.getKey());
      if (got != null) {
        assertEquals(e.getValue(), version(got.orElseThrow()));
      }
    }
    assertFalse(IntStream.range(0, 1).anyMatch(i -> false));
  }

  private static long version(String value) {
    return Long.parseLong(value.substring(0, value.indexOf(':')));
  }
}
