package io.epochal.cache;

import io.epochal.api.Evolving;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;

/**
 * One state's share of a {@link StateCache}: its keys live in the cache's two shared levels, its values are encoded
 * with its codec when they are demoted to the compressed level. Create one with {@link StateCache#newRegion}.
 *
 * <p>The cache stores <em>committed</em> state as seen by the owner of the region: a present value, or the knowledge
 * that the key has no row ({@link #putMissing}). Who puts what decides freshness:
 * <ul>
 *   <li>A read-write state (the single writer of its table) calls {@link #put}/{@link #putMissing} with what it
 *       wrote once its commit went through, and {@link #invalidateAll()} when a commit failed or was aborted. Its
 *       region is then never stale after its own commits.</li>
 *   <li>A joiner (a reader of someone else's table) puts what it loaded; its region has a TTL, after which an entry
 *       is a miss and is reloaded.</li>
 * </ul>
 *
 * <p>Thread-safe: every method may be called from any thread. Operations on one key are atomic across both levels
 * (a lookup never sees a value older than the last completed {@code put} or {@code invalidate} of that key).
 * Null keys and values are rejected with {@link NullPointerException}.
 *
 * @param <K> the key type; keys must have a stable {@code equals}/{@code hashCode}
 * @param <V> the value type
 * @since 0.1.0
 */
@Evolving
public interface CacheRegion<K, V> {

  /** @return the region's name (for stats and logs; names need not be unique) */
  String name();

  /** @return the time an entry stays valid after it was put, or empty when entries never expire */
  Optional<Duration> ttl();

  /**
   * Looks keys up, in both levels. A key found in the compressed level is decompressed and promoted.
   *
   * @param keys the keys; duplicates are looked up once
   * @return an unmodifiable map holding only the cached keys: a present value, or {@link Optional#empty()} for a key
   *     cached as having no row. Keys not cached (never put, evicted, expired, invalidated) are absent from the map.
   * @throws NullPointerException if {@code keys} or one of them is null
   */
  Map<K, Optional<V>> getAllPresent(Collection<? extends K> keys);

  /**
   * Caches the committed value of {@code key}, replacing anything cached for it in either level. The entry's TTL
   * (if the region has one) starts now.
   *
   * @param key the key whose committed value this is
   * @param value the value committed for {@code key}; kept decoded in level 1, encoded with the region's codec if it
   *     is demoted to level 2
   * @throws NullPointerException if {@code key} or {@code value} is null
   * @throws io.epochal.codec.CodecException if the region weighs values by their encoding and {@code value} cannot
   *     be encoded
   */
  void put(K key, V value);

  /**
   * Caches that {@code key} has no row (an empty state), replacing anything cached for it.
   *
   * @param key the key known to have no committed row; later lookups return {@link Optional#empty()} for it
   * @throws NullPointerException if {@code key} is null
   */
  void putMissing(K key);

  /**
   * Caches every entry of {@code loaded}: a present value as {@link #put}, an empty optional as {@link #putMissing}.
   *
   * @param loaded the committed state of each key, as read from the store: a value, or empty for a key with no row
   * @throws NullPointerException if {@code loaded}, one of its keys or values is null
   */
  void putAll(Map<? extends K, Optional<V>> loaded);

  /**
   * Drops {@code key} from both levels.
   *
   * @param key the key to forget; the next lookup of it is a miss (nothing happens if it is not cached)
   * @throws NullPointerException if {@code key} is null
   */
  void invalidate(K key);

  /**
   * Drops every entry of this region from both levels (a read-write state calls it when a commit failed). Entries
   * put concurrently with this call may or may not survive; entries put before it never do.
   */
  void invalidateAll();

  /** @return the cache this region belongs to */
  StateCache cache();
}
