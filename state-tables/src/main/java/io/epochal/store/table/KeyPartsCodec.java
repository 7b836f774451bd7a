package io.epochal.store.table;

import io.epochal.api.Evolving;
import io.epochal.codec.Codec;
import io.epochal.codec.CodecException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A value codec of a state's keys made from its {@link KeyCodec}: the key's column values in column order, each by its
 * column type ({@code int64}/{@code uint64} as 8 bytes, {@code double} as 8 bytes, {@code boolean} as 1 byte,
 * {@code string} as a 4-byte length and its UTF-8 bytes, {@code bytes} as a 4-byte length and the bytes; all
 * big-endian), so that a key can be stored as a value (a timer's key, a dedup bucket's id) with no serializer. This
 * layout is stored in tables and does not change. Immutable and thread-safe if the key codec is.
 *
 * @param <K> the key type
 * @since 0.7.0
 */
@Evolving
public final class KeyPartsCodec<K> implements Codec<K> {
  private final KeyCodec<K> keys;
  private final TableSchema schema;

  /**
   * A codec of {@code keys}' keys.
   *
   * @param keys the key codec
   * @param schema a schema whose user key columns are {@code keys.columns()}, to rebuild the table keys that
   *     {@link KeyCodec#fromKey} decodes
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if the schema's user key columns are not the key codec's columns
   */
  public KeyPartsCodec(KeyCodec<K> keys, TableSchema schema) {
    this.keys = Objects.requireNonNull(keys, "keys");
    this.schema = Objects.requireNonNull(schema, "schema");
    if (!schema.userKeyColumns().equals(keys.columns())) {
      throw new IllegalArgumentException("the user key columns of " + schema.path() + " " + schema.userKeyColumns()
          + " are not the columns of key codec " + keys.id() + " " + keys.columns());
    }
  }

  /**
   * @throws CodecException naming the key and the codec if a key part does not have its column's type
   */
  @Override
  public byte[] encode(K value) {
    TableKey key = keys.toKey(schema, value);
    List<Column> columns = schema.userKeyColumns();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      for (int i = 0; i < columns.size(); i++) {
        Object part = key.get(i);
        switch (columns.get(i).type()) {
          case INT64, UINT64 -> out.writeLong((Long) part);
          case DOUBLE -> out.writeDouble((Double) part);
          case BOOLEAN -> out.writeBoolean((Boolean) part);
          case STRING -> writeSized(out, ((String) part).getBytes(StandardCharsets.UTF_8));
          case BYTES -> writeSized(out, (byte[]) part);
          default -> throw new IllegalStateException("column type " + columns.get(i).type());
        }
      }
    } catch (IOException | ClassCastException e) {
      throw new CodecException("key '" + value + "' cannot be encoded by " + id() + ": " + e, e);
    }
    return bytes.toByteArray();
  }

  private static void writeSized(DataOutputStream out, byte[] b) throws IOException {
    out.writeInt(b.length);
    out.write(b);
  }

  /**
   * @throws CodecException naming the length and the codec if the bytes are truncated, have trailing bytes or do not
   *     decode to a key
   */
  @Override
  public K decode(byte[] encoded) {
    List<Column> columns = schema.userKeyColumns();
    List<Object> parts = new ArrayList<>(columns.size());
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded))) {
      for (Column c : columns) {
        switch (c.type()) {
          case INT64, UINT64 -> parts.add(in.readLong());
          case DOUBLE -> parts.add(in.readDouble());
          case BOOLEAN -> parts.add(in.readBoolean());
          case STRING -> parts.add(new String(in.readNBytes(in.readInt()), StandardCharsets.UTF_8));
          case BYTES -> parts.add(in.readNBytes(in.readInt()));
          default -> throw new IllegalStateException("column type " + c.type());
        }
      }
      if (in.read() != -1) {
        throw new IOException("trailing bytes after the key parts");
      }
      return keys.fromKey(TableKey.of(schema, parts));
    } catch (IOException | RuntimeException e) {
      throw new CodecException("bytes of length " + encoded.length + " are not a key of " + id() + ": " + e, e);
    }
  }

  /** @return {@code key-parts:} and the key codec's id */
  @Override
  public String id() {
    return "key-parts:" + keys.id();
  }

  @Override
  public String toString() {
    return "KeyPartsCodec[" + keys.id() + "]";
  }
}
