package io.epochal.cache.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Policy;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.epochal.cache.CacheRegion;
import io.epochal.cache.CacheStats;
import io.epochal.cache.StateCache;
import io.epochal.cache.Ticker;
import io.epochal.codec.Codec;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link StateCache}: two Caffeine caches bounded by weight.
 *
 * <p>Consistency of one key across the levels: every mutation of a key (put, invalidate, promotion) runs inside
 * level 1's {@code compute} for that key, and level 1's eviction listener (demotion) runs inside Caffeine's atomic
 * removal of the key, which holds the same per-key lock. Level 2 is only touched from there (or by its own
 * eviction), so the two levels never disagree about a key: locks are always taken level 1 first, then level 2.
 *
 * <p>Region-wide invalidation bumps the region's generation: entries carry the generation they were put under, and
 * an entry of an older generation is a miss wherever it is (then the region's entries are also removed eagerly to
 * free their weight). Expiry is checked on every read against the injected ticker, and Caffeine's variable expiry
 * (same ticker) sweeps expired entries.
 *
 * <p>Internal: not an API. Construct through {@link StateCache#builder()}.
 */
public final class TwoLevelStateCache implements StateCache {
  private static final Logger LOG = LoggerFactory.getLogger(TwoLevelStateCache.class);

  /** Estimated bytes of an entry besides its value: key reference, node, entry object, headers. */
  static final int ENTRY_OVERHEAD = 64;
  /** The value of a key cached as having no row. */
  private static final Object MISSING = new Object() {
    @Override
    public String toString() {
      return "<missing>";
    }
  };
  private static final long NEVER = Long.MAX_VALUE;

  private final long uncompressedMax;
  private final long compressedMax;
  private final Ticker ticker;
  private final Cache<Key, Hot> hot;
  private final Cache<Key, Cold> cold;

  private final LongAdder hotHits = new LongAdder();
  private final LongAdder hotMisses = new LongAdder();
  private final LongAdder hotEvictions = new LongAdder();
  private final LongAdder coldHits = new LongAdder();
  private final LongAdder coldMisses = new LongAdder();
  private final LongAdder coldEvictions = new LongAdder();
  private final LongAdder promotions = new LongAdder();
  private final LongAdder demotions = new LongAdder();
  private final LongAdder expirations = new LongAdder();

  /**
   * Creates an empty cache; {@link StateCache.Builder#build()} validates the options and fills in the defaults.
   *
   * @param uncompressedMax the maximum weight of level 1 (decoded values), in bytes; 0 disables level 1
   * @param compressedMax the maximum weight of level 2 (compressed encodings), in bytes; 0 disables level 2
   * @param ticker the nanosecond clock that region TTLs are measured on, for both levels
   * @param executor runs both levels' maintenance (eviction, demotion, expiry); null for Caffeine's default,
   *     {@link java.util.concurrent.ForkJoinPool#commonPool()}
   * @throws NullPointerException if {@code ticker} is null
   */
  public TwoLevelStateCache(long uncompressedMax, long compressedMax, Ticker ticker, Executor executor) {
    this.uncompressedMax = uncompressedMax;
    this.compressedMax = compressedMax;
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    Caffeine<Object, Object> coldBuilder = Caffeine.newBuilder()
        .maximumWeight(compressedMax)
        .ticker(ticker::read);
    if (executor != null) {
      coldBuilder.executor(executor);
    }
    this.cold = coldBuilder
        .<Key, Cold>weigher((k, v) -> v.weight())
        .expireAfter(new TtlExpiry<Key, Cold>())
        .evictionListener((Key k, Cold v, RemovalCause cause) -> onColdEvicted(cause))
        .build();
    Caffeine<Object, Object> hotBuilder = Caffeine.newBuilder()
        .maximumWeight(uncompressedMax)
        .ticker(ticker::read);
    if (executor != null) {
      hotBuilder.executor(executor);
    }
    this.hot = hotBuilder
        .<Key, Hot>weigher((k, v) -> v.weight())
        .expireAfter(new TtlExpiry<Key, Hot>())
        .evictionListener(this::onHotEvicted)
        .build();
  }

  @Override
  public <V> RegionBuilder<V> newRegion(String name, Codec<V> codec) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(codec, "codec");
    return new RegionBuilder<>() {
      @Override
      public <K> CacheRegion<K, V> build() {
        Duration ttl = ttlOrNull();
        return new Region<>(name, codec, ttl, weigherOrNull());
      }
    };
  }

  @Override
  public CacheStats stats() {
    return new CacheStats(
        new CacheStats.Level(hotHits.sum(), hotMisses.sum(), hotEvictions.sum(), weightedSize(hot.policy()),
            uncompressedMax, hot.estimatedSize()),
        new CacheStats.Level(coldHits.sum(), coldMisses.sum(), coldEvictions.sum(), weightedSize(cold.policy()),
            compressedMax, cold.estimatedSize()),
        promotions.sum(), demotions.sum(), expirations.sum());
  }

  private static long weightedSize(Policy<?, ?> policy) {
    return policy.eviction().flatMap(e -> {
      java.util.OptionalLong w = e.weightedSize();
      return w.isPresent() ? Optional.of(w.getAsLong()) : Optional.empty();
    }).orElse(0L);
  }

  @Override
  public void cleanUp() {
    hot.cleanUp();
    cold.cleanUp();
  }

  @Override
  public long uncompressedCacheWeight() {
    return uncompressedMax;
  }

  @Override
  public long compressedCacheWeight() {
    return compressedMax;
  }

  @Override
  public String toString() {
    return "StateCache[uncompressed " + uncompressedMax + " B, compressed " + compressedMax + " B]";
  }

  // ------------------------------------------------------------------------------------------------ entries

  /** A cache key: the region (by identity) and the state key. */
  record Key(Region<?, ?> region, Object key) {
  }

  /** What both levels know of an entry: when it was put, under which generation of its region. */
  private interface Stamped {
    Region<?, ?> region();

    long putAt();

    long generation();

    int weight();
  }

  /** A level-1 entry: the decoded value, or {@link #MISSING}. */
  private record Hot(Region<?, ?> region, Object value, long putAt, long generation, int weight)
      implements Stamped {
  }

  /** A level-2 entry: the compressed encoding ({@code block == null} for a missing row). */
  private record Cold(Region<?, ?> region, byte[] block, int rawLength, boolean compressed, long putAt,
      long generation, int weight) implements Stamped {
  }

  /** Per-entry expiry at {@code putAt + ttl} of the entry's region, on the cache's ticker. */
  private static final class TtlExpiry<K, E extends Stamped> implements Expiry<K, E> {
    @Override
    public long expireAfterCreate(K key, E entry, long currentTime) {
      return remaining(entry, currentTime);
    }

    @Override
    public long expireAfterUpdate(K key, E entry, long currentTime, long currentDuration) {
      return remaining(entry, currentTime);
    }

    @Override
    public long expireAfterRead(K key, E entry, long currentTime, long currentDuration) {
      return currentDuration;
    }

    private static long remaining(Stamped entry, long now) {
      long ttl = entry.region().ttlNanos;
      if (ttl == NEVER) {
        return Long.MAX_VALUE;
      }
      return Math.max(0, ttl - (now - entry.putAt()));
    }
  }

  /** Whether the entry may be served at {@code now}: current generation and TTL not passed. */
  private static boolean valid(Stamped entry, long now) {
    Region<?, ?> region = entry.region();
    if (entry.generation() != region.generation.get()) {
      return false;
    }
    return region.ttlNanos == NEVER || now - entry.putAt() < region.ttlNanos;
  }

  private static int saturatedWeight(long bytes) {
    return (int) Math.min(Integer.MAX_VALUE, Math.max(0, bytes) + ENTRY_OVERHEAD);
  }

  // ------------------------------------------------------------------------------------------------ demotion

  /** Level 1 dropped {@code entry}: demote it when the drop was for size and it is still valid. */
  private void onHotEvicted(Key key, Hot entry, RemovalCause cause) {
    if (key == null || entry == null) {
      return;
    }
    if (cause == RemovalCause.EXPIRED) {
      expirations.increment();
      return;
    }
    if (cause != RemovalCause.SIZE) {
      return;
    }
    hotEvictions.increment();
    if (compressedMax == 0 || !valid(entry, ticker.read())) {
      return;
    }
    Cold demoted;
    try {
      demoted = compress(entry);
    } catch (RuntimeException e) {
      LOG.warn("state cache region '{}': cannot demote key {} ({}); dropping it", entry.region().name, key.key(),
          e.toString());
      return;
    }
    // Runs under level 1's lock of this key: no put or invalidate of the key can interleave.
    cold.put(key, demoted);
    demotions.increment();
  }

  private void onColdEvicted(RemovalCause cause) {
    if (cause == RemovalCause.EXPIRED) {
      expirations.increment();
    } else if (cause == RemovalCause.SIZE) {
      coldEvictions.increment();
    }
  }

  @SuppressWarnings("unchecked")
  private static Cold compress(Hot entry) {
    if (entry.value() == MISSING) {
      return new Cold(entry.region(), null, 0, false, entry.putAt(), entry.generation(), ENTRY_OVERHEAD);
    }
    Codec<Object> codec = (Codec<Object>) entry.region().codec;
    byte[] raw = codec.encode(entry.value());
    byte[] block = Lz4.compress(raw);
    boolean compressed = block.length < raw.length;
    byte[] stored = compressed ? block : raw;
    return new Cold(entry.region(), stored, raw.length, compressed, entry.putAt(), entry.generation(),
        saturatedWeight(stored.length));
  }

  /** Decodes a level-2 entry into a level-1 entry with the same stamps. */
  private static Hot decompress(Cold entry) {
    Region<?, ?> region = entry.region();
    if (entry.block() == null) {
      return new Hot(region, MISSING, entry.putAt(), entry.generation(), ENTRY_OVERHEAD);
    }
    byte[] raw = entry.compressed() ? Lz4.decompress(entry.block(), entry.rawLength()) : entry.block();
    Object value = region.codec.decode(raw);
    return new Hot(region, value, entry.putAt(), entry.generation(), region.weigh(value, raw.length));
  }

  // ------------------------------------------------------------------------------------------------ regions

  /** One state's share of the cache. */
  final class Region<K, V> implements CacheRegion<K, V> {
    final String name;
    final Codec<V> codec;
    final long ttlNanos;
    private final Duration ttl;
    private final ToIntFunction<? super V> weigher;
    final AtomicLong generation = new AtomicLong();

    Region(String name, Codec<V> codec, Duration ttl, ToIntFunction<? super V> weigher) {
      this.name = name;
      this.codec = codec;
      this.ttl = ttl;
      this.ttlNanos = ttl == null ? NEVER : saturatedNanos(ttl);
      this.weigher = weigher;
    }

    private static long saturatedNanos(Duration d) {
      try {
        return d.toNanos();
      } catch (ArithmeticException e) {
        return NEVER;
      }
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public Optional<Duration> ttl() {
      return Optional.ofNullable(ttl);
    }

    @Override
    public StateCache cache() {
      return TwoLevelStateCache.this;
    }

    /** The level-1 weight of {@code value}, whose encoding is {@code encodedLength} bytes (-1: unknown). */
    @SuppressWarnings("unchecked")
    int weigh(Object value, int encodedLength) {
      if (weigher != null) {
        return saturatedWeight(weigher.applyAsInt((V) value));
      }
      int length = encodedLength >= 0 ? encodedLength : codec.encode((V) value).length;
      return saturatedWeight(length);
    }

    @Override
    public Map<K, Optional<V>> getAllPresent(Collection<? extends K> keys) {
      Objects.requireNonNull(keys, "keys");
      Map<K, Optional<V>> found = new LinkedHashMap<>();
      for (K key : keys) {
        Objects.requireNonNull(key, "key");
        if (found.containsKey(key)) {
          continue;
        }
        Hot entry = lookup(new Key(this, key));
        if (entry != null) {
          found.put(key, entry.value() == MISSING ? Optional.empty() : Optional.of(cast(entry.value())));
        }
      }
      return java.util.Collections.unmodifiableMap(found);
    }

    @SuppressWarnings("unchecked")
    private V cast(Object value) {
      return (V) value;
    }

    @Override
    public void put(K key, V value) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
      store(new Key(this, key), new Hot(this, value, ticker.read(), generation.get(), weigh(value, -1)));
    }

    @Override
    public void putMissing(K key) {
      Objects.requireNonNull(key, "key");
      store(new Key(this, key), new Hot(this, MISSING, ticker.read(), generation.get(), ENTRY_OVERHEAD));
    }

    @Override
    public void putAll(Map<? extends K, Optional<V>> loaded) {
      Objects.requireNonNull(loaded, "loaded");
      loaded.forEach((k, v) -> {
        Objects.requireNonNull(v, "value");
        if (v.isPresent()) {
          put(k, v.get());
        } else {
          putMissing(k);
        }
      });
    }

    @Override
    public void invalidate(K key) {
      Objects.requireNonNull(key, "key");
      hot.asMap().compute(new Key(this, key), (k, current) -> {
        cold.invalidate(k);
        return null;
      });
    }

    @Override
    public void invalidateAll() {
      generation.incrementAndGet();
      hot.asMap().keySet().removeIf(k -> k.region() == this);
      cold.asMap().keySet().removeIf(k -> k.region() == this);
    }

    @Override
    public String toString() {
      return "CacheRegion[" + name + (ttl == null ? "" : ", ttl " + ttl) + "]";
    }
  }

  /** Replaces the key's entry in level 1 and drops its level-2 entry, atomically for the key. */
  private void store(Key key, Hot entry) {
    hot.asMap().compute(key, (k, current) -> {
      cold.invalidate(k);
      return entry;
    });
  }

  /** The key's valid entry, promoting it from level 2 if needed; null on a miss. Counts hits and misses. */
  private Hot lookup(Key key) {
    long now = ticker.read();
    Hot entry = hot.getIfPresent(key);
    if (entry != null && valid(entry, now)) {
      hotHits.increment();
      return entry;
    }
    hotMisses.increment();
    Hot[] result = new Hot[1];
    hot.asMap().compute(key, (k, current) -> {
      if (current != null && valid(current, now)) {
        result[0] = current; // put concurrently since the fast path looked
        return current;
      }
      Cold demoted = cold.asMap().remove(k);
      if (demoted == null || !valid(demoted, now)) {
        coldMisses.increment();
        if (demoted != null && demoted.generation() == k.region().generation.get()) {
          expirations.increment();
        }
        return null;
      }
      try {
        result[0] = decompress(demoted);
      } catch (RuntimeException e) {
        LOG.warn("state cache region '{}': cannot promote key {} ({}); dropping it", k.region().name, k.key(),
            e.toString());
        coldMisses.increment();
        return null;
      }
      coldHits.increment();
      promotions.increment();
      return result[0];
    });
    return result[0];
  }
}
