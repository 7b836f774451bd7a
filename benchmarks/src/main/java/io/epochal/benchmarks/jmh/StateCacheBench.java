package io.epochal.benchmarks.jmh;

import io.epochal.cache.CacheRegion;
import io.epochal.cache.StateCache;
import io.epochal.codec.Codecs;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link StateCache} lookups of 1,000 keys: level-1 hits (decoded objects), level-2 hits (LZ4-compressed bytes,
 * decompressed, decoded and promoted) and misses. Reported per 1,000-key lookup.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class StateCacheBench {
  private CacheRegion<String, String> l1;
  private CacheRegion<String, String> l2;
  private List<String> present;
  private List<String> absent;
  private StateCache tiny;
  private int round;
  private List<List<String>> l2Rounds;

  /** Fills a default cache's region with 1,000 entries and creates a cache whose level 1 holds nothing. */
  @Setup
  public void setUp() {
    StateCache big = StateCache.builder().build();
    l1 = big.<String>newRegion("l1", Codecs.strings()).build();
    present = Words.distinct(1000);
    absent = present.stream().map(w -> "absent-" + w).toList();
    for (String w : present) {
      l1.put(w, "value of " + w);
    }
    // A level 1 too small for anything: every entry is demoted to level 2 (compressed).
    tiny = StateCache.builder().uncompressedCacheWeight(1).executor(Runnable::run).build();
    l2 = tiny.<String>newRegion("l2", Codecs.strings()).build();
    l2Rounds = List.of(Words.distinct(1000), Words.distinct(2000).subList(1000, 2000));
  }

  /**
   * Looks up 1,000 keys all held decoded in level 1.
   *
   * @return every key with its value (the default 100 MiB level 1 holds all 1,000)
   */
  @Benchmark
  public Map<String, Optional<String>> level1Hits() {
    return l1.getAllPresent(present);
  }

  /**
   * Looks up 1,000 keys never put.
   *
   * @return an empty map (a key not cached is absent from the result)
   */
  @Benchmark
  public Map<String, Optional<String>> misses() {
    return l1.getAllPresent(absent);
  }

  /**
   * Puts 1,000 entries (demoted at once), then reads them back from level 2; alternates between two key sets so each
   * invocation puts keys not read by the one before.
   *
   * @return the 1,000 keys with their values, as far as the cache kept them
   */
  @Benchmark
  public Map<String, Optional<String>> level2PutAndHits() {
    List<String> keys = l2Rounds.get(round++ & 1);
    for (String w : keys) {
      l2.put(w, "value of " + w);
    }
    tiny.cleanUp();
    return l2.getAllPresent(keys);
  }
}
