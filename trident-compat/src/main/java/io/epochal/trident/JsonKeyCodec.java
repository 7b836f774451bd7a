package io.epochal.trident;

import io.epochal.codec.CodecException;
import io.epochal.store.table.Column;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableKey;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

/**
 * Trident's positional {@code List<Object>} keys in one {@code string} key column {@code key}, holding the key as a
 * JSON array ({@code ["the"]}, {@code ["banner-7", 3]}). Integral key parts are written as JSON integers whatever
 * their boxed type and read back as {@code Long}, so {@code [1]} and {@code [1L]} are the same row. Key parts must be
 * JSON values (strings, numbers, booleans; lists and maps are allowed but unusual). Immutable and thread-safe.
 */
final class JsonKeyCodec implements KeyCodec<List<Object>> {
  static final JsonKeyCodec INSTANCE = new JsonKeyCodec();
  private static final List<Column> COLUMNS = List.of(Column.required("key", ColumnType.STRING));

  private JsonKeyCodec() {
  }

  @Override
  public List<Column> columns() {
    return COLUMNS;
  }

  @Override
  public List<?> toParts(List<Object> key) {
    Objects.requireNonNull(key, "key");
    return List.of(new String(TridentJson.write(key, "key " + key), StandardCharsets.UTF_8));
  }

  @Override
  @SuppressWarnings("unchecked")
  public List<Object> fromKey(TableKey key) {
    Object parsed = TridentJson.parse(((String) key.get("key")).getBytes(StandardCharsets.UTF_8), "a Trident key");
    if (!(parsed instanceof List<?>)) {
      throw new CodecException("a Trident key must be a JSON array, got " + parsed);
    }
    return (List<Object>) parsed;
  }

  @Override
  public String id() {
    return "trident-json-list:key";
  }

  @Override
  public String toString() {
    return "KeyCodec[" + id() + "]";
  }
}
