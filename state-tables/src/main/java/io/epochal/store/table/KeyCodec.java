package io.epochal.store.table;

import io.epochal.api.Evolving;
import io.epochal.pipeline.Bytes;
import io.epochal.store.table.internal.SimpleKeyCodec;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Maps a typed state key {@code K} to the user key columns of a table (everything but {@value TableSchema#HASH_COLUMN},
 * which {@link TableKey} computes) and back. Built-ins: {@link #strings()} (one {@code string} column {@code key}),
 * {@link #longs()} (one {@code int64} column {@code key}), {@link #bytes()} (one {@code bytes} column {@code key}
 * for {@link Bytes} keys), {@link #list(Column...)} (composite {@code List} keys) and
 * {@link #of} (any mapping, for composite keys such as records).
 *
 * <p>Contract: {@code fromKey(toKey(schema, k))} equals {@code k}; {@link #toParts} returns one non-null value per
 * column, of the column's type. Implementations are immutable and thread-safe. A null key is rejected with
 * {@link NullPointerException}; a null key part with a {@link NullPointerException} naming the table and column.
 *
 * @param <K> the key type
 * @since 0.1.0
 */
@Evolving
public interface KeyCodec<K> {

  /** @return the user key columns, in order */
  List<Column> columns();

  /**
   * Splits a typed key into the values of the user key columns.
   *
   * @param key the typed key
   * @return the values of the user key columns for {@code key}, in column order, one non-null value per column
   * @throws NullPointerException if {@code key} is null
   */
  List<?> toParts(K key);

  /**
   * Makes the table key of a typed key, computing its hash.
   *
   * @param schema the schema of the table the key is for; its user key columns must be {@link #columns()}
   * @param key the typed key
   * @return the key of {@code key} in a table with {@code schema}
   * @throws NullPointerException if an argument or a key part is null (the message names the table and column)
   * @throws IllegalArgumentException if a part does not fit its column
   */
  default TableKey toKey(TableSchema schema, K key) {
    Objects.requireNonNull(schema, "schema");
    return TableKey.of(schema, toParts(Objects.requireNonNull(key, "key")));
  }

  /**
   * Rebuilds the typed key of a table key.
   *
   * @param key a key of a table whose user key columns are {@link #columns()}, as {@link #toKey} or a scan gives
   * @return the typed key, equal to the one {@link #toKey} was given
   */
  K fromKey(TableKey key);

  /**
   * Identifies the mapping; recorded as the table attribute {@code epochal.key}, so a table written with another key
   * mapping is refused.
   *
   * @return a stable identifier of the mapping, e.g. {@code "string:key"}
   */
  String id();

  /**
   * String keys in one {@code string} key column named {@code key}.
   *
   * @return the codec, with id {@code "string:key"}
   */
  static KeyCodec<String> strings() {
    return strings("key");
  }

  /**
   * String keys in one {@code string} key column named {@code column}.
   *
   * @param column the key column's name, matching {@code [A-Za-z_][A-Za-z0-9_]*}
   * @return the codec, with id {@code "string:<column>"}
   * @throws IllegalArgumentException if {@code column} is not a valid column name
   */
  static KeyCodec<String> strings(String column) {
    Column c = Column.required(column, ColumnType.STRING);
    return new SimpleKeyCodec<>("string:" + column, List.of(c), List::of, k -> (String) k.get(0));
  }

  /**
   * Long keys in one {@code int64} key column named {@code key}.
   *
   * @return the codec, with id {@code "int64:key"}
   */
  static KeyCodec<Long> longs() {
    return longs("key");
  }

  /**
   * Long keys in one {@code int64} key column named {@code column}.
   *
   * @param column the key column's name, matching {@code [A-Za-z_][A-Za-z0-9_]*}
   * @return the codec, with id {@code "int64:<column>"}
   * @throws IllegalArgumentException if {@code column} is not a valid column name
   */
  static KeyCodec<Long> longs(String column) {
    Column c = Column.required(column, ColumnType.INT64);
    return new SimpleKeyCodec<>("int64:" + column, List.of(c), List::of, k -> (Long) k.get(0));
  }

  /**
   * {@link Bytes} keys in one {@code bytes} key column named {@code key}.
   *
   * @return the codec, with id {@code "bytes:key"}
   */
  static KeyCodec<Bytes> bytes() {
    return bytes("key");
  }

  /**
   * {@link Bytes} keys in one {@code bytes} key column named {@code column} (a YTsaurus {@code string}).
   *
   * @param column the key column's name, matching {@code [A-Za-z_][A-Za-z0-9_]*}
   * @return the codec, with id {@code "bytes:<column>"}
   * @throws IllegalArgumentException if {@code column} is not a valid column name
   */
  static KeyCodec<Bytes> bytes(String column) {
    Column c = Column.required(column, ColumnType.BYTES);
    return new SimpleKeyCodec<>("bytes:" + column, List.of(c), k -> List.of(k.toByteArray()),
        k -> Bytes.of((byte[]) k.get(0)));
  }

  /**
   * Composite keys given as lists, one element per column (the key shape {@code groupBy} accepts for composite keys);
   * integral elements are widened to {@code Long}, so {@code fromKey} returns {@code Long} for {@code int64} columns,
   * and {@code bytes} columns take and give {@link Bytes} (a {@code byte[]} has no value equality, so it is no key).
   *
   * @param columns the user key columns, in order; at least one
   * @return the codec, with id {@code "list:"} followed by the columns' types and names, e.g.
   *     {@code "list:string user,int64 day"}
   * @throws IllegalArgumentException if no column is given
   */
  static KeyCodec<List<Object>> list(Column... columns) {
    List<Column> cols = List.copyOf(Arrays.asList(columns));
    if (cols.isEmpty()) {
      throw new IllegalArgumentException("a composite key needs at least one column");
    }
    StringBuilder id = new StringBuilder("list:");
    for (int i = 0; i < cols.size(); i++) {
      id.append(i == 0 ? "" : ",").append(cols.get(i).type().displayName()).append(' ').append(cols.get(i).name());
    }
    return new SimpleKeyCodec<List<Object>>(id.toString(), cols, KeyCodec::unwrapBytes, KeyCodec::wrapBytes);
  }

  private static List<?> unwrapBytes(List<Object> key) {
    for (Object part : key) {
      if (part instanceof Bytes) {
        List<Object> out = new java.util.ArrayList<>(key.size());
        for (Object p : key) {
          out.add(p instanceof Bytes b ? b.toByteArray() : p);
        }
        return out;
      }
    }
    return key;
  }

  private static List<Object> wrapBytes(TableKey key) {
    List<Object> parts = key.parts();
    for (Object part : parts) {
      if (part instanceof byte[]) {
        List<Object> out = new java.util.ArrayList<>(parts.size());
        for (Object p : parts) {
          out.add(p instanceof byte[] b ? Bytes.of(b) : p);
        }
        return java.util.Collections.unmodifiableList(out);
      }
    }
    return parts;
  }

  /**
   * A custom mapping, for composite keys.
   *
   * @param id a stable identifier of the mapping (recorded on the table)
   * @param columns the user key columns, in order
   * @param toParts the values of the columns for a key, in order
   * @param fromKey the key of a table key
   * @param <K> the key type
   * @return the codec, delegating to {@code toParts} and {@code fromKey}
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code columns} is empty
   */
  static <K> KeyCodec<K> of(String id, List<Column> columns, Function<? super K, ? extends List<?>> toParts,
      Function<? super TableKey, ? extends K> fromKey) {
    if (Objects.requireNonNull(columns, "columns").isEmpty()) {
      throw new IllegalArgumentException("a key needs at least one column");
    }
    return new SimpleKeyCodec<>(id, columns, toParts, fromKey);
  }
}
