package io.epochal.errors;

import io.epochal.api.Stable;
import java.util.Objects;

/**
 * A table exists with another schema (columns, types, key order or attributes such as the codec or layout version)
 * than the one a store was asked to open it with. The message shows the expected and the actual schema; nothing was
 * changed. {@link #context()} names the table by its path; {@link #expected()} and {@link #actual()} describe the two
 * schemas.
 *
 * <p>Immutable once thrown.
 *
 * @since 0.1.0
 */
@Stable
public final class SchemaMismatchException extends StoreException {
  private static final long serialVersionUID = 1L;

  /** The schema asked for, as text. */
  private final String expected;
  /** The schema the table has, as text. */
  private final String actual;

  /**
   * A table found with another schema than asked for; not retryable.
   *
   * @param path the table's path
   * @param expected the schema asked for
   * @param actual the schema the table has
   */
  public SchemaMismatchException(String path, Object expected, Object actual) {
    this(path, null, expected, actual);
  }

  /**
   * A table found with another schema than asked for, naming where it lives; not retryable.
   *
   * @param path the table's path (the context's table)
   * @param location where the table lives, for the message (e.g. the physical table and store), or null
   * @param expected the schema asked for
   * @param actual the schema the table has
   * @since 0.4.0
   */
  public SchemaMismatchException(String path, String location, Object expected, Object actual) {
    super("Table " + path + (location == null ? "" : " (" + location + ")") + " exists with a different schema:"
        + " expected " + expected + ", actual " + actual + ". Point the state at another table, or migrate the table.",
        null, false, ErrorContext.of(Objects.requireNonNull(path, "path"), null));
    this.expected = String.valueOf(expected);
    this.actual = String.valueOf(actual);
  }

  /** @return the schema asked for, as text */
  public String expected() {
    return expected;
  }

  /** @return the schema the table has, as text */
  public String actual() {
    return actual;
  }
}
