package io.epochal.store.table.internal;

import io.epochal.codec.Codec;
import io.epochal.codec.CodecException;
import io.epochal.store.table.Column;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A value codec of a state's keys made from its {@link KeyCodec}: the key's column values, each encoded by its column
 * type (so no serializer is involved), for the bucket tables of {@link TableMapFactory#buckets()}. Immutable and
 * thread-safe if the key codec is. Internal.
 *
 * @param <K> the key type
 */
final class KeyPartsCodec<K> implements Codec<K> {
  private final KeyCodec<K> keys;
  private final TableSchema schema;

  /**
   * @param keys the key codec
   * @param schema a schema whose user key columns are {@code keys.columns()}, to rebuild table keys with
   */
  KeyPartsCodec(KeyCodec<K> keys, TableSchema schema) {
    this.keys = Objects.requireNonNull(keys, "keys");
    this.schema = Objects.requireNonNull(schema, "schema");
  }

  @Override
  public byte[] encode(K value) {
    List<?> parts = keys.toParts(value);
    List<Column> columns = keys.columns();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      for (int i = 0; i < columns.size(); i++) {
        Object part = parts.get(i);
        switch (columns.get(i).type()) {
          case INT64, UINT64 -> out.writeLong((Long) part);
          case DOUBLE -> out.writeDouble((Double) part);
          case BOOLEAN -> out.writeBoolean((Boolean) part);
          case STRING -> {
            byte[] utf8 = ((String) part).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            out.writeInt(utf8.length);
            out.write(utf8);
          }
          case BYTES -> {
            byte[] raw = ((io.epochal.pipeline.Bytes) part).toByteArray();
            out.writeInt(raw.length);
            out.write(raw);
          }
          default -> throw new IllegalStateException("column type " + columns.get(i).type());
        }
      }
    } catch (IOException | ClassCastException e) {
      throw new CodecException("key '" + value + "' cannot be encoded by " + id() + ": " + e, e);
    }
    return bytes.toByteArray();
  }

  @Override
  public K decode(byte[] encoded) {
    List<Column> columns = keys.columns();
    List<Object> parts = new ArrayList<>(columns.size());
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded))) {
      for (Column c : columns) {
        switch (c.type()) {
          case INT64, UINT64 -> parts.add(in.readLong());
          case DOUBLE -> parts.add(in.readDouble());
          case BOOLEAN -> parts.add(in.readBoolean());
          case STRING -> parts.add(new String(in.readNBytes(in.readInt()), java.nio.charset.StandardCharsets.UTF_8));
          case BYTES -> parts.add(io.epochal.pipeline.Bytes.of(in.readNBytes(in.readInt())));
          default -> throw new IllegalStateException("column type " + c.type());
        }
      }
      if (in.available() != 0) {
        throw new IOException(in.available() + " trailing bytes");
      }
    } catch (IOException | RuntimeException e) {
      throw new CodecException("bytes of length " + encoded.length + " are not a key of " + id() + ": " + e, e);
    }
    return keys.fromKey(TableKey.of(schema, parts));
  }

  @Override
  public String id() {
    return "key-parts:" + keys.id();
  }
}
