package io.epochal.trident;

import io.epochal.errors.StateCorruptedException;
import io.epochal.store.table.Row;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.zip.CRC32C;

/**
 * The undo record of one state partition and batch: for every key the partition wrote in the batch, the row it held
 * before (or its absence). Stored as bytes in the partition's marker row by {@link PartitionEpoch}; a replay of the
 * batch restores these rows before it applies the replayed writes.
 *
 * <p>Format 1: {@code int format, int count}, then per entry the key's user parts and a present flag followed by the
 * row's value columns, each value tagged with its type; a trailing CRC32C over everything before it. Damaged bytes
 * are a {@link StateCorruptedException} naming the marker table and the partition, never an empty record. Stateless.
 */
final class UndoRecord {
  private static final int FORMAT = 1;
  private static final byte NULL = 0;
  private static final byte LONG = 1;
  private static final byte DOUBLE = 2;
  private static final byte BOOLEAN = 3;
  private static final byte STRING = 4;
  private static final byte BYTES = 5;

  private UndoRecord() {
  }

  /** Encodes {@code prior}: key → the row before the batch, empty when the key had no row. */
  static byte[] encode(Map<TableKey, Optional<Row>> prior) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + prior.size() * 48);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(FORMAT);
      out.writeInt(prior.size());
      for (Map.Entry<TableKey, Optional<Row>> e : prior.entrySet()) {
        List<Object> parts = e.getKey().parts();
        out.writeShort(parts.size());
        for (Object part : parts) {
          writeValue(out, part);
        }
        Optional<Row> row = e.getValue();
        out.writeBoolean(row.isPresent());
        if (row.isPresent()) {
          List<Object> values = row.get().values();
          out.writeShort(values.size());
          for (Object v : values) {
            writeValue(out, v);
          }
        }
      }
      out.flush();
      CRC32C crc = new CRC32C();
      crc.update(bytes.toByteArray());
      out.writeInt((int) crc.getValue());
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
    }
    return bytes.toByteArray();
  }

  /**
   * Decodes a record written by {@link #encode} for a table of schema {@code schema}.
   *
   * @param where the marker table and partition, for the error
   * @throws StateCorruptedException if the bytes are damaged or do not fit the schema
   */
  static Map<TableKey, Optional<Row>> decode(byte[] record, TableSchema schema, String markerTable, Object where,
      long txid) {
    try {
      if (record.length < 12) {
        throw new IOException("undo record of " + record.length + " bytes is too short");
      }
      CRC32C crc = new CRC32C();
      crc.update(record, 0, record.length - 4);
      int stored = ((record[record.length - 4] & 0xff) << 24) | ((record[record.length - 3] & 0xff) << 16)
          | ((record[record.length - 2] & 0xff) << 8) | (record[record.length - 1] & 0xff);
      if ((int) crc.getValue() != stored) {
        throw new IOException("undo record checksum mismatch");
      }
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(record, 0, record.length - 4));
      int format = in.readInt();
      if (format != FORMAT) {
        throw new IOException("unknown undo record format " + format);
      }
      int count = in.readInt();
      if (count < 0) {
        throw new IOException("negative entry count " + count);
      }
      Map<TableKey, Optional<Row>> out = new LinkedHashMap<>();
      for (int i = 0; i < count; i++) {
        List<Object> parts = readValues(in);
        TableKey key = TableKey.of(schema, parts);
        if (in.readBoolean()) {
          out.put(key, Optional.of(Row.of(key, readValues(in).toArray())));
        } else {
          out.put(key, Optional.empty());
        }
      }
      if (in.available() != 0) {
        throw new IOException(in.available() + " trailing bytes in the undo record");
      }
      return out;
    } catch (IOException | RuntimeException e) {
      throw new StateCorruptedException(markerTable, where, OptionalLong.of(txid), e);
    }
  }

  private static List<Object> readValues(DataInputStream in) throws IOException {
    int n = in.readUnsignedShort();
    List<Object> values = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      values.add(readValue(in));
    }
    return values;
  }

  private static void writeValue(DataOutputStream out, Object v) throws IOException {
    if (v == null) {
      out.writeByte(NULL);
    } else if (v instanceof Long l) {
      out.writeByte(LONG);
      out.writeLong(l);
    } else if (v instanceof Double d) {
      out.writeByte(DOUBLE);
      out.writeDouble(d);
    } else if (v instanceof Boolean b) {
      out.writeByte(BOOLEAN);
      out.writeBoolean(b);
    } else if (v instanceof String s) {
      byte[] utf8 = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      out.writeByte(STRING);
      out.writeInt(utf8.length);
      out.write(utf8);
    } else if (v instanceof byte[] b) {
      out.writeByte(BYTES);
      out.writeInt(b.length);
      out.write(b);
    } else {
      throw new IllegalArgumentException("a table value of type " + v.getClass().getName() + " cannot be undone");
    }
  }

  private static Object readValue(DataInputStream in) throws IOException {
    byte tag = in.readByte();
    switch (tag) {
      case NULL:
        return null;
      case LONG:
        return in.readLong();
      case DOUBLE:
        return in.readDouble();
      case BOOLEAN:
        return in.readBoolean();
      case STRING:
        return new String(readBytes(in), java.nio.charset.StandardCharsets.UTF_8);
      case BYTES:
        return readBytes(in);
      default:
        throw new IOException("unknown value tag " + tag);
    }
  }

  private static byte[] readBytes(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > in.available()) {
      throw new IOException("value length " + n + " exceeds the record");
    }
    byte[] b = new byte[n];
    in.readFully(b);
    return b;
  }
}
