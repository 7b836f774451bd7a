/**
 * The shared state cache. Entry point: {@link io.epochal.cache.StateCache#builder()}.
 *
 * <p>{@link io.epochal.cache.StateCache} is one two-level LRU (decoded objects, then LZ4-compressed bytes), both
 * levels bounded by weight in bytes, like YTsaurus Flow's {@code state_cache}. Each state gets a
 * {@link io.epochal.cache.CacheRegion} of it, optionally with a TTL (joiners); {@link io.epochal.cache.CacheStats}
 * reports hits, misses and evictions per level.
 */
package io.epochal.cache;
