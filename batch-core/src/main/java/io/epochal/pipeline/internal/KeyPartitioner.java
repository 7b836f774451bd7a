package io.epochal.pipeline.internal;

import io.epochal.errors.InvalidRecordException;
import io.epochal.hash.FarmHash;
import io.epochal.pipeline.Bytes;
import io.epochal.state.internal.ValueKeys;
import java.util.List;

/**
 * Maps a key to its partition: the one of {@code partitions} equal contiguous ranges of hashes that holds
 * {@code farm_hash(key)} ({@link FarmHash#partition}), where {@code farm_hash} is YTsaurus' function, so that a
 * group-by partition owns one key range of each state table (tablets, RocksDB key space). Supported key types:
 * {@link String} (hashed as UTF-8), integral numbers (int64), {@link Boolean}, {@link Double}, {@link Bytes} (hashed
 * as its bytes, like a YTsaurus {@code string}), and a {@link List} of those (a composite key, hashed as
 * {@code farm_hash(k1, k2, ...)}).
 *
 * <p>Refused with {@link InvalidRecordException} (not retryable: the same record fails again): a null key or key part,
 * an array key such as {@code byte[]} (identity equality: two arrays with the same bytes would be two keys; the message
 * offers {@link Bytes}), any other unsupported type, and a string with an unpaired surrogate (it has no UTF-8 form, so
 * no store can hold it and its hash would collide with the string that has {@code '?'} in its place).
 */
public final class KeyPartitioner {
  private static final String SUPPORTED = "use a String, a long, a boolean, a double, io.epochal.pipeline.Bytes "
      + "(Bytes.of(array) for bytes) or a List of those";

  private KeyPartitioner() {
  }

  /**
   * The {@code farm_hash} of a key, as {@code io.epochal.pipeline.Partitioner#hash} documents it.
   *
   * @param key a key of a supported type
   * @return {@code farm_hash(key)}
   * @throws InvalidRecordException for a null key or an unsupported key type
   */
  public static long hash(Object key) {
    if (key instanceof String s) {
      return FarmHash.farmHash(requireEncodable(s));
    }
    if (key instanceof Long || key instanceof Integer || key instanceof Short || key instanceof Byte) {
      return FarmHash.farmHash(((Number) key).longValue());
    }
    if (key instanceof Boolean || key instanceof Double) {
      return FarmHash.farmHash(key);
    }
    if (key instanceof Bytes b) {
      return FarmHash.farmHash((Object) b.toByteArray());
    }
    if (key instanceof List<?> list) {
      Object[] parts = new Object[list.size()];
      int i = 0;
      for (Object part : list) {
        if (part == null || part instanceof List) {
          throw new InvalidRecordException("composite key " + list + " has a null or nested part");
        }
        parts[i++] = hashablePart(part, list);
      }
      return FarmHash.farmHash(parts);
    }
    throw unsupported(key, "key");
  }

  /**
   * Checks a key as {@link #hash} does, without hashing a scalar key (a composite key is hashed).
   *
   * @param key a key
   * @throws InvalidRecordException for exactly the keys {@link #hash} refuses, with the same message
   */
  public static void requireSupported(Object key) {
    if (key instanceof String s) {
      requireEncodable(s);
    } else if (!(key instanceof Long || key instanceof Integer || key instanceof Short || key instanceof Byte
        || key instanceof Boolean || key instanceof Double || key instanceof Bytes)) {
      hash(key); // a List is checked part by part; anything else is refused
    }
  }

  /** A part of a composite key as {@link FarmHash#farmHash(Object...)} takes it. */
  private static Object hashablePart(Object part, List<?> key) {
    if (part instanceof String s) {
      return requireEncodable(s);
    }
    if (part instanceof Long || part instanceof Integer || part instanceof Short || part instanceof Byte
        || part instanceof Boolean || part instanceof Double) {
      return part;
    }
    if (part instanceof Bytes b) {
      return b.toByteArray();
    }
    throw unsupported(part, "part of composite key " + ValueKeys.describe(key));
  }

