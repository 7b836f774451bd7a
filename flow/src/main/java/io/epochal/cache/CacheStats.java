package io.epochal.cache;

import io.epochal.api.Evolving;

/**
 * A snapshot of a {@link StateCache}'s counters and sizes since it was built. Counters are read one by one without a
 * global lock, so a snapshot taken under load is approximate (each counter is exact, their sum may be a moment apart).
 *
 * <p>How a lookup is counted: a key found in the uncompressed level is one {@code uncompressed.hits}; otherwise one
 * {@code uncompressed.misses}, and the compressed level is consulted: one {@code compressed.hits} (the entry is
 * decompressed and promoted, one {@link #promotions}) or one {@code compressed.misses}. Hence
 * {@code compressed.hits + compressed.misses <= uncompressed.misses}.
 *
 * @param uncompressed level 1: decoded objects
 * @param compressed level 2: LZ4-compressed serialized bytes
 * @param promotions entries moved from level 2 to level 1 on a hit
 * @param demotions entries moved from level 1 to level 2 when level 1 evicted them for size
 * @param expirations entries dropped (from either level) because their TTL passed
 * @since 0.1.0
 */
@Evolving
public record CacheStats(Level uncompressed, Level compressed, long promotions, long demotions, long expirations) {

  /**
   * The counters of one level.
   *
   * @param hits lookups answered by this level
   * @param misses lookups this level could not answer
   * @param evictions entries this level dropped to stay within its weight bound (level 1 demotes them to level 2)
   * @param weightedSize the current total weight in bytes (estimated for level 1, exact bytes plus a fixed
   *     per-entry overhead for level 2)
   * @param maximumWeight the configured bound in bytes
   * @param entries the current number of entries (including entries not yet swept after expiry or invalidation)
   */
  public record Level(long hits, long misses, long evictions, long weightedSize, long maximumWeight, long entries) {

    /** @return {@code hits / (hits + misses)}, or 0 when there was no lookup */
    public double hitRate() {
      long total = hits + misses;
      return total == 0 ? 0.0 : (double) hits / total;
    }
  }
}
