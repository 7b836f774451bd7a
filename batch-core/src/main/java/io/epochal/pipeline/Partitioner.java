package io.epochal.pipeline;

import io.epochal.api.Stable;
import io.epochal.errors.InvalidRecordException;
import io.epochal.pipeline.internal.KeyPartitioner;

/**
 * The partitioning contract of every keyed node ({@code groupBy}, {@code persistentAggregate}, keyed processors,
 * partitioned sinks): key {@code k} goes to the partition whose range of hashes holds {@code farm_hash(k)}: the
 * unsigned 64-bit hash space is cut into {@code partitions} equal contiguous ranges, and {@code k} goes to
 * {@code floor(farm_hash(k) × partitions / 2^64)} ({@link io.epochal.hash.FarmHash#partition}), where
 * {@code farm_hash} is YTsaurus' function and the value of the {@code hash} column that leads every state table's key.
 * So one partition owns one contiguous key range of every state table (a bounded set of uniformly resharded tablets,
 * as YTsaurus Flow partitions by the same key prefix; a bounded range of a RocksDB key space). Earlier versions used
 * {@code farm_hash(k) mod partitions}: Flow timer tables written then are refused on open (their schema lacks the
 * {@code epochal.partitioning} attribute).
 *
 * <p>Supported keys: {@link String} (hashed as UTF-8), integral numbers (as int64), {@link Boolean}, {@link Double},
 * {@link Bytes} (hashed as its bytes, like a YTsaurus {@code string}), and a {@link java.util.List} of those (a
 * composite key, hashed as {@code farm_hash(k1, k2, ...)}). Refused with the non-retryable
 * {@link InvalidRecordException}: a null key or key part, an array key (identity equality), any other type, and a string
 * with an unpaired surrogate (it has no UTF-8 form).
 *
 * <p>Stateless and thread-safe.
 *
 * @since 0.3.0
 */
@Stable
public final class Partitioner {
  private Partitioner() {
  }

  /**
   * Hashes a key as every keyed node and state table does.
   *
   * @param key a key of a supported type (see above)
   * @return {@code farm_hash(key)}, the value of the {@code hash} column of the key's rows
   * @throws InvalidRecordException for a null key or an unsupported key type
   */
  public static long hash(Object key) {
    return KeyPartitioner.hash(key);
  }

  /**
   * The partition a key goes to: the one whose range of hashes holds {@code farm_hash(key)}.
   *
   * @param key a key of a supported type (see above)
   * @param partitions the number of partitions, at least 1
   * @return the partition of {@code key} among {@code partitions}, in {@code [0, partitions)}
   * @throws InvalidRecordException for a key {@link #hash} refuses (whatever the partition count)
   * @throws IllegalArgumentException if {@code partitions < 1}
   */
  public static int partition(Object key, int partitions) {
    return KeyPartitioner.partition(key, partitions);
  }

  /**
   * A partitioner with a reusable hashing buffer.
   *
   * @return a partitioner for a loop over many keys: same results and exceptions as {@link #partition}, faster for
   *     ASCII string keys (hashed from a reusable buffer instead of a new UTF-8 array per key)
   */
  public static Reusable reusable() {
    return new Reusable();
  }

  /**
   * {@link Partitioner#partition} with a reusable buffer, as the engine's {@code groupBy} runs it. Not thread-safe:
   * one instance per loop or thread.
   */
  public static final class Reusable {
    private final KeyPartitioner.Hasher hasher = new KeyPartitioner.Hasher();

    private Reusable() {
    }

    /**
     * The partition a key goes to, as {@link Partitioner#partition} computes it.
     *
     * @param key a key of a supported type
     * @param partitions the number of partitions, at least 1
     * @return the partition of {@code key} among {@code partitions}, as {@link Partitioner#partition}
     * @throws InvalidRecordException for a key {@link Partitioner#hash} refuses
     * @throws IllegalArgumentException if {@code partitions < 1}
     */
    public int partition(Object key, int partitions) {
      return hasher.partition(key, partitions);
    }
  }
}
