package io.epochal.store.table;

import io.epochal.api.Evolving;
import io.epochal.hash.FarmHash;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * The key of one row of a table: the values of the schema's user key columns, validated and normalized, plus the
 * {@value TableSchema#HASH_COLUMN} column computed here as {@link FarmHash#farmHash(Object...) farm_hash} of those
 * values in order (YTsaurus' {@code farm_hash}, bit for bit). Callers never pass the hash.
 *
 * <p>Ordering ({@link #compareTo}) is YTsaurus key order: by {@code hash} as unsigned, then column by column (see
 * {@link ColumnType}). Two keys are equal when their tables' paths and their values are equal ({@code byte[]} by
 * content).
 *
 * <p>Immutable and thread-safe; {@code byte[]} parts are copied on the way in and out.
 *
 * @since 0.1.0
 */
@Evolving
public final class TableKey implements Comparable<TableKey> {
  private final TableSchema schema;
  private final Object[] parts;
  /**
   * {@code parts[0]} (null for a key of no parts), held inline so that comparing single-part keys, as a hash probe
   * of a table's rows does, reads no array. Fits the object's alignment padding.
   */
  private final Object first;
  private final long hash;

  private TableKey(TableSchema schema, Object[] parts) {
    this.schema = schema;
    this.parts = parts;
    this.first = parts.length == 0 ? null : parts[0];
    this.hash = FarmHash.farmHash(parts);
  }

  /**
   * A key of {@code schema}'s table from the values of its user key columns, in order.
   *
   * @param schema the table's schema
   * @param userKeyParts one value per {@link TableSchema#userKeyColumns() user key column}, in order
   * @return the key, its hash computed from the parts
   * @throws NullPointerException if {@code schema} or the array is null, or a key part is null (the message names
   *     the table and the column)
   * @throws IllegalArgumentException if the number of parts is wrong or a part has the wrong type (the message names
   *     the table and the column)
   */
  public static TableKey of(TableSchema schema, Object... userKeyParts) {
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(userKeyParts, "userKeyParts");
    List<Column> columns = schema.userKeyColumns();
    if (userKeyParts.length != columns.size()) {
      throw new IllegalArgumentException("table " + schema.path() + " has " + columns.size() + " key column(s) "
          + names(columns) + " besides '" + TableSchema.HASH_COLUMN + "', got " + userKeyParts.length
          + " value(s)");
    }
    Object[] normalized = new Object[userKeyParts.length];
    for (int i = 0; i < normalized.length; i++) {
      normalized[i] = normalizedPart(schema, columns.get(i), userKeyParts[i]);
    }
    return new TableKey(schema, normalized);
  }

  /** One user key part, checked and normalized; the message (built only on failure) names the table and column. */
  private static Object normalizedPart(TableSchema schema, Column c, Object part) {
    Object fast = part == null ? null : c.type().normalizeValid(part);
    if (fast != null) {
      return fast;
    }
    java.util.function.Supplier<String> what = () -> "table " + schema.path() + " key column '" + c.name() + "' ("
        + c.type().displayName() + ")";
    if (part == null) {
      throw new NullPointerException(what.get() + " must not be null");
    }
    return c.type().normalize(part, what);
  }

  /**
   * Like {@link #of(TableSchema, Object...)} with the parts in a list.
   *
   * @param schema the table's schema
   * @param userKeyParts one value per {@link TableSchema#userKeyColumns() user key column}, in order
   * @return the key, its hash computed from the parts
   * @throws NullPointerException if {@code schema} or the list is null, or a key part is null
   * @throws IllegalArgumentException if the number of parts is wrong or a part has the wrong type
   */
  public static TableKey of(TableSchema schema, List<?> userKeyParts) {
    Objects.requireNonNull(userKeyParts, "userKeyParts");
    Objects.requireNonNull(schema, "schema");
    List<Column> columns = schema.userKeyColumns();
    int n = userKeyParts.size();
    if (n != columns.size()) {
      return of(schema, userKeyParts.toArray()); // throws the count's message
    }
    // normalized straight from the list: one array, not a copy of the list's and then the normalized one
    Object[] normalized = new Object[n];
    for (int i = 0; i < n; i++) {
      normalized[i] = normalizedPart(schema, columns.get(i), userKeyParts.get(i));
    }
    return new TableKey(schema, normalized);
  }

  /** @return the schema of the key's table */
  public TableSchema schema() {
    return schema;
  }

  /** @return the {@value TableSchema#HASH_COLUMN} column: farm_hash of the user key parts (read it as unsigned) */
  public long hash() {
    return hash;
  }

  /** @return the number of user key parts */
  public int size() {
    return parts.length;
  }

  /**
   * Reads a user key part by position.
   *
   * @param index the position among the user key columns, from 0 (the hash is not counted)
   * @return the user key part at {@code index}; a {@code byte[]} is a copy
   * @throws IndexOutOfBoundsException if {@code index} is not below {@link #size()}
   */
  public Object get(int index) {
    Objects.checkIndex(index, parts.length);
    return exposed(parts[index]);
  }

  /**
   * Reads a key column by name.
   *
   * @param column the key column's name; {@value TableSchema#HASH_COLUMN} gives the hash
   * @return the value of key column {@code column}, the hash as a {@link Long}; a {@code byte[]} is a copy
   * @throws IllegalArgumentException if the table has no such key column
   */
  public Object get(String column) {
    Objects.requireNonNull(column, "column");
    if (column.equals(TableSchema.HASH_COLUMN)) {
      return hash;
    }
    int i = schema.userKeyIndex(column);
    if (i < 0) {
      throw new IllegalArgumentException("table " + schema.path() + " has no key column '" + column + "'");
    }
    return exposed(parts[i]);
  }

  /** @return the user key parts in order, unmodifiable ({@code byte[]} elements are copies) */
  public List<Object> parts() {
    List<Object> out = new ArrayList<>(parts.length);
    for (Object p : parts) {
      out.add(exposed(p));
    }
    return Collections.unmodifiableList(out);
  }

  /** The normalized part, not copied (package-internal hot path). */
  Object rawPart(int index) {
    return parts[index];
  }

  /**
   * Compares in YTsaurus key order: {@code hash} unsigned, then each key column. Keys of different tables compare
   * by their values only (the table path is not part of the order).
   */
  @Override
  public int compareTo(TableKey other) {
    int c = Long.compareUnsigned(hash, other.hash);
    if (c != 0) {
      return c;
    }
    List<Column> columns = schema.userKeyColumns();
    int n = Math.min(parts.length, other.parts.length);
    for (int i = 0; i < n; i++) {
      c = columns.get(i).type().compare(parts[i], other.parts[i]);
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(parts.length, other.parts.length);
  }

  @Override
  public boolean equals(Object o) {
    return o == this || o instanceof TableKey other && other.hash == hash && partsEqual(other, this)
        && (other.schema == schema || other.schema.path().equals(schema.path()));
  }

  /**
   * {@code Arrays.deepEquals} of the normalized parts (no nested arrays besides {@code byte[]}), on the lookup path:
   * the first parts are compared from the inline field, so a single-part key's comparison reads no array.
   */
  private static boolean partsEqual(TableKey ka, TableKey kb) {
    Object fa = ka.first;
    Object fb = kb.first;
    if (fa != fb && (fa == null || fb == null || !partEqual(fa, fb))) {
      return false;
    }
    Object[] a = ka.parts;
    Object[] b = kb.parts;
    if (a.length != b.length) {
      return false;
    }
    for (int i = 1; i < a.length; i++) {
      Object x = a[i];
      Object y = b[i];
      if (x != y && !partEqual(x, y)) {
        return false;
      }
    }
    return true;
  }

  private static boolean partEqual(Object x, Object y) {
    return x instanceof byte[] bx ? y instanceof byte[] by && Arrays.equals(bx, by) : x.equals(y);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(hash);
  }

  /** @return e.g. {@code counts[hash=1234, word=foo]} */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder(schema.path()).append("[hash=").append(Long.toUnsignedString(hash));
    List<Column> columns = schema.userKeyColumns();
    for (int i = 0; i < parts.length; i++) {
      sb.append(", ").append(columns.get(i).name()).append('=').append(Row.show(parts[i]));
    }
    return sb.append(']').toString();
  }

  /** @return the user key parts joined for messages, e.g. {@code foo} or {@code (foo, 3)} */
  public String describeParts() {
    if (parts.length == 1) {
      return Row.show(parts[0]);
    }
    StringBuilder sb = new StringBuilder("(");
    for (int i = 0; i < parts.length; i++) {
      sb.append(i == 0 ? "" : ", ").append(Row.show(parts[i]));
    }
    return sb.append(')').toString();
  }

  private static Object exposed(Object part) {
    return part instanceof byte[] b ? b.clone() : part;
  }

  private static String names(List<Column> columns) {
    List<String> names = new ArrayList<>();
    for (Column c : columns) {
      names.add(c.name());
    }
    return names.toString();
  }
}
