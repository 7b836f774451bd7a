package io.epochal.store.table;

import io.epochal.api.Evolving;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * One row of a table: its {@link TableKey} and one value per value column of the schema, validated and normalized
 * (see {@link ColumnType}). A nullable value column may hold {@code null}; a required one may not. An upsert writes
 * the whole row: a {@code null} value column is stored as null.
 *
 * <p>Immutable and thread-safe; {@code byte[]} values are copied on the way in and out. Equal when keys and values
 * are equal ({@code byte[]} by content).
 *
 * @since 0.1.0
 */
@Evolving
public final class Row {
  private final TableKey key;
  private final Object[] values;

  private Row(TableKey key, Object[] values) {
    this.key = key;
    this.values = values;
  }

  /**
   * A row from its key and one value per value column, in schema order.
   *
   * @param key the row's key, which also gives the table's schema
   * @param values one value per value column of the key's schema, in order; {@code null} for a nullable column's
   *     missing value; numbers are normalized to the column type
   * @return the row, immutable ({@code byte[]} values are copied on the way in and out)
   * @throws NullPointerException if {@code key} or the array is null, or a required value is null (the message names
   *     the table and the column)
   * @throws IllegalArgumentException if the number of values is wrong or a value has the wrong type (the message
   *     names the table and the column)
   */
  public static Row of(TableKey key, Object... values) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(values, "values");
    TableSchema schema = key.schema();
    List<Column> columns = schema.valueColumns();
    if (values.length != columns.size()) {
      throw new IllegalArgumentException("table " + schema.path() + " has " + columns.size() + " value column(s) "
          + columns + ", got " + values.length + " value(s)");
    }
    Object[] normalized = new Object[values.length];
    for (int i = 0; i < values.length; i++) {
      normalized[i] = check(schema, columns.get(i), values[i]);
    }
    return new Row(key, normalized);
  }

  /**
   * Starts a row with key {@code key}; value columns not set are null.
   *
   * @param key the row's key, which also gives the table's schema
   * @return a builder with no value column set
   * @throws NullPointerException if {@code key} is null
   */
  public static Builder builder(TableKey key) {
    return new Builder(Objects.requireNonNull(key, "key"));
  }

  /** @return the row's key */
  public TableKey key() {
    return key;
  }

  /** @return the schema of the row's table */
  public TableSchema schema() {
    return key.schema();
  }

  /**
   * Reads a column of the row, key or value.
   *
   * @param column the column's name; {@value TableSchema#HASH_COLUMN} gives the hash
   * @return the value of column {@code column}, {@code null} for a null value; a {@code byte[]} is a copy
   * @throws IllegalArgumentException if the table has no such column
   * @throws NullPointerException if {@code column} is null
   */
  public Object get(String column) {
    Objects.requireNonNull(column, "column");
    int i = key.schema().valueIndex(column);
    if (i >= 0) {
      return values[i] instanceof byte[] b ? b.clone() : values[i];
    }
    if (column.equals(TableSchema.HASH_COLUMN) || key.schema().userKeyIndex(column) >= 0) {
      return key.get(column);
    }
    throw new IllegalArgumentException("table " + key.schema().path() + " has no column '" + column + "'");
  }

  /**
   * Tells whether a column of the row is null.
   *
   * @param column the column's name (key or value column)
   * @return whether column {@code column} is null
   * @throws IllegalArgumentException if there is no such column
   */
  public boolean isNull(String column) {
    return get(column) == null;
  }

  /**
   * Reads an {@code int64} or {@code uint64} column.
   *
   * @param column the column's name (key or value column)
   * @return the column's value, or null if it is null
   * @throws IllegalArgumentException if there is no such column or it holds no {@code Long}
   */
  public Long getLong(String column) {
    return typed(column, Long.class);
  }

  /**
   * Reads a {@code double} column.
   *
   * @param column the column's name (key or value column)
   * @return the column's value, or null if it is null
   * @throws IllegalArgumentException if there is no such column or it holds no {@code Double}
   */
  public Double getDouble(String column) {
    return typed(column, Double.class);
  }

  /**
   * Reads a {@code boolean} column.
   *
   * @param column the column's name (key or value column)
   * @return the column's value, or null if it is null
   * @throws IllegalArgumentException if there is no such column or it holds no {@code Boolean}
   */
  public Boolean getBoolean(String column) {
    return typed(column, Boolean.class);
  }

  /**
   * Reads a {@code string} column.
   *
   * @param column the column's name (key or value column)
   * @return the column's value, or null if it is null
   * @throws IllegalArgumentException if there is no such column or it holds no {@code String}
   */
  public String getString(String column) {
    return typed(column, String.class);
  }

  /**
   * Reads a {@code bytes} column.
   *
   * @param column the column's name (key or value column)
   * @return a copy of the column's value, or null if it is null
   * @throws IllegalArgumentException if there is no such column or it holds no {@code byte[]}
   */
  public byte[] getBytes(String column) {
    return typed(column, byte[].class);
  }

  /** @return the values of the value columns in schema order, unmodifiable (nulls kept, {@code byte[]} copied) */
  public List<Object> values() {
    List<Object> out = new ArrayList<>(values.length);
    for (Object v : values) {
      out.add(v instanceof byte[] b ? b.clone() : v);
    }
    return Collections.unmodifiableList(out);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Row other && other.key.equals(key) && Arrays.deepEquals(other.values, values);
  }

  @Override
  public int hashCode() {
    return key.hashCode() * 31 + Arrays.deepHashCode(values);
  }

  /** @return e.g. {@code counts[hash=1234, word=foo]{value=0x0000000000000003, txid=7}} */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder(key.toString()).append('{');
    List<Column> columns = key.schema().valueColumns();
    for (int i = 0; i < values.length; i++) {
      sb.append(i == 0 ? "" : ", ").append(columns.get(i).name()).append('=').append(show(values[i]));
    }
    return sb.append('}').toString();
  }

  static String show(Object v) {
    if (v instanceof byte[] b) {
      return b.length <= 32 ? "0x" + HexFormat.of().formatHex(b) : "<" + b.length + " bytes>";
    }
    return String.valueOf(v);
  }

  private <T> T typed(String column, Class<T> type) {
    Object v = get(column);
    if (v == null) {
      return null;
    }
    if (!type.isInstance(v)) {
      throw new IllegalArgumentException("table " + key.schema().path() + " column '" + column + "' holds a "
          + v.getClass().getSimpleName() + ", not a " + type.getSimpleName());
    }
    return type.cast(v);
  }

  private static Object check(TableSchema schema, Column c, Object value) {
    Object fast = value == null ? null : c.type().normalizeValid(value);
    if (fast != null) {
      return fast;
    }
    // the description is built only for a message (this runs for every value)
    java.util.function.Supplier<String> what = () -> "table " + schema.path() + " value column '" + c.name() + "' ("
        + c.type().displayName() + ")";
    if (value == null) {
      if (c.required()) {
        throw new NullPointerException(what.get() + " is required and must not be null");
      }
      return null;
    }
    return c.type().normalize(value, what);
  }

  /**
   * Builds a {@link Row} column by column. Not thread-safe.
   *
   * @since 0.1.0
   */
  public static final class Builder {
    private final TableKey key;
    /** The values; handed to the last row built, and copied before a later {@link #set} changes them. */
    private Object[] values;
    /** Whether a row built holds {@link #values}. */
    private boolean shared;

    private Builder(TableKey key) {
      this.key = key;
      this.values = new Object[key.schema().valueColumns().size()];
    }

    /**
     * Sets value column {@code column}; setting it again replaces the value.
     *
     * @param column the name of a value column (key columns are set by the key)
     * @param value the value, of the column's type ({@code null} only for a nullable column)
     * @return this builder
     * @throws IllegalArgumentException if there is no such value column or the value has the wrong type
     * @throws NullPointerException if {@code column} is null, or the value is null for a required column
     */
    public Builder set(String column, Object value) {
      Objects.requireNonNull(column, "column");
      TableSchema schema = key.schema();
      int i = schema.valueIndex(column);
      if (i < 0) {
        throw new IllegalArgumentException("table " + schema.path() + " has no value column '" + column + "'"
            + (schema.userKeyIndex(column) >= 0 || column.equals(TableSchema.HASH_COLUMN)
                ? " (it is a key column, set by the key)" : ""));
      }
      Object checked = check(schema, schema.valueColumns().get(i), value);
      if (shared) {
        values = values.clone();
        shared = false;
      }
      values[i] = checked;
      return this;
    }

    /**
     * @return the row
     * @throws NullPointerException if a required value column was not set
     */
    public Row build() {
      TableSchema schema = key.schema();
      for (int i = 0; i < values.length; i++) {
        Column c = schema.valueColumns().get(i);
        if (values[i] == null && c.required()) {
          throw new NullPointerException("table " + schema.path() + " value column '" + c.name() + "' ("
              + c.type().displayName() + ") is required and was not set");
        }
      }
      shared = true;
      return new Row(key, values);
    }
  }
}
