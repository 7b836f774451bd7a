package io.epochal.store.postgres.internal;

import io.epochal.store.table.Column;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The check encoding of a row: the bytes the store passes through {@link io.epochal.store.table.ReadHook#storedBytes}
 * and whose CRC-32C it keeps in column {@code "$crc"} of every row, so that a damaged or hand-edited row is reported
 * as {@link io.epochal.errors.StateCorruptedException} instead of being read.
 *
 * <p>Layout: version byte {@code 1}; the {@code hash} (8 bytes, big-endian), which binds the values to their key; then
 * per value column, in schema order, {@code 0} for null or {@code 1} and the value: int64 and uint64 as 8 bytes
 * big-endian, double as {@link Double#doubleToLongBits} (one NaN), boolean as one byte {@code 0}/{@code 1}, string
 * as a 4-byte length and UTF-8, bytes as a 4-byte length and the bytes. {@link #decode} is strict: wrong version or
 * hash, unknown tags, booleans other than 0/1, lengths past the end, malformed UTF-8, a null in a required column or
 * trailing bytes are errors. Stateless and thread-safe.
 */
public final class RowCheck {
  private static final byte VERSION = 1;
  private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

  private RowCheck() {
  }

  /**
   * Encodes a row's values in the check layout of the class comment.
   *
   * @param hash the {@code farm_hash} of the row's key, written into the encoding so the values cannot pass as
   *     another key's
   * @param valueColumns the table's value columns, in schema order; their types choose each value's layout
   * @param values the row's values (normalized, as {@link io.epochal.store.table.Row#values()}), one per value
   *     column in the same order, null for an absent value
   * @return the check encoding of a row with key hash {@code hash} and {@code values}
   */
  public static byte[] encode(long hash, List<Column> valueColumns, List<Object> values) {
    // one exact-size array written in place (no ByteBuffer: this runs for every row written and read)
    int n = values.size();
    int size = 1 + 8 + n;
    byte[][] strings = null;
    for (int i = 0; i < n; i++) {
      Object v = values.get(i);
      if (v == null) {
        continue;
      }
      switch (valueColumns.get(i).type()) {
        case INT64, UINT64, DOUBLE -> size += 8;
        case BOOLEAN -> size += 1;
        case STRING -> {
          if (strings == null) {
            strings = new byte[n][];
          }
          strings[i] = ((String) v).getBytes(StandardCharsets.UTF_8);
          size += 4 + strings[i].length;
        }
        case BYTES -> size += 4 + ((byte[]) v).length;
        default -> throw new AssertionError(valueColumns.get(i));
      }
    }
    byte[] b = new byte[size];
    b[0] = VERSION;
    LONG.set(b, 1, hash);
    int at = 9;
    for (int i = 0; i < n; i++) {
      Object v = values.get(i);
      if (v == null) {
        b[at++] = 0;
        continue;
      }
      b[at++] = 1;
      switch (valueColumns.get(i).type()) {
        case INT64, UINT64 -> {
          LONG.set(b, at, (long) (Long) v);
          at += 8;
        }
        case DOUBLE -> {
          LONG.set(b, at, Double.doubleToLongBits((Double) v));
          at += 8;
        }
        case BOOLEAN -> b[at++] = (Boolean) v ? (byte) 1 : (byte) 0;
        case STRING -> at = putBytes(b, at, strings[i]);
        case BYTES -> at = putBytes(b, at, (byte[]) v);
        default -> throw new AssertionError(valueColumns.get(i));
      }
    }
    return b;
  }

  /** Writes {@code bytes} at {@code at} as a 4-byte big-endian length and the bytes; returns the next position. */
  private static int putBytes(byte[] b, int at, byte[] bytes) {
    INT.set(b, at, bytes.length);
    System.arraycopy(bytes, 0, b, at + 4, bytes.length);
    return at + 4 + bytes.length;
  }

  /**
   * Computes the checksum kept in column {@code "$crc"}.
   *
   * @param bytes a row's check encoding (from {@link #encode}, or as returned by a read hook)
   * @return the CRC-32C of {@code bytes}, as stored in {@code "$crc"} (the unsigned 32 bits as a signed int)
   */
  public static int crc(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length);
    return (int) crc.getValue();
  }

  /**
   * Checks the encoding of {@code values} (made by {@link #encode} from them) against the stored CRC, and that every
   * required column has a value: the checks of {@link #decode} that can fail on such bytes, without decoding them.
   *
   * @param valueColumns the table's value columns, in schema order; their {@code required} flags are checked
   * @param encoded the check encoding of {@code values}, made by {@link #encode}
   * @param storedCrc the {@code "$crc"} read from the row
   * @param values the values read from the row, in value column order, null where absent
   * @throws IllegalArgumentException if the CRC differs or a required column is null (the same messages as
   *     {@link #decode})
   */
  public static void check(List<Column> valueColumns, byte[] encoded, int storedCrc, List<Object> values) {
    int actual = crc(encoded);
    if (actual != storedCrc) {
      throw crcMismatch(actual, storedCrc);
    }
    for (int i = 0; i < values.size(); i++) {
      if (values.get(i) == null && valueColumns.get(i).required()) {
        throw new IllegalArgumentException("required column '" + valueColumns.get(i).name() + "' is null");
      }
    }
  }

  private static IllegalArgumentException crcMismatch(int actual, int storedCrc) {
    return new IllegalArgumentException("the row's CRC-32C is " + hex(actual) + " but " + hex(storedCrc)
        + " is stored: the row was damaged or written by something other than Epochal");
  }

  /**
   * Checks {@code bytes} against the stored CRC and decodes the values.
   *
   * @param hash the {@code farm_hash} of the key the row was read under; must equal the hash in the encoding
   * @param valueColumns the table's value columns, in schema order, which give the layout to expect
   * @param bytes the check encoding to decode (as returned by the read hook)
   * @param storedCrc the {@code "$crc"} read from the row
   * @return the value of each value column, in order
   * @throws IllegalArgumentException if the CRC differs or the bytes are not a check encoding of a row of key hash
   *     {@code hash} (the message says what is wrong)
   */
  public static Object[] decode(long hash, List<Column> valueColumns, byte[] bytes, int storedCrc) {
    int actual = crc(bytes);
    if (actual != storedCrc) {
      throw crcMismatch(actual, storedCrc);
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    try {
      byte version = b.get();
      if (version != VERSION) {
        throw new IllegalArgumentException("unknown row check version " + version);
      }
      long storedHash = b.getLong();
      if (storedHash != hash) {
        throw new IllegalArgumentException("the row's values belong to hash " + Long.toUnsignedString(storedHash)
            + ", not to this key's hash " + Long.toUnsignedString(hash));
      }
      Object[] out = new Object[valueColumns.size()];
      for (int i = 0; i < out.length; i++) {
        Column c = valueColumns.get(i);
        byte tag = b.get();
        if (tag == 0) {
          if (c.required()) {
            throw new IllegalArgumentException("required column '" + c.name() + "' is null");
          }
          continue;
        }
        if (tag != 1) {
          throw new IllegalArgumentException("column '" + c.name() + "' has tag " + tag + ", expected 0 or 1");
        }
        out[i] = switch (c.type()) {
          case INT64, UINT64 -> b.getLong();
          case DOUBLE -> Double.longBitsToDouble(b.getLong());
          case BOOLEAN -> {
            byte v = b.get();
            if (v != 0 && v != 1) {
              throw new IllegalArgumentException("boolean column '" + c.name() + "' holds " + v);
            }
            yield v == 1;
          }
          case STRING -> utf8(c, bytes(b, c));
          case BYTES -> bytes(b, c);
        };
      }
      if (b.hasRemaining()) {
        throw new IllegalArgumentException(b.remaining() + " trailing byte(s) after the last column");
      }
      return out;
    } catch (java.nio.BufferUnderflowException e) {
      throw new IllegalArgumentException("the row's check bytes end early (" + bytes.length + " bytes)", e);
    }
  }

  private static byte[] bytes(ByteBuffer b, Column c) {
    int n = b.getInt();
    if (n < 0 || n > b.remaining()) {
      throw new IllegalArgumentException("column '" + c.name() + "' claims " + n + " bytes, " + b.remaining()
          + " remain");
    }
    byte[] out = new byte[n];
    b.get(out);
    return out;
  }

  private static String utf8(Column c, byte[] bytes) {
    try {
      CharBuffer chars = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
      return chars.toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("string column '" + c.name() + "' is not valid UTF-8", e);
    }
  }

  private static String hex(int crc) {
    return String.format("%08x", crc);
  }
}
