package io.epochal.store.rocksdb.internal;

import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Compact encoding of a row's value columns: a version byte ({@value #VERSION}), then per value column, in schema
 * order, a one-byte tag and its payload:
 * <ul>
 *   <li>{@code 0}: null (no payload);</li>
 *   <li>{@code 1}: int64 as a zig-zag varint; {@code 2}: uint64 as a varint;</li>
 *   <li>{@code 3}: double, 8 bytes big-endian of {@link Double#doubleToRawLongBits};</li>
 *   <li>{@code 4}: false; {@code 5}: true (no payload);</li>
 *   <li>{@code 6}: string, varint length then UTF-8 bytes; {@code 7}: bytes, varint length then the bytes.</li>
 * </ul>
 * Small counters thus take 2-3 bytes. Decoding checks the version, that every tag matches its column's type and that
 * no byte is left over, so bytes of another schema or format are reported instead of misread. Stateless and
 * thread-safe.
 */
public final class ValueEncoding {
  /** The format version written as the first byte. */
  public static final byte VERSION = 1;

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
   * Encodes normalized values (see {@code io.epochal.store.table.ColumnType}), one per kind.
   *
   * @throws IllegalArgumentException if a value does not have its kind's Java type
   */
  public static byte[] encode(List<KeyEncoding.Kind> kinds, List<Object> values) {
    if (kinds.size() != values.size()) {
      throw new IllegalArgumentException(values.size() + " values for " + kinds.size() + " columns");
    }
    KeyEncoding.Out out = new KeyEncoding.Out(1 + 4 * values.size());
    out.write(VERSION);
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
    return out.toByteArray();
  }

  /**
   * Decodes values written by {@link #encode} for the same kinds.
   *
   * @return one value per kind ({@code null} for a null value)
   * @throws IllegalArgumentException if the bytes are not a complete encoding of values of these kinds, naming why
   */
  public static Object[] decode(List<KeyEncoding.Kind> kinds, byte[] bytes) {
    if (bytes.length == 0 || bytes[0] != VERSION) {
      throw new IllegalArgumentException(bytes.length == 0 ? "empty value encoding"
          : "value encoding version " + (bytes[0] & 0xff) + ", this library reads version " + VERSION);
    }
    int[] pos = {1};
    Object[] values = new Object[kinds.size()];
    for (int i = 0; i < values.length; i++) {
      if (pos[0] >= bytes.length) {
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
          long z = readVarLong(bytes, pos, i);
          yield (z >>> 1) ^ -(z & 1);
        }
        case UINT64 -> readVarLong(bytes, pos, i);
        case DOUBLE -> {
          if (pos[0] + 8 > bytes.length) {
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
          byte[] raw = readBytes(bytes, pos, i);
          try {
            yield StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(java.nio.ByteBuffer.wrap(raw)).toString();
          } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("value column " + i + " is not valid UTF-8", e);
          }
        }
        case BYTES -> readBytes(bytes, pos, i);
      };
    }
    if (pos[0] != bytes.length) {
      throw new IllegalArgumentException("value encoding has " + (bytes.length - pos[0]) + " trailing bytes");
    }
    return values;
  }

  private static byte[] readBytes(byte[] b, int[] pos, int column) {
    long len = readVarLong(b, pos, column);
    if (len < 0 || len > b.length - pos[0]) {
      throw new IllegalArgumentException("value column " + column + " has length " + len + " beyond the encoding");
    }
    byte[] out = Arrays.copyOfRange(b, pos[0], pos[0] + (int) len);
    pos[0] += (int) len;
    return out;
  }

  private static long readVarLong(byte[] b, int[] pos, int column) {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos[0] >= b.length) {
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
