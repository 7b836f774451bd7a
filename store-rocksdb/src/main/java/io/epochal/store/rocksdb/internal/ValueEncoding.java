package io.epochal.store.rocksdb.internal;

import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Compact encoding of a row's value columns. Two versions exist, told apart by the first byte:
 * <ul>
 *   <li>{@value #VERSION} (<i>checksummed</i>, written by this library): the version byte, one tagged cell per value
 *       column (below), then a 4-byte big-endian CRC32C over the table's path, the encoded key and every preceding
 *       byte of the value (version byte and cells). Any change of a stored cell (a flipped bit, a value moved to
 *       another key or table) fails the check, whatever the changed bytes still decode to;</li>
 *   <li>{@value #LEGACY_VERSION} (<i>tagged-v1</i>, written by format 1 of the store): the version byte and the cells,
 *       without checksum. Read only where the state directory says it may hold such cells (a directory upgraded
 *       from format 1); a directory created in format 2 refuses them.</li>
 * </ul>
 * Cells, per value column in schema order, a one-byte tag and its payload:
 * <ul>
 *   <li>{@code 0}: null (no payload);</li>
 *   <li>{@code 1}: int64 as a zig-zag varint; {@code 2}: uint64 as a varint;</li>
 *   <li>{@code 3}: double, 8 bytes big-endian of {@link Double#doubleToRawLongBits};</li>
 *   <li>{@code 4}: false; {@code 5}: true (no payload);</li>
 *   <li>{@code 6}: string, varint length then UTF-8 bytes; {@code 7}: bytes, varint length then the bytes.</li>
 * </ul>
 * Small counters thus take 2-3 bytes plus the 4-byte checksum. Decoding checks the version, the checksum, that every
 * tag matches its column's type and that no byte is left over, so bytes of another schema or format, or damaged
 * bytes, are reported instead of misread. Stateless and thread-safe.
 */
public final class ValueEncoding {
  /** The version written as the first byte: cells followed by a CRC32C over table, key and value. */
  public static final byte VERSION = 2;
  /** The version of format-1 directories: cells without checksum. */
  public static final byte LEGACY_VERSION = 1;
  /** Bytes of the checksum at the end of a {@value #VERSION} encoding. */
  static final int CHECKSUM_BYTES = 4;

  private static final byte NULL = 0;
  private static final byte INT64 = 1;
  private static final byte UINT64 = 2;
  private static final byte DOUBLE = 3;
  private static final byte FALSE = 4;
  private static final byte TRUE = 5;
  private static final byte STRING = 6;
  private static final byte BYTES = 7;

  private ValueEncoding() {
  }

  /**
   * Encodes normalized values (see {@code io.epochal.store.table.ColumnType}), one per kind, in the checksummed
   * version {@value #VERSION}.
   *
   * @param kinds the kinds of the table's value columns, in schema order ({@link SchemaText#kinds})
   * @param values the row's normalized values, one per kind, null for a null value
   * @param table the table's path as UTF-8 (covered by the checksum, not stored)
   * @param key the encoded key of the row (covered by the checksum, not stored)
   * @return the version byte, the cells and the 4-byte checksum
   * @throws IllegalArgumentException if the number of values differs from the number of kinds
   * @throws ClassCastException if a value does not have its kind's Java type
   */
  public static byte[] encode(List<KeyEncoding.Kind> kinds, List<Object> values, byte[] table, byte[] key) {
    KeyEncoding.Out out = cells(VERSION, kinds, values, CHECKSUM_BYTES);
    int crc = checksum(table, key, out.bytes(), out.size());
    out.write(crc >>> 24);
    out.write(crc >>> 16);
    out.write(crc >>> 8);
    out.write(crc);
    return out.toByteArray();
  }

  /**
   * Encodes values in the legacy, unchecked version {@value #LEGACY_VERSION} (as format 1 of the store wrote them;
   * for tests of reading such directories).
   *
   * @param kinds the kinds of the table's value columns, in schema order ({@link SchemaText#kinds})
   * @param values the row's normalized values, one per kind, null for a null value
   * @return the version byte and the cells, without checksum
   * @throws IllegalArgumentException if the number of values differs from the number of kinds
   * @throws ClassCastException if a value does not have its kind's Java type
   */
  public static byte[] encodeLegacy(List<KeyEncoding.Kind> kinds, List<Object> values) {
    return cells(LEGACY_VERSION, kinds, values, 0).toByteArray();
  }

  private static KeyEncoding.Out cells(byte version, List<KeyEncoding.Kind> kinds, List<Object> values, int extra) {
    if (kinds.size() != values.size()) {
      throw new IllegalArgumentException(values.size() + " values for " + kinds.size() + " columns");
    }
    KeyEncoding.Out out = new KeyEncoding.Out(1 + 4 * values.size() + extra);
    out.write(version);
    for (int i = 0; i < values.size(); i++) {
      Object v = values.get(i);
      KeyEncoding.Kind kind = kinds.get(i);
      if (v == null) {
        out.write(NULL);
        continue;
      }
      switch (kind) {
        case INT64 -> {
          long x = (Long) v;
          out.write(INT64);
          out.writeVarLong((x << 1) ^ (x >> 63));
        }
        case UINT64 -> {
          out.write(UINT64);
          out.writeVarLong((Long) v);
        }
        case DOUBLE -> {
          out.write(DOUBLE);
          out.writeLong(Double.doubleToRawLongBits((Double) v));
        }
        case BOOLEAN -> out.write((Boolean) v ? TRUE : FALSE);
        case STRING -> {
          byte[] b = ((String) v).getBytes(StandardCharsets.UTF_8);
          out.write(STRING);
          out.writeVarLong(b.length);
          out.write(b);
        }
        case BYTES -> {
          byte[] b = (byte[]) v;
          out.write(BYTES);
          out.writeVarLong(b.length);
          out.write(b);
        }
        default -> throw new AssertionError(kind);
      }
    }
    return out;
  }

  /** CRC32C over the table's path, the key and the first {@code length} bytes of {@code value}. */
  private static int checksum(byte[] table, byte[] key, byte[] value, int length) {
    CRC32C crc = new CRC32C();
    crc.update(table);
    crc.update(key);
    crc.update(value, 0, length);
    return (int) crc.getValue();
  }

  /**
   * Decodes values written by {@link #encode} for the same kinds, table and key, verifying the checksum first; or,
   * if {@code acceptLegacy}, values written by {@link #encodeLegacy} (no checksum to verify).
   *
   * @param kinds the kinds of the table's value columns, in schema order, as given to {@link #encode}
   * @param bytes the stored value (as passed through the read hook)
   * @param table the table's path as UTF-8, as given to {@link #encode}
   * @param key the encoded key the value is stored under, as given to {@link #encode}
   * @param acceptLegacy whether the state directory may hold cells of version {@value #LEGACY_VERSION}
   * @return one value per kind ({@code null} for a null value)
   * @throws IllegalArgumentException if the checksum does not match or the bytes are not a complete encoding of
   *     values of these kinds, naming why
   */
  public static Object[] decode(List<KeyEncoding.Kind> kinds, byte[] bytes, byte[] table, byte[] key,
      boolean acceptLegacy) {
    if (bytes.length == 0) {
      throw new IllegalArgumentException("empty value encoding");
    }
    if (bytes[0] == VERSION) {
      if (bytes.length < 1 + CHECKSUM_BYTES) {
        throw new IllegalArgumentException("value encoding of " + bytes.length + " bytes is shorter than its "
            + "checksum");
      }
      int end = bytes.length - CHECKSUM_BYTES;
      int stored = ((bytes[end] & 0xff) << 24) | ((bytes[end + 1] & 0xff) << 16) | ((bytes[end + 2] & 0xff) << 8)
          | (bytes[end + 3] & 0xff);
      int computed = checksum(table, key, bytes, end);
      if (stored != computed) {
        throw new IllegalArgumentException("checksum mismatch: stored CRC32C " + hex(stored) + ", computed "
            + hex(computed) + " over table, key and value (the cell was damaged or moved)");
      }
      return cellsOf(kinds, bytes, end);
    }
    if (bytes[0] == LEGACY_VERSION && acceptLegacy) {
      return cellsOf(kinds, bytes, bytes.length);
    }
    throw new IllegalArgumentException("value encoding version " + (bytes[0] & 0xff) + ", this state directory "
        + "holds version " + VERSION + (acceptLegacy ? " or " + LEGACY_VERSION : ""));
  }

  /**
   * Decodes the cells without verifying the checksum, for messages about a cell that failed it (e.g. the txid it
   * claims).
   *
   * @param kinds the kinds of the table's value columns, in schema order
   * @param bytes the stored value, of either version
   * @return the values, or empty if the bytes do not decode even so
   */
  public static java.util.Optional<Object[]> decodeUnverified(List<KeyEncoding.Kind> kinds, byte[] bytes) {
    try {
      if (bytes.length > 0 && bytes[0] == VERSION && bytes.length >= 1 + CHECKSUM_BYTES) {
        return java.util.Optional.of(cellsOf(kinds, bytes, bytes.length - CHECKSUM_BYTES));
      }
      if (bytes.length > 0 && bytes[0] == LEGACY_VERSION) {
        return java.util.Optional.of(cellsOf(kinds, bytes, bytes.length));
      }
    } catch (RuntimeException e) {
      // not decodable either
    }
    return java.util.Optional.empty();
  }

  private static String hex(int v) {
    return String.format("%08x", v);
  }

  /** Decodes the cells in {@code bytes[1, end)}. */
  private static Object[] cellsOf(List<KeyEncoding.Kind> kinds, byte[] bytes, int end) {
    int[] pos = {1};
    Object[] values = new Object[kinds.size()];
    for (int i = 0; i < values.length; i++) {
      if (pos[0] >= end) {
        throw new IllegalArgumentException("value encoding ends before column " + i);
      }
      byte tag = bytes[pos[0]++];
      if (tag == NULL) {
        continue;
      }
      KeyEncoding.Kind kind = kinds.get(i);
      byte expected = switch (kind) {
        case INT64 -> INT64;
        case UINT64 -> UINT64;
        case DOUBLE -> DOUBLE;
        case BOOLEAN -> tag == TRUE ? TRUE : FALSE;
        case STRING -> STRING;
        case BYTES -> BYTES;
      };
      if (tag != expected) {
        throw new IllegalArgumentException("value column " + i + " has tag " + tag + ", not a " + kind);
      }
      values[i] = switch (kind) {
        case INT64 -> {
          long z = readVarLong(bytes, end, pos, i);
          yield (z >>> 1) ^ -(z & 1);
        }
        case UINT64 -> readVarLong(bytes, end, pos, i);
        case DOUBLE -> {
          if (pos[0] + 8 > end) {
            throw new IllegalArgumentException("value column " + i + " is truncated");
          }
          long v = 0;
          for (int k = 0; k < 8; k++) {
            v = (v << 8) | (bytes[pos[0]++] & 0xffL);
          }
          yield Double.longBitsToDouble(v);
        }
        case BOOLEAN -> tag == TRUE;
        case STRING -> {
          byte[] raw = readBytes(bytes, end, pos, i);
          try {
            yield StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(java.nio.ByteBuffer.wrap(raw)).toString();
          } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("value column " + i + " is not valid UTF-8", e);
          }
        }
        case BYTES -> readBytes(bytes, end, pos, i);
      };
    }
    if (pos[0] != end) {
      throw new IllegalArgumentException("value encoding has " + (end - pos[0]) + " trailing bytes");
    }
    return values;
  }

  private static byte[] readBytes(byte[] b, int end, int[] pos, int column) {
    long len = readVarLong(b, end, pos, column);
    if (len < 0 || len > end - pos[0]) {
      throw new IllegalArgumentException("value column " + column + " has length " + len + " beyond the encoding");
    }
    byte[] out = Arrays.copyOfRange(b, pos[0], pos[0] + (int) len);
    pos[0] += (int) len;
    return out;
  }

  private static long readVarLong(byte[] b, int end, int[] pos, int column) {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos[0] >= end) {
        throw new IllegalArgumentException("value column " + column + " is truncated");
      }
      byte x = b[pos[0]++];
      v |= (long) (x & 0x7f) << shift;
      if ((x & 0x80) == 0) {
        return v;
      }
    }
    throw new IllegalArgumentException("value column " + column + " has an overlong varint");
  }
}
