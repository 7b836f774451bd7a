package io.epochal.store.rocksdb.internal;

import io.epochal.store.table.TableKey;
import java.io.ByteArrayOutputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Order-preserving binary encoding of a table key, so that RocksDB's default bytewise comparator sorts rows in the
 * order YTsaurus sorts the same key in a sorted dynamic table.
 *
 * <p>Each key column is written as a one-byte tag followed by its payload; the encodings of the columns are
 * concatenated. Every column's encoding is prefix-free, so the unsigned lexicographic order of the concatenation is
 * the lexicographic order of the typed tuples. Tags are YTsaurus' {@code EValueType} codes, so a null value (tag
 * {@code 0x02}) sorts before every non-null value of the column, as in YTsaurus:
 * <ul>
 *   <li>{@link Kind#INT64} (tag {@code 0x03}): the value with its sign bit flipped, 8 bytes big-endian;</li>
 *   <li>{@link Kind#UINT64} (tag {@code 0x04}): 8 bytes big-endian, read as unsigned;</li>
 *   <li>{@link Kind#DOUBLE} (tag {@code 0x05}): the standard order-preserving transform of
 *       {@link Double#doubleToLongBits} (negative: all bits flipped; positive: sign bit flipped), 8 bytes
 *       big-endian; the resulting order is {@link Double#compare} (so {@code -0.0 < 0.0} and NaN sorts last; all
 *       NaNs collapse to the canonical NaN);</li>
 *   <li>{@link Kind#BOOLEAN} (tag {@code 0x06}): one byte, {@code 0} or {@code 1};</li>
 *   <li>{@link Kind#STRING} (UTF-8 bytes) and {@link Kind#BYTES} (tag {@code 0x10}): the bytes with every
 *       {@code 0x00} escaped as {@code 0x00 0xFF}, then the terminator {@code 0x00 0x01}; this keeps the unsigned
 *       byte order of the raw bytes (YTsaurus compares strings as bytes, so strings are ordered by their UTF-8
 *       bytes, not by {@link String#compareTo}).</li>
 * </ul>
 *
 * <p>Stateless and thread-safe. The format is part of the on-disk format version of the RocksDB store.
 */
public final class KeyEncoding {
  /** YTsaurus {@code EValueType::Null}. */
  static final byte TAG_NULL = 0x02;
  static final byte TAG_INT64 = 0x03;
  static final byte TAG_UINT64 = 0x04;
  static final byte TAG_DOUBLE = 0x05;
  static final byte TAG_BOOLEAN = 0x06;
  static final byte TAG_STRING = 0x10;

  /** The value types a key column may have, with their Java representation. */
  public enum Kind {
    /** {@link Long}, compared signed. */
    INT64(TAG_INT64),
    /** {@link Long} holding the 64 bits of an unsigned value, compared unsigned. */
    UINT64(TAG_UINT64),
    /** {@link Double}, compared as {@link Double#compare}. */
    DOUBLE(TAG_DOUBLE),
    /** {@link Boolean}, {@code false < true}. */
    BOOLEAN(TAG_BOOLEAN),
    /** {@link String}, compared by its UTF-8 bytes. */
    STRING(TAG_STRING),
    /** {@code byte[]}, compared as unsigned bytes. */
    BYTES(TAG_STRING);

    final byte tag;

    Kind(byte tag) {
      this.tag = tag;
    }
  }

  private KeyEncoding() {
  }

  /**
   * Encodes a key.
   *
   * @param kinds the kinds of the key columns, in order
   * @param values the values, one per kind; {@code null} elements allowed
   * @return the encoding
   * @throws IllegalArgumentException if the counts differ or a value does not have its column's Java type
   */
  public static byte[] encode(List<Kind> kinds, Object[] values) {
    if (kinds.size() != values.length) {
      throw new IllegalArgumentException("key has " + values.length + " values for " + kinds.size() + " columns");
    }
    Out out = new Out(16 + 12 * values.length);
    for (int i = 0; i < values.length; i++) {
      write(out, kinds.get(i), values[i], i);
    }
    return out.toByteArray();
  }

  /**
   * Encodes a table key, its hash then its parts: the same bytes as {@link #encode(List, Object[])} of
   * {@code [hash, parts...]}, without boxing the hash; a key of one string part is written straight into an array of
   * its exact size.
   *
   * @param kinds the kinds of the key columns, in order, the hash column's first
   * @param key the table key
   * @return the encoding
   * @throws IllegalArgumentException if the counts differ or a value does not have its column's Java type
   */
  public static byte[] encode(List<Kind> kinds, TableKey key) {
    Kind head = kinds.get(0);
    int n = key.size();
    if (kinds.size() != n + 1 || (head != Kind.INT64 && head != Kind.UINT64)) {
      Object[] values = new Object[n + 1];
      values[0] = key.hash();
      for (int i = 0; i < n; i++) {
        values[i + 1] = key.get(i);
      }
      return encode(kinds, values);
    }
    long bits = head == Kind.INT64 ? key.hash() ^ Long.MIN_VALUE : key.hash();
    if (n == 1 && kinds.get(1) == Kind.STRING && key.get(0) instanceof String s) {
      byte[] raw = s.getBytes(StandardCharsets.UTF_8);
      int zeros = 0;
      for (byte x : raw) {
        if (x == 0) {
          zeros++;
        }
      }
      byte[] out = new byte[1 + 8 + 1 + raw.length + zeros + 2];
      out[0] = head.tag;
      for (int i = 8; i >= 1; i--) {
        out[i] = (byte) bits;
        bits >>>= 8;
      }
      out[9] = Kind.STRING.tag;
      int at = 10;
      if (zeros == 0) {
        System.arraycopy(raw, 0, out, at, raw.length);
        at += raw.length;
      } else {
        for (byte x : raw) {
          out[at++] = x;
          if (x == 0) {
            out[at++] = (byte) 0xff;
          }
        }
      }
      out[at++] = 0;
      out[at] = 1;
      return out;
    }
    Out out = new Out(16 + 12 * kinds.size());
    out.write(head.tag);
    out.writeLong(bits);
    for (int i = 0; i < n; i++) {
      write(out, kinds.get(i + 1), key.get(i), i + 1);
    }
    return out.toByteArray();
  }

  /**
   * Decodes a key written by {@link #encode}.
   *
   * @param kinds the kinds of the key columns, in order, as given to {@link #encode}
   * @param bytes the encoding; all of it must be consumed
   * @return the values, one per kind
   * @throws IllegalArgumentException if the bytes are not a complete encoding of a key of these kinds
   */
  public static Object[] decode(List<Kind> kinds, byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    Object[] values = new Object[kinds.size()];
    int[] pos = {0};
    for (int i = 0; i < values.length; i++) {
      values[i] = read(bytes, pos, kinds.get(i), i);
    }
    if (pos[0] != bytes.length) {
      throw new IllegalArgumentException("key encoding has " + (bytes.length - pos[0]) + " trailing bytes");
    }
    return values;
  }

  private static void write(Out out, Kind kind, Object value, int column) {
    if (value == null) {
      out.write(TAG_NULL);
      return;
    }
    out.write(kind.tag);
    switch (kind) {
      case INT64 -> out.writeLong(asLong(value, kind, column) ^ Long.MIN_VALUE);
      case UINT64 -> out.writeLong(asLong(value, kind, column));
      case DOUBLE -> {
        if (!(value instanceof Double d)) {
          throw wrongType(kind, value, column);
        }
        out.writeLong(orderedDoubleBits(d));
      }
      case BOOLEAN -> {
        if (!(value instanceof Boolean b)) {
          throw wrongType(kind, value, column);
        }
        out.write(b ? 1 : 0);
      }
      case STRING -> {
        if (!(value instanceof String s)) {
          throw wrongType(kind, value, column);
        }
        writeEscaped(out, s.getBytes(StandardCharsets.UTF_8));
      }
      case BYTES -> {
        if (!(value instanceof byte[] b)) {
          throw wrongType(kind, value, column);
        }
        writeEscaped(out, b);
      }
      default -> throw new AssertionError(kind);
    }
  }

  private static Object read(byte[] b, int[] pos, Kind kind, int column) {
    if (pos[0] >= b.length) {
      throw new IllegalArgumentException("key encoding ends before column " + column);
    }
    byte tag = b[pos[0]++];
    if (tag == TAG_NULL) {
      return null;
    }
    if (tag != kind.tag) {
      throw new IllegalArgumentException("key column " + column + " has tag 0x" + Integer.toHexString(tag & 0xff)
          + ", expected 0x" + Integer.toHexString(kind.tag) + " (" + kind + ")");
    }
    switch (kind) {
      case INT64:
        return readLong(b, pos, column) ^ Long.MIN_VALUE;
      case UINT64:
        return readLong(b, pos, column);
      case DOUBLE:
        return Double.longBitsToDouble(fromOrderedDoubleBits(readLong(b, pos, column)));
      case BOOLEAN: {
        if (pos[0] >= b.length || (b[pos[0]] & 0xfe) != 0) {
          throw new IllegalArgumentException("key column " + column + " is not a boolean");
        }
        return b[pos[0]++] == 1;
      }
      case STRING: {
        byte[] raw = readEscaped(b, pos, column);
        try {
          return StandardCharsets.UTF_8.newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(java.nio.ByteBuffer.wrap(raw)).toString();
        } catch (CharacterCodingException e) {
          throw new IllegalArgumentException("key column " + column + " is not valid UTF-8", e);
        }
      }
      case BYTES:
        return readEscaped(b, pos, column);
      default:
        throw new AssertionError(kind);
    }
  }

  /** The standard order-preserving transform: unsigned order of the result equals {@link Double#compare}. */
  static long orderedDoubleBits(double d) {
    long bits = Double.doubleToLongBits(d);
    return bits < 0 ? ~bits : bits ^ Long.MIN_VALUE;
  }

  static long fromOrderedDoubleBits(long ordered) {
    return ordered < 0 ? ordered ^ Long.MIN_VALUE : ~ordered;
  }

  private static void writeEscaped(Out out, byte[] raw) {
    for (byte x : raw) {
      out.write(x);
      if (x == 0) {
        out.write(0xff);
      }
    }
    out.write(0);
    out.write(1);
  }

  private static byte[] readEscaped(byte[] b, int[] pos, int column) {
    ByteArrayOutputStream raw = new ByteArrayOutputStream();
    int i = pos[0];
    while (true) {
      if (i >= b.length) {
        throw new IllegalArgumentException("key column " + column + " has no string terminator");
      }
      byte x = b[i++];
      if (x != 0) {
        raw.write(x);
        continue;
      }
      if (i >= b.length) {
        throw new IllegalArgumentException("key column " + column + " ends inside an escape");
      }
      byte next = b[i++];
      if (next == 1) {
        break;
      } else if (next == (byte) 0xff) {
        raw.write(0);
      } else {
        throw new IllegalArgumentException("key column " + column + " has an invalid escape 0x00 0x"
            + Integer.toHexString(next & 0xff));
      }
    }
    pos[0] = i;
    return raw.toByteArray();
  }

  private static long readLong(byte[] b, int[] pos, int column) {
    if (pos[0] + 8 > b.length) {
      throw new IllegalArgumentException("key column " + column + " is truncated");
    }
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (b[pos[0]++] & 0xffL);
    }
    return v;
  }

  private static long asLong(Object value, Kind kind, int column) {
    if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
      return ((Number) value).longValue();
    }
    throw wrongType(kind, value, column);
  }

  private static IllegalArgumentException wrongType(Kind kind, Object value, int column) {
    return new IllegalArgumentException("key column " + column + " is " + kind + " but the value is a "
        + value.getClass().getName());
  }

  /**
   * Compares two keys of the given kinds in YTsaurus order (null first; see the class documentation). The
   * reference order that {@link #encode} preserves.
   *
   * @param kinds the kinds of the key columns, in order
   * @param a the first key's values, one per kind, each of its kind's Java type or null
   * @param b the second key's values, likewise
   * @return a negative number, zero or a positive number as {@code a} sorts before, equal to or after {@code b}
   */
  public static int compareTyped(List<Kind> kinds, Object[] a, Object[] b) {
    for (int i = 0; i < kinds.size(); i++) {
      Object x = a[i];
      Object y = b[i];
      int c;
      if (x == null || y == null) {
        c = x == null ? (y == null ? 0 : -1) : 1;
      } else {
        c = switch (kinds.get(i)) {
          case INT64 -> Long.compare(((Number) x).longValue(), ((Number) y).longValue());
          case UINT64 -> Long.compareUnsigned(((Number) x).longValue(), ((Number) y).longValue());
          case DOUBLE -> Double.compare((Double) x, (Double) y);
          case BOOLEAN -> Boolean.compare((Boolean) x, (Boolean) y);
          case STRING -> Arrays.compareUnsigned(((String) x).getBytes(StandardCharsets.UTF_8),
              ((String) y).getBytes(StandardCharsets.UTF_8));
          case BYTES -> Arrays.compareUnsigned((byte[]) x, (byte[]) y);
        };
      }
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  /** A growable byte buffer without synchronization. */
  static final class Out {
    private byte[] buf;
    private int size;

    Out(int capacity) {
      buf = new byte[Math.max(capacity, 8)];
    }

    void write(int b) {
      ensure(1);
      buf[size++] = (byte) b;
    }

    void writeLong(long v) {
      ensure(8);
      for (int i = 7; i >= 0; i--) {
        buf[size + i] = (byte) v;
        v >>>= 8;
      }
      size += 8;
    }

    void write(byte[] b) {
      ensure(b.length);
      System.arraycopy(b, 0, buf, size, b.length);
      size += b.length;
    }

    void writeVarLong(long v) {
      ensure(10);
      while ((v & ~0x7fL) != 0) {
        buf[size++] = (byte) ((v & 0x7f) | 0x80);
        v >>>= 7;
      }
      buf[size++] = (byte) v;
    }

    private void ensure(int n) {
      if (size + n > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + n));
      }
    }

    /** @return the internal buffer (valid up to {@link #size()}); do not keep */
    byte[] bytes() {
      return buf;
    }

    int size() {
      return size;
    }

    byte[] toByteArray() {
      return size == buf.length ? buf : Arrays.copyOf(buf, size);
    }
  }
}
