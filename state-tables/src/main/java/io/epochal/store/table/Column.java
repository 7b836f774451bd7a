package io.epochal.store.table;

import io.epochal.api.Evolving;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A named, typed column of a {@link TableSchema}. Key columns are always required (never null); value columns are
 * nullable unless {@code required}.
 *
 * <p>Names match {@code [A-Za-z_][A-Za-z0-9_]*}. Immutable and thread-safe.
 *
 * @param name the column name
 * @param type the column type
 * @param required whether a value column must hold a value in every row (always true for key columns)
 * @since 0.1.0
 */
@Evolving
public record Column(String name, ColumnType type, boolean required) {
  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  /**
   * Validates a column.
   *
   * @param name the column name, matching {@code [A-Za-z_][A-Za-z0-9_]*}
   * @param type the column type
   * @param required whether a value column must hold a value in every row (ignored for key columns, which are
   *     always required)
   * @throws NullPointerException if {@code name} or {@code type} is null
   * @throws IllegalArgumentException if {@code name} is not a valid column name
   */
  public Column {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("invalid column name '" + name + "': expected [A-Za-z_][A-Za-z0-9_]*");
    }
  }

  /**
   * Makes a nullable column.
   *
   * @param name the column name, matching {@code [A-Za-z_][A-Za-z0-9_]*}
   * @param type the column type
   * @return a column that is not {@code required}
   * @throws NullPointerException if {@code name} or {@code type} is null
   * @throws IllegalArgumentException if {@code name} is not a valid column name
   */
  public static Column of(String name, ColumnType type) {
    return new Column(name, type, false);
  }

  /**
   * Makes a required (non-null) column.
   *
   * @param name the column name, matching {@code [A-Za-z_][A-Za-z0-9_]*}
   * @param type the column type
   * @return a {@code required} column
   * @throws NullPointerException if {@code name} or {@code type} is null
   * @throws IllegalArgumentException if {@code name} is not a valid column name
   */
  public static Column required(String name, ColumnType type) {
    return new Column(name, type, true);
  }

  @Override
  public String toString() {
    return name + " " + type.displayName() + (required ? " required" : "");
  }
}
