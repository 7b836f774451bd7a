package io.epochal.cache;

import io.epochal.api.Evolving;
import io.epochal.cache.internal.TwoLevelStateCache;
import io.epochal.codec.Codec;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.ToIntFunction;

/**
 * One shared two-level LRU cache of states, like YTsaurus Flow's {@code state_cache}: level 1 holds decoded objects
 * (bounded by {@link Builder#uncompressedCacheWeight}, default {@value #DEFAULT_UNCOMPRESSED_CACHE_WEIGHT} bytes =
 * 100 MiB), level 2 holds LZ4-compressed serialized bytes (bounded by {@link Builder#compressedCacheWeight}, default
 * {@value #DEFAULT_COMPRESSED_CACHE_WEIGHT} bytes = 1 GiB). Both bounds are weights in bytes: a level-1 entry weighs
 * its value's serialized size (or what the region's weigher says) plus a fixed overhead, a level-2 entry its compressed
 * bytes plus the same overhead.
 *
 * <p>An entry that level 1 evicts for size is <em>demoted</em>: encoded with its region's codec, compressed and put in
 * level 2. A level-2 hit decompresses, decodes and <em>promotes</em> the entry back to level 1 (it leaves level 2: the
 * levels are exclusive). Level 2 drops its least recently used entries for good. Entries of a region with a TTL
 * expire that long after they were put, in either level; expired and invalidated entries are never demoted.
 *
 * <p>Every state of a process should share one instance (build it once, pass it to every
 * {@link io.epochal.flow.FlowStates}); each state uses its own {@link CacheRegion}. Eviction runs on Caffeine's
 * maintenance executor (by default {@link java.util.concurrent.ForkJoinPool#commonPool()}), so the weighted sizes
 * may exceed the bounds for a moment under load; {@link #cleanUp()} runs the pending maintenance at once.
 *
 * <p>Thread-safe. Entry point: {@link #builder()}.
 *
 * @since 0.1.0
 */
@Evolving
public interface StateCache {

  /** Default bound of level 1 (uncompressed objects): 100 MiB. */
  long DEFAULT_UNCOMPRESSED_CACHE_WEIGHT = 100L * 1024 * 1024;

  /** Default bound of level 2 (compressed bytes): 1 GiB. */
  long DEFAULT_COMPRESSED_CACHE_WEIGHT = 1024L * 1024 * 1024;

  /** @return a builder with the defaults (100 MiB uncompressed, 1 GiB compressed, system ticker) */
  static Builder builder() {
    return new Builder();
  }

  /**
   * Starts declaring a region: one state's share of this cache.
   *
   * @param name the region's name, for stats and logs
   * @param codec encodes values demoted to level 2 and (by default) weighs level-1 values by their encoded size
   * @param <V> the value type
   * @return a builder; {@link RegionBuilder#build()} creates the region
   * @throws NullPointerException if an argument is null
   */
  <V> RegionBuilder<V> newRegion(String name, Codec<V> codec);

  /** @return a snapshot of the counters and current weighted sizes */
  CacheStats stats();

  /** Runs pending maintenance (evictions, demotions, expiry sweeps) on the calling thread. */
  void cleanUp();

  /** @return the configured bound of level 1, in bytes */
  long uncompressedCacheWeight();

  /** @return the configured bound of level 2, in bytes */
  long compressedCacheWeight();

  /**
   * Declares a {@link StateCache}. Each option may be set once ({@link IllegalStateException} otherwise) and is
   * validated at once ({@link IllegalArgumentException}); {@link #build()} never changes the builder. Not thread-safe.
   */
  final class Builder {
    private Long uncompressed;
    private Long compressed;
    private Ticker ticker;
    private Executor executor;

    Builder() {
    }

    /**
     * Bound of level 1 in bytes (Flow: {@code uncompressed_cache_weight}, default 100 MiB). 0 disables level 1:
     * every entry goes straight to level 2.
     *
     * @param bytes the maximum total weight of level 1, in bytes; 0 or more
     * @return this builder
     * @throws IllegalArgumentException if negative
     * @throws IllegalStateException if already set
     */
    public Builder uncompressedCacheWeight(long bytes) {
      requireUnset(uncompressed, "uncompressedCacheWeight");
      uncompressed = requireNonNegative(bytes, "uncompressedCacheWeight");
      return this;
    }