  private static InvalidRecordException unsupported(Object key, String what) {
    if (key == null) {
      return new InvalidRecordException("null " + what);
    }
    String identity = ValueKeys.whyNotValueKey(key);
    if (identity != null) {
      return new InvalidRecordException(what + " " + ValueKeys.describe(key) + " refused: " + identity);
    }
    return new InvalidRecordException(what + " " + ValueKeys.describe(key) + " has unsupported type "
        + key.getClass().getName() + "; " + SUPPORTED);
  }

  /**
   * @return {@code s}
   * @throws InvalidRecordException if {@code s} holds an unpaired surrogate (no UTF-8 form)
   */
  static String requireEncodable(String s) {
    int bad = unpairedSurrogate(s);
    if (bad >= 0) {
      throw new InvalidRecordException("key " + escaped(s) + " holds an unpaired surrogate (\\u"
          + String.format("%04x", (int) s.charAt(bad)) + " at index " + bad + "), which has no UTF-8 form: no store can "
          + "hold it faithfully. Fix the key (e.g. decode the input as UTF-8 with replacement) or use Bytes");
    }
    return s;
  }

  /** @return the index of the first unpaired surrogate of {@code s}, or -1 */
  static int unpairedSurrogate(String s) {
    for (int i = 0, n = s.length(); i < n; i++) {
      char c = s.charAt(i);
      if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
        } else {
          return i;
        }
      }
    }
    return -1;
  }

  private static String escaped(String s) {
    StringBuilder sb = new StringBuilder("'");
    for (int i = 0, n = Math.min(s.length(), 200); i < n; i++) {
      char c = s.charAt(i);
      if (Character.isSurrogate(c) || Character.isISOControl(c)) {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
    }
    return sb.append(s.length() > 200 ? "...'" : "'").toString();
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

    /**
     * Same as {@link KeyPartitioner#partition(Object, int)}.
     *
     * @param key a key of a supported type
     * @param partitions the number of partitions, at least 1
     * @return the partition of {@code key} among {@code partitions}
     */
    public int partition(Object key, int partitions) {
      if (partitions == 1 || !(key instanceof String s)) {
        return KeyPartitioner.partition(key, partitions);
      }
      long h = asciiHash(s);
      return FarmHash.partition(h != NOT_ASCII ? h : FarmHash.farmHash(requireEncodable(s)), partitions);
    }

    /**
     * Same as {@link FarmHash#farmHash(String)} (no check of unpaired surrogates: {@link #partition} checks).
     *
     * @param s the string, not null
     * @return the farm_hash of {@code s}'s UTF-8 encoding
     */
    public long hash(String s) {
      long h = asciiHash(s);
      return h != NOT_ASCII ? h : FarmHash.farmHash(s); // non-ASCII: the UTF-8 encoding differs from the chars
    }

    /**
     * Marks a string that is not ASCII. An ASCII string whose hash happens to be this value only takes the slow path,
     * which gives the same hash.
     */
    private static final long NOT_ASCII = 0;

    /** The farm_hash of an ASCII string, or {@link #NOT_ASCII}. */
    @SuppressWarnings("deprecation") // String.getBytes(int, int, byte[], int): the low byte of each (ASCII) char
    private long asciiHash(String s) {
      int n = s.length();
      for (int i = 0; i < n; i++) {
        if (s.charAt(i) >= 0x80) {
          return NOT_ASCII;
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

  /**
   * The partition of {@code key} among {@code partitions}.
   *
   * @param key a key of a supported type
   * @param partitions the number of partitions, at least 1
   * @return the partition, in {@code [0, partitions)}
   * @throws InvalidRecordException for a key {@link #hash} refuses (whatever the partition count)
   */
  public static int partition(Object key, int partitions) {
    if (partitions == 1 && isScalar(key)) {
      return 0; // a supported scalar key that needs no check: nothing to hash
    }
    long h = hash(key);
    return partitions == 1 ? 0 : FarmHash.partition(h, partitions);
  }

  /** Whether {@code key} is a supported non-composite key for which {@link #hash} cannot throw. */
  private static boolean isScalar(Object key) {
    if (key instanceof String s) {
      return unpairedSurrogate(s) < 0;
    }
    return key instanceof Long || key instanceof Integer || key instanceof Short || key instanceof Byte
        || key instanceof Boolean || key instanceof Double || key instanceof Bytes;
  }
}
