package io.epochal.pipeline.internal;

import io.epochal.errors.InvalidRecordException;
import io.epochal.hash.FarmHash;
import java.util.List;

/**
 * Maps a key to its partition: {@code farm_hash(key) mod partitions} (unsigned), where {@code farm_hash} is
 * YTsaurus' function, so that group-by partitions line up with {@code hash}-sharded tablets. Supported key types:
 * {@link String}, integral numbers (int64), {@link Boolean}, {@link Double}, {@code byte[]}, and a {@link List} of
 * those (a composite key, hashed as {@code farm_hash(k1, k2, ...)}).
 */
public final class KeyPartitioner {
  private KeyPartitioner() {
  }

  /**
   * @throws InvalidRecordException for a null key or an unsupported key type
   */
  public static long hash(Object key) {
    if (key instanceof String s) {
      return FarmHash.farmHash(s);
    }
    if (key instanceof Long || key instanceof Integer || key instanceof Short || key instanceof Byte) {
      return FarmHash.farmHash(((Number) key).longValue());
    }
    if (key instanceof Boolean || key instanceof Double || key instanceof byte[]) {
      return FarmHash.farmHash(key);
    }
    if (key instanceof List<?> list) {
      for (Object part : list) {
        if (part == null || part instanceof List) {
          throw new InvalidRecordException("composite key " + list + " has a null or nested part");
        }
      }
      return FarmHash.farmHash(list.toArray());
    }
    if (key == null) {
      throw new InvalidRecordException("null key");
    }
    throw new InvalidRecordException("key " + key + " has unsupported type " + key.getClass().getName()
        + "; use String, long, boolean, double, byte[] or a List of those");
  }

  /** The partition of {@code key} among {@code partitions}. */
  public static int partition(Object key, int partitions) {
    long h = hash(key);
    return partitions == 1 ? 0 : FarmHash.partition(h, partitions);
  }
}
