package io.epochal.hash;

import io.epochal.api.Stable;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * YTsaurus' {@code farm_hash} query function, reproduced bit for bit, plus the FarmHash primitives it is built on.
 *
 * <p>Per value {@code v} a fingerprint {@code fp(v)} is computed:
 * <ul>
 *   <li>{@link String}: {@link #fingerprint64(byte[]) Fingerprint64} of its UTF-8 bytes;</li>
 *   <li>{@code byte[]}: Fingerprint64 of the raw bytes;</li>
 *   <li>{@link Long}, {@link Integer}, {@link Short}, {@link Byte} (YTsaurus {@code int64}; also how an
 *       {@code uint64} is passed, as its 64-bit two's-complement pattern): {@link #fingerprint(long)} of the value
 *       widened to 64 bits;</li>
 *   <li>{@link Double}: {@link #fingerprint(long)} of {@link Double#doubleToRawLongBits(double)};</li>
 *   <li>{@link Boolean}: {@link #fingerprint(long)} of {@code 0} or {@code 1};</li>
 *   <li>{@code null} (YTsaurus {@code Null}): {@link #fingerprint(long) fingerprint(0)}.</li>
 * </ul>
 * Then {@code r = 0xdeadc0de}; for every value in order {@code r = Fingerprint128(lo = r, hi = fp(v))}; the result is
 * {@code r ^ n}, where {@code n} is the number of values. All arithmetic is modulo 2<sup>64</sup>.
 *
 * <p>Fingerprint64 is FarmHash's {@code farmhashna::Hash64} (the same function as Guava's
 * {@code Hashing.farmHashFingerprint64()}), implemented here without dependencies. Its output is fixed forever by
 * FarmHash's fingerprint guarantee, so hashes may be persisted and compared across processes and versions.
 *
 * <p>All methods are static, pure and thread-safe. The numeric and {@code byte[]} methods allocate nothing;
 * hashing a {@link String} allocates only its temporary UTF-8 encoding. There is no mutable state.
 *
 * @since 0.1.0
 */
@Stable
public final class FarmHash {

  private static final long K0 = 0xc3a5c85c97cb3127L;
  private static final long K1 = 0xb492b66fbe98f273L;
  private static final long K2 = 0x9ae16a3b2f90404fL;
  /** Multiplier of FarmHash's {@code Fingerprint(uint64)} and {@code Fingerprint(uint128)}. */
  private static final long K_MUL = 0x9ddfea08eb382d69L;
  /** Initial accumulator of YTsaurus' row fingerprint. */
  private static final long SEED = 0xdeadc0deL;

  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INT_LE =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private FarmHash() {
  }

  // ---------------------------------------------------------------------------------------------------------------
  // YTsaurus farm_hash

  /**
   * YTsaurus {@code farm_hash(values...)}: the combined fingerprint of the given values, in order.
   *
   * <p>Accepted element types are {@link String}, {@code byte[]}, {@link Long}, {@link Integer}, {@link Short},
   * {@link Byte}, {@link Double}, {@link Boolean} and {@code null} elements (YTsaurus {@code Null}); see the class
   * documentation for the per-type rule. An unsigned 64-bit value is passed as the {@code long} with the same bits.
   * Thread-safe; allocates nothing beyond the UTF-8 encoding of {@code String} elements.
   *
   * @param values the values of the row, in order; the array itself must not be {@code null} (to hash a single
   *     {@code null} value call {@code farmHash((Object) null)}); it is not modified or retained
   * @return the 64-bit hash; treat it as unsigned when comparing with YTsaurus output
   * @throws NullPointerException if {@code values} is {@code null}
   * @throws IllegalArgumentException if an element has an unsupported type; the message names the type
   */
  public static long farmHash(Object... values) {
    Objects.requireNonNull(values, "values (to hash a single null value call farmHash((Object) null))");
    long r = SEED;
    for (Object v : values) {
      r = fingerprint128(r, valueFingerprint(v));
    }
    return r ^ values.length;
  }

  /**
   * YTsaurus {@code farm_hash(value)} of one string, without the varargs array: equal to
   * {@code farmHash((Object) value)}. Thread-safe; allocates only the UTF-8 encoding of {@code value}.
   *
   * @param value the string; {@code null} is hashed as the YTsaurus {@code Null} value
   * @return the 64-bit hash
   */
  public static long farmHash(String value) {
    long fp = value == null ? fingerprint(0L) : fingerprint64(value.getBytes(StandardCharsets.UTF_8));
    return fingerprint128(SEED, fp) ^ 1L;
  }

  /**
   * YTsaurus {@code farm_hash(value)} of one {@code int64} (or {@code uint64} with the same bits), without the
   * varargs array or boxing: equal to {@code farmHash((Object) value)}. Thread-safe; allocates nothing.
   *
   * @param value the value; for an unsigned 64-bit value pass its two's-complement bit pattern
   * @return the 64-bit hash
   */
  public static long farmHash(long value) {
    return fingerprint128(SEED, fingerprint(value)) ^ 1L;
  }

  /**
   * Partition of a key: the contiguous range of hashes it falls in when the unsigned 64-bit hash space is cut into
   * {@code numPartitions} equal ranges, i.e. the high 64 bits of the unsigned 128-bit product
   * {@code hash × numPartitions} ({@code floor(hash × n / 2^64)}). Partition {@code p} owns the hashes
   * {@code [ceil(p × 2^64 / n), ceil((p + 1) × 2^64 / n))}. With {@code hash = farmHash(key...)}, the {@code hash}
   * column that leads every state table's key, a partition owns one contiguous range of each table, so it works with
   * a bounded set of uniformly resharded tablets (YTsaurus Flow partitions by the same key prefix) and a bounded
   * range of a RocksDB key space. Thread-safe; allocates nothing.
   *
   * @param hash a hash, usually from {@link #farmHash(Object...)}
   * @param numPartitions the number of partitions, at least 1
   * @return a partition in {@code [0, numPartitions)}, non-decreasing in {@code hash} read unsigned
   * @throws IllegalArgumentException if {@code numPartitions < 1}
   */
  public static int partition(long hash, int numPartitions) {
    if (numPartitions < 1) {
      throw new IllegalArgumentException("numPartitions must be at least 1, got " + numPartitions);
    }
    // unsigned multiply-high (Math.unsignedMultiplyHigh is Java 18+): n > 0, so only the hash's sign needs fixing
    return (int) (Math.multiplyHigh(hash, numPartitions) + ((hash >> 63) & numPartitions));
  }

  private static long valueFingerprint(Object v) {
    if (v == null) {
      return fingerprint(0L);
    } else if (v instanceof String) {
      return fingerprint64(((String) v).getBytes(StandardCharsets.UTF_8));
    } else if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return fingerprint(((Number) v).longValue());
    } else if (v instanceof byte[]) {
      return fingerprint64((byte[]) v);
    } else if (v instanceof Boolean) {
      return fingerprint(((Boolean) v) ? 1L : 0L);
    } else if (v instanceof Double) {
      return fingerprint(Double.doubleToRawLongBits((Double) v));
    }
    throw new IllegalArgumentException("farm_hash does not support values of type " + v.getClass().getName()
        + "; supported: String, byte[], Long, Integer, Short, Byte, Double, Boolean and null");
  }

  // ---------------------------------------------------------------------------------------------------------------
  // FarmHash primitives

  /**
   * FarmHash {@code Fingerprint(uint64 x)}: a fixed bijective mix of the 64 bits of {@code x}. Thread-safe;
   * allocates nothing.
   *
   * @param x the value (read as unsigned; only its bits matter)
   * @return the fingerprint
   */
  public static long fingerprint(long x) {
    long b = x * K_MUL;
    b ^= b >>> 44;
    b *= K_MUL;
    b ^= b >>> 41;
    b *= K_MUL;
    return b;
  }

  /** FarmHash {@code Fingerprint(uint128)} with the given low and high halves. */
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

  /**
   * FarmHash {@code Fingerprint64} ({@code farmhashna::Hash64}, equal to Guava's
   * {@code Hashing.farmHashFingerprint64()}) of all of {@code bytes}. Thread-safe; allocates nothing; does not
   * modify {@code bytes}.
   *
   * @param bytes the input, not {@code null}
   * @return the fingerprint, e.g. {@code -2427165924636348523L} for the UTF-8 bytes of {@code "alphabet"}
   * @throws NullPointerException if {@code bytes} is {@code null}
   */
  public static long fingerprint64(byte[] bytes) {
    return hash64(bytes, 0, bytes.length);
  }

  /**
   * FarmHash {@code Fingerprint64} of {@code bytes[offset, offset + length)}; equal to
   * {@code fingerprint64(Arrays.copyOfRange(bytes, offset, offset + length))}. Thread-safe; allocates nothing; does
   * not modify {@code bytes}.
   *
   * @param bytes the array holding the input, not {@code null}
   * @param offset index of the first byte
   * @param length number of bytes
   * @return the fingerprint
   * @throws NullPointerException if {@code bytes} is {@code null}
   * @throws IndexOutOfBoundsException if the range is not within {@code bytes}
   */
  public static long fingerprint64(byte[] bytes, int offset, int length) {
    Objects.checkFromIndexSize(offset, length, bytes.length);
    return hash64(bytes, offset, length);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // farmhashna::Hash64

  private static long fetch64(byte[] s, int i) {
    return (long) LONG_LE.get(s, i);
  }

  private static long fetch32(byte[] s, int i) {
    return ((int) INT_LE.get(s, i)) & 0xffffffffL;
  }

  private static long shiftMix(long v) {
    return v ^ (v >>> 47);
  }

  private static long hashLen16(long u, long v, long mul) {
    long a = (u ^ v) * mul;
    a ^= a >>> 47;
    long b = (v ^ a) * mul;
    b ^= b >>> 47;
    b *= mul;
    return b;
  }

  private static long hash64(byte[] s, int off, int len) {
    if (len <= 32) {
      return len <= 16 ? hashLen0to16(s, off, len) : hashLen17to32(s, off, len);
    } else if (len <= 64) {
      return hashLen33to64(s, off, len);
    }
    return hashLenOver64(s, off, len);
  }

  private static long hashLen0to16(byte[] s, int off, int len) {
    if (len >= 8) {
      long mul = K2 + len * 2L;
      long a = fetch64(s, off) + K2;
      long b = fetch64(s, off + len - 8);
      long c = Long.rotateRight(b, 37) * mul + a;
      long d = (Long.rotateRight(a, 25) + b) * mul;
      return hashLen16(c, d, mul);
    }
    if (len >= 4) {
      long mul = K2 + len * 2L;
      long a = fetch32(s, off);
      return hashLen16(len + (a << 3), fetch32(s, off + len - 4), mul);
    }
    if (len > 0) {
      int a = s[off] & 0xff;
      int b = s[off + (len >>> 1)] & 0xff;
      int c = s[off + len - 1] & 0xff;
      long y = a + (b << 8);
      long z = len + (c << 2);
      return shiftMix(y * K2 ^ z * K0) * K2;
    }
    return K2;
  }

  private static long hashLen17to32(byte[] s, int off, int len) {
    long mul = K2 + len * 2L;
    long a = fetch64(s, off) * K1;
    long b = fetch64(s, off + 8);
    long c = fetch64(s, off + len - 8) * mul;
    long d = fetch64(s, off + len - 16) * K2;
    return hashLen16(Long.rotateRight(a + b, 43) + Long.rotateRight(c, 30) + d,
        a + Long.rotateRight(b + K2, 18) + c, mul);
  }

  private static long hashLen33to64(byte[] s, int off, int len) {
    long mul = K2 + len * 2L;
    long a = fetch64(s, off) * K2;
    long b = fetch64(s, off + 8);
    long c = fetch64(s, off + len - 8) * mul;
    long d = fetch64(s, off + len - 16) * K2;
    long y = Long.rotateRight(a + b, 43) + Long.rotateRight(c, 30) + d;
    long z = hashLen16(y, a + Long.rotateRight(b + K2, 18) + c, mul);
    long e = fetch64(s, off + 16) * mul;
    long f = fetch64(s, off + 24);
    long g = (y + fetch64(s, off + len - 32)) * mul;
    long h = (z + fetch64(s, off + len - 24)) * mul;
    return hashLen16(Long.rotateRight(e + f, 43) + Long.rotateRight(g, 30) + h,
        e + Long.rotateRight(f + a, 18) + g, mul);
  }

  private static long hashLenOver64(byte[] s, int off, int len) {
    final long seed = 81;
    long x = seed;
    long y = seed * K1 + 113;
    long z = shiftMix(y * K2 + 113) * K2;
    long v1 = 0;
    long v2 = 0;
    long w1 = 0;
    long w2 = 0;
    x = x * K2 + fetch64(s, off);

    // Process 64-byte blocks; the final (possibly overlapping) 64 bytes are handled after the loop.
    int end = off + ((len - 1) / 64) * 64;
    int last64 = end + ((len - 1) & 63) - 63;
    int p = off;
    do {
      x = Long.rotateRight(x + y + v1 + fetch64(s, p + 8), 37) * K1;
      y = Long.rotateRight(y + v2 + fetch64(s, p + 48), 42) * K1;
      x ^= w2;
      y += v1 + fetch64(s, p + 40);
      z = Long.rotateRight(z + w1, 33) * K1;
      // v = WeakHashLen32WithSeeds(s + p, v2 * K1, x + w1)
      {
        long a = v2 * K1;
        long b = x + w1;
        long ww = fetch64(s, p);
        long xx = fetch64(s, p + 8);
        long yy = fetch64(s, p + 16);
        long zz = fetch64(s, p + 24);
        a += ww;
        b = Long.rotateRight(b + a + zz, 21);
        long c = a;
        a += xx;
        a += yy;
        b += Long.rotateRight(a, 44);
        v1 = a + zz;
        v2 = b + c;
      }
      // w = WeakHashLen32WithSeeds(s + p + 32, z + w2, y + fetch64(s + p + 16))
      {
        long a = z + w2;
        long b = y + fetch64(s, p + 16);
        long ww = fetch64(s, p + 32);
        long xx = fetch64(s, p + 40);
        long yy = fetch64(s, p + 48);
        long zz = fetch64(s, p + 56);
        a += ww;
        b = Long.rotateRight(b + a + zz, 21);
        long c = a;
        a += xx;
        a += yy;
        b += Long.rotateRight(a, 44);
        w1 = a + zz;
        w2 = b + c;
      }
      long t = z;
      z = x;
      x = t;
      p += 64;
    } while (p != end);

    long mul = K1 + ((z & 0xff) << 1);
    p = last64;
    w1 += ((len - 1) & 63);
    v1 += w1;
    w1 += v1;
    x = Long.rotateRight(x + y + v1 + fetch64(s, p + 8), 37) * mul;
    y = Long.rotateRight(y + v2 + fetch64(s, p + 48), 42) * mul;
    x ^= w2 * 9;
    y += v1 * 9 + fetch64(s, p + 40);
    z = Long.rotateRight(z + w1, 33) * mul;
    {
      long a = v2 * mul;
      long b = x + w1;
      long ww = fetch64(s, p);
      long xx = fetch64(s, p + 8);
      long yy = fetch64(s, p + 16);
      long zz = fetch64(s, p + 24);
      a += ww;
      b = Long.rotateRight(b + a + zz, 21);
      long c = a;
      a += xx;
      a += yy;
      b += Long.rotateRight(a, 44);
      v1 = a + zz;
      v2 = b + c;
    }
    {
      long a = z + w2;
      long b = y + fetch64(s, p + 16);
      long ww = fetch64(s, p + 32);
      long xx = fetch64(s, p + 40);
      long yy = fetch64(s, p + 48);
      long zz = fetch64(s, p + 56);
      a += ww;
      b = Long.rotateRight(b + a + zz, 21);
      long c = a;
      a += xx;
      a += yy;
      b += Long.rotateRight(a, 44);
      w1 = a + zz;
      w2 = b + c;
    }
    long t = z;
    z = x;
    x = t;
    return hashLen16(hashLen16(v1, w1, mul) + shiftMix(y) * K0 + z,
        hashLen16(v2, w2, mul) + x, mul);
  }
}
