package io.epochal.flow.internal;

import io.epochal.codec.Codec;
import io.epochal.store.table.Column;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Encodes a state's typed key as bytes through its {@link KeyCodec}'s key columns (each part by its column type), so
 * that the key can be stored in a timer table and decoded back with {@link KeyCodec#fromKey}. Used for the hidden
 * expiration timers of a state with a TTL. Immutable; thread-safe. Internal.
 *
 * @param <K> the key type
 */
final class KeyPartsCodec<K> implements Codec<K> {
  private final KeyCodec<K> keys;
  private final TableSchema schema;

  /** @param schema a schema whose user key columns are {@code keys}' */
  KeyPartsCodec(KeyCodec<K> keys, TableSchema schema) {
    this.keys = keys;
    this.schema = schema;
  }

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
          case STRING -> {
            byte[] b = ((String) part).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            out.writeInt(b.length);
            out.write(b);
          }
          case BYTES -> {
            byte[] b = (byte[]) part;
            out.writeInt(b.length);
            out.write(b);
          }
          default -> throw new IllegalStateException("column type " + columns.get(i).type());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  @Override
  public K decode(byte[] bytes) {
    List<Column> columns = schema.userKeyColumns();
    List<Object> parts = new ArrayList<>(columns.size());
    try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(bytes))) {
      for (Column c : columns) {
        switch (c.type()) {
          case INT64, UINT64 -> parts.add(in.readLong());
          case DOUBLE -> parts.add(in.readDouble());
          case BOOLEAN -> parts.add(in.readBoolean());
          case STRING -> parts.add(new String(in.readNBytes(in.readInt()), java.nio.charset.StandardCharsets.UTF_8));
          case BYTES -> parts.add(in.readNBytes(in.readInt()));
          default -> throw new IllegalStateException("column type " + c.type());
        }
      }
      if (in.read() != -1) {
        throw new IllegalArgumentException("trailing bytes after the key parts");
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("truncated key parts", e);
    }
    return keys.fromKey(TableKey.of(schema, parts));
  }

  @Override
  public String id() {
    return "key-parts:" + keys.id();
  }
}