    /**
     * Bound of level 2 in bytes (Flow: {@code compressed_cache_weight}, default 1 GiB). 0 disables level 2: level-1
     * evictions are dropped.
     *
     * @param bytes the maximum total weight of level 2 (compressed bytes plus overhead), in bytes; 0 or more
     * @return this builder
     * @throws IllegalArgumentException if negative
     * @throws IllegalStateException if already set
     */
    public Builder compressedCacheWeight(long bytes) {
      requireUnset(compressed, "compressedCacheWeight");
      compressed = requireNonNegative(bytes, "compressedCacheWeight");
      return this;
    }

    /**
     * The time source of TTL expiry (default {@link Ticker#system()}); tests pass a manual one.
     *
     * @param ticker the clock, in nanoseconds, that the TTLs of every region of the cache are measured on; not null
     * @return this builder
     * @throws NullPointerException if {@code ticker} is null
     * @throws IllegalStateException if already set
     */
    public Builder ticker(Ticker ticker) {
      requireUnset(this.ticker, "ticker");
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /**
     * Where eviction and demotion run (default {@link java.util.concurrent.ForkJoinPool#commonPool()}).
     * {@code Runnable::run} makes them run on the calling thread, which tests use to check the bounds exactly.
     *
     * @param executor runs the caches' maintenance (evictions, demotions, expiry sweeps); not null
     * @return this builder
     * @throws NullPointerException if {@code executor} is null
     * @throws IllegalStateException if already set
     */
    public Builder executor(Executor executor) {
      requireUnset(this.executor, "executor");
      this.executor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /** @return a new, empty cache */
    public StateCache build() {
      return new TwoLevelStateCache(
          uncompressed == null ? DEFAULT_UNCOMPRESSED_CACHE_WEIGHT : uncompressed,
          compressed == null ? DEFAULT_COMPRESSED_CACHE_WEIGHT : compressed,
          ticker == null ? Ticker.system() : ticker,
          executor);
    }

    private static void requireUnset(Object current, String option) {
      if (current != null) {
        throw new IllegalStateException(option + " was already set to " + current);
      }
    }

    private static long requireNonNegative(long value, String option) {
      if (value < 0) {
        throw new IllegalArgumentException(option + " must be >= 0 bytes, was " + value);
      }
      return value;
    }
  }

  /**
   * Declares a {@link CacheRegion}. Options may be set once ({@link IllegalStateException} otherwise). Not
   * thread-safe.
   *
   * @param <V> the value type
   */
  abstract class RegionBuilder<V> {
    private Duration ttl;
    private ToIntFunction<? super V> weigher;

    /** For the cache implementation only. */
    protected RegionBuilder() {
    }

    /**
     * Entries expire this long after they were put (a joiner's TTL). Default: never.
     *
     * @param ttl how long an entry stays valid after its {@code put}, measured on the cache's {@link Ticker}; positive
     * @return this builder
     * @throws NullPointerException if {@code ttl} is null
     * @throws IllegalArgumentException if not positive
     * @throws IllegalStateException if already set
     */
    public final RegionBuilder<V> ttl(Duration ttl) {
      if (this.ttl != null) {
        throw new IllegalStateException("ttl was already set to " + this.ttl);
      }
      Objects.requireNonNull(ttl, "ttl");
      if (ttl.isNegative() || ttl.isZero()) {
        throw new IllegalArgumentException("ttl must be positive, was " + ttl);
      }
      this.ttl = ttl;
      return this;
    }

    /**
     * Estimates a decoded value's level-1 weight in bytes, instead of encoding it with the region's codec (the
     * default). Must be cheap, non-negative and stable for a value.
     *
     * @param weigher returns the estimated size in bytes of a decoded value (the fixed entry overhead is added to it)
     * @return this builder
     * @throws NullPointerException if {@code weigher} is null
     * @throws IllegalStateException if already set
     */
    public final RegionBuilder<V> weigher(ToIntFunction<? super V> weigher) {
      if (this.weigher != null) {
        throw new IllegalStateException("weigher was already set");
      }
      this.weigher = Objects.requireNonNull(weigher, "weigher");
      return this;
    }

    /** @return the TTL set, or null */
    protected final Duration ttlOrNull() {
      return ttl;
    }

    /** @return the weigher set, or null */
    protected final ToIntFunction<? super V> weigherOrNull() {
      return weigher;
    }

    /**
     * Creates the region.
     *
     * @param <K> the key type
     * @return a new, empty region of the cache
     */
    public abstract <K> CacheRegion<K, V> build();
  }
}
