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

  /**
   * Computes partitions of many keys with a reusable buffer: an ASCII {@code String} key is hashed from its bytes
   * copied into the buffer, without the UTF-8 array {@link FarmHash#farmHash(String)} allocates per call; every other
   * key goes through {@link #partition(Object, int)}. Same results and exceptions. Not thread-safe: one per loop.
   */
  public static final class Hasher {
    private static final long SEED = 0xdeadc0deL; // FarmHash's farm_hash seed
    private static final long K_MUL = 0x9ddfea08eb382d69L; // FarmHash's kMul
    private byte[] buffer = new byte[64];

    /** Same as {@link KeyPartitioner#partition(Object, int)}. */
    public int partition(Object key, int partitions) {
      if (partitions == 1 || !(key instanceof String s)) {
        return KeyPartitioner.partition(key, partitions);
      }
      return FarmHash.partition(hash(s), partitions);
    }

    /** Same as {@link FarmHash#farmHash(String)}. */
    @SuppressWarnings("deprecation") // String.getBytes(int, int, byte[], int): the low byte of each (ASCII) char
    public long hash(String s) {
      int n = s.length();
      for (int i = 0; i < n; i++) {
        if (s.charAt(i) >= 0x80) {
          return FarmHash.farmHash(s); // non-ASCII: the UTF-8 encoding differs from the chars
        }
      }
      if (buffer.length < n) {
        buffer = new byte[Math.max(n, 2 * buffer.length)];
      }
      s.getBytes(0, n, buffer, 0); // ASCII: one byte per char, as in UTF-8
      return fingerprint128(SEED, FarmHash.fingerprint64(buffer, 0, n)) ^ 1L;
    }

    /** FarmHash {@code Fingerprint(uint128)}, as in {@link FarmHash}. */
    private static long fingerprint128(long lo, long hi) {
      long a = (lo ^ hi) * K_MUL;
      a ^= a >>> 47;
      long b = (hi ^ a) * K_MUL;
      b ^= b >>> 44;
      b *= K_MUL;
      b ^= b >>> 41;
      b *= K_MUL;
      return b;
    }
  }

  /** The partition of {@code key} among {@code partitions}. */
  public static int partition(Object key, int partitions) {
    if (partitions == 1 && isScalar(key)) {
      return 0; // a supported scalar key: nothing to check, nothing to hash
    }
    long h = hash(key);
    return partitions == 1 ? 0 : FarmHash.partition(h, partitions);
  }

  /** Whether {@code key} is one of the supported non-composite types (for which {@link #hash} cannot throw). */
  private static boolean isScalar(Object key) {
    return key instanceof String || key instanceof Long || key instanceof Integer || key instanceof Short
        || key instanceof Byte || key instanceof Boolean || key instanceof Double || key instanceof byte[];
  }
}
