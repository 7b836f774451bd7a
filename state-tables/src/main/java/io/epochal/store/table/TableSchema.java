package io.epochal.store.table;

import io.epochal.api.Evolving;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The schema of a sorted table, modelled on YTsaurus sorted dynamic tables: a path, ordered key columns and value
 * columns, plus string attributes (for example the codec and layout versions of a state table) that are part of the
 * schema and checked when a table is opened.
 *
 * <p>The first key column is always {@value #HASH_COLUMN} ({@link ColumnType#UINT64}), whose value is
 * {@link io.epochal.hash.FarmHash#farmHash(Object...) farm_hash} of the other key columns in order. It is added by the
 * builder and computed by {@link TableKey}: callers never pass it. At least one other key column is required.
 *
 * <p>Two schemas are equal when path, columns (names, types, required flags, order) and attributes are equal.
 * Immutable and thread-safe. Build with {@link #builder(String)}.
 *
 * @since 0.1.0
 */
@Evolving
public final class TableSchema {
  /** The name of the first key column, {@code farm_hash} of the other key columns. */
  public static final String HASH_COLUMN = "hash";

  private static final Column HASH = Column.required(HASH_COLUMN, ColumnType.UINT64);

  private final String path;
  private final List<Column> keyColumns;
  private final List<Column> userKeyColumns;
  private final List<Column> valueColumns;
  private final List<Column> columns;
  private final Map<String, String> attributes;
  private final Map<String, Integer> keyIndex;
  private final Map<String, Integer> valueIndex;

  private TableSchema(Builder b) {
    this.path = b.path;
    this.userKeyColumns = List.copyOf(b.keys);
    List<Column> keys = new ArrayList<>();
    keys.add(HASH);
    keys.addAll(b.keys);
    this.keyColumns = List.copyOf(keys);
    this.valueColumns = List.copyOf(b.values);
    List<Column> all = new ArrayList<>(keyColumns);
    all.addAll(valueColumns);
    this.columns = List.copyOf(all);
    this.attributes = Collections.unmodifiableMap(new TreeMap<>(b.attributes));
    Map<String, Integer> ki = new HashMap<>();
    for (int i = 0; i < userKeyColumns.size(); i++) {
      ki.put(userKeyColumns.get(i).name(), i);
    }
    this.keyIndex = Map.copyOf(ki);
    Map<String, Integer> vi = new HashMap<>();
    for (int i = 0; i < valueColumns.size(); i++) {
      vi.put(valueColumns.get(i).name(), i);
    }
    this.valueIndex = Map.copyOf(vi);
  }

  /**
   * Starts a schema for the table at {@code path} (a name for embedded stores, a Cypress path such as
   * {@code //home/app/counts} for YTsaurus).
   *
   * @param path the table's path, not blank, without control characters
   * @return a builder with no column and no attribute
   * @throws NullPointerException if {@code path} is null
   * @throws IllegalArgumentException if {@code path} is blank or holds control characters
   */
  public static Builder builder(String path) {
    return new Builder(path);
  }

  /** @return the table's path */
  public String path() {
    return path;
  }

  /** @return every key column in order, starting with {@value #HASH_COLUMN} */
  public List<Column> keyColumns() {
    return keyColumns;
  }

  /** @return the key columns callers provide: every key column but {@value #HASH_COLUMN}, in order */
  public List<Column> userKeyColumns() {
    return userKeyColumns;
  }

  /** @return the value columns in order */
  public List<Column> valueColumns() {
    return valueColumns;
  }

  /** @return every column: the key columns, then the value columns */
  public List<Column> columns() {
    return columns;
  }

  /** @return the attributes, sorted by name, unmodifiable */
  public Map<String, String> attributes() {
    return attributes;
  }

  /**
   * Finds a column by name.
   *
   * @param name the column's name; {@value #HASH_COLUMN} finds the hash column
   * @return the key or value column named {@code name}, or empty if the table has none
   * @throws NullPointerException if {@code name} is null
   */
  public Optional<Column> column(String name) {
    Objects.requireNonNull(name, "name");
    for (Column c : columns) {
      if (c.name().equals(name)) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }

  /**
   * A key of this table: shorthand for {@link TableKey#of(TableSchema, Object...)}.
   *
   * @param userKeyParts one value per {@link #userKeyColumns() user key column}, in order
   * @return the key, its hash computed from the parts
   * @throws NullPointerException if a key part is null
   * @throws IllegalArgumentException if the number of parts is wrong or a part has the wrong type
   */
  public TableKey key(Object... userKeyParts) {
    return TableKey.of(this, userKeyParts);
  }

  /** Index of a user key column (not counting {@value #HASH_COLUMN}), or -1. */
  int userKeyIndex(String name) {
    Integer i = keyIndex.get(name);
    return i == null ? -1 : i;
  }

  /** Index of a value column, or -1. */
  int valueIndex(String name) {
    Integer i = valueIndex.get(name);
    return i == null ? -1 : i;
  }

  @Override
  public boolean equals(Object o) {
    return o == this || o instanceof TableSchema other && other.path.equals(path) && other.columns.equals(columns)
        && other.keyColumns.size() == keyColumns.size() && other.attributes.equals(attributes);
  }

  @Override
  public int hashCode() {
    return Objects.hash(path, columns, keyColumns.size(), attributes);
  }

  /** @return e.g. {@code counts{key: [hash uint64 required, word string required], values: [value bytes], attributes: {}}} */
  @Override
  public String toString() {
    return path + "{key: " + keyColumns + ", values: " + valueColumns + ", attributes: " + attributes + "}";
  }

  /**
   * Builds a {@link TableSchema}. Not thread-safe. Every column name must be unique and must not be
   * {@value #HASH_COLUMN}.
   *
   * @since 0.1.0
   */
  public static final class Builder {
    private final String path;
    private final List<Column> keys = new ArrayList<>();
    private final List<Column> values = new ArrayList<>();
    private final Map<String, String> attributes = new TreeMap<>();

    private Builder(String path) {
      Objects.requireNonNull(path, "path");
      if (path.isBlank()) {
        throw new IllegalArgumentException("table path must not be blank");
      }
      for (int i = 0; i < path.length(); i++) {
        if (Character.isISOControl(path.charAt(i))) {
          throw new IllegalArgumentException("table path '" + path.replaceAll("\\p{Cntrl}", "?")
              + "' holds a control character");
        }
      }
      this.path = path;
    }

    /**
     * Appends a key column (after {@value #HASH_COLUMN} and the key columns added before).
     *
     * @param name the column's name, matching {@code [A-Za-z_][A-Za-z0-9_]*}
     * @param type the column's type; key columns are always required
     * @return this builder
     * @throws IllegalArgumentException if the name is invalid, {@value #HASH_COLUMN} or already used
     */
    public Builder key(String name, ColumnType type) {
      Column c = Column.required(name, type);
      checkNew(name);
      keys.add(c);
      return this;
    }

    /**
     * Appends a key column with the name and type of {@code column} (key columns are required whatever its
     * {@code required} says).
     *
     * @param column the column to append
     * @return this builder
     * @throws IllegalArgumentException if the name is {@value #HASH_COLUMN} or already used
     */
    public Builder key(Column column) {
      return key(column.name(), column.type());
    }

    /**
     * Appends a nullable value column.
     *
     * @param name the column's name, matching {@code [A-Za-z_][A-Za-z0-9_]*}
     * @param type the column's type
     * @return this builder
     * @throws IllegalArgumentException if the name is invalid, {@value #HASH_COLUMN} or already used
     */
    public Builder value(String name, ColumnType type) {
      return value(Column.of(name, type));
    }

    /**
     * Appends a required value column.
     *
     * @param name the column's name, matching {@code [A-Za-z_][A-Za-z0-9_]*}
     * @param type the column's type
     * @return this builder
     * @throws IllegalArgumentException if the name is invalid, {@value #HASH_COLUMN} or already used
     */
    public Builder requiredValue(String name, ColumnType type) {
      return value(Column.required(name, type));
    }

    /**
     * Appends a value column, nullable or required as {@code column} says.
     *
     * @param column the column to append
     * @return this builder
     * @throws IllegalArgumentException if the name is {@value #HASH_COLUMN} or already used
     */
    public Builder value(Column column) {
      Objects.requireNonNull(column, "column");
      checkNew(column.name());
      values.add(column);
      return this;
    }

    /**
     * Sets an attribute, checked like the columns when the table is opened.
     *
     * @param name the attribute's name, e.g. {@code epochal.layout}
     * @param value the attribute's value, e.g. {@code transactional:v1}
     * @return this builder
     * @throws NullPointerException if an argument is null
     * @throws IllegalStateException if the attribute was already set
     */
    public Builder attribute(String name, String value) {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(value, "value");
      if (attributes.containsKey(name)) {
        throw new IllegalStateException("attribute '" + name + "' of table " + path + " was already set to '"
            + attributes.get(name) + "'");
      }
      attributes.put(name, value);
      return this;
    }

    /**
     * Builds the schema; the builder can build again.
     *
     * @return the schema, immutable
     * @throws IllegalStateException if no key column besides {@value #HASH_COLUMN} was added
     */
    public TableSchema build() {
      if (keys.isEmpty()) {
        throw new IllegalStateException("table " + path + " needs at least one key column besides '" + HASH_COLUMN
            + "'");
      }
      return new TableSchema(this);
    }

    private void checkNew(String name) {
      Objects.requireNonNull(name, "name");
      if (name.equals(HASH_COLUMN)) {
        throw new IllegalArgumentException("table " + path + ": column '" + HASH_COLUMN + "' is reserved: it is the "
            + "first key column, computed by the store as farm_hash of the other key columns");
      }
      for (Column c : keys) {
        if (c.name().equals(name)) {
          throw new IllegalArgumentException("table " + path + ": column '" + name + "' is declared twice");
        }
      }
      for (Column c : values) {
        if (c.name().equals(name)) {
          throw new IllegalArgumentException("table " + path + ": column '" + name + "' is declared twice");
        }
      }
    }
  }
}
