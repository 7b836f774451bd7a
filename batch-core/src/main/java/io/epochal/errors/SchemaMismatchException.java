package io.epochal.errors;

/**
 * A table exists with another schema (columns, types, key order or attributes such as the codec or layout version)
 * than the one a store was asked to open it with. The message shows the expected and the actual schema; nothing was
 * changed.
 *
 * @since 0.1.0
 */
public final class SchemaMismatchException extends StoreException {
  private static final long serialVersionUID = 1L;

  /**
   * @param path the table's path
   * @param expected the schema asked for
   * @param actual the schema the table has
   */
  public SchemaMismatchException(String path, Object expected, Object actual) {
    super("Table " + path + " exists with a different schema: expected " + expected + ", actual " + actual
        + ". Point the state at another table, or migrate the table.", null, false, ErrorContext.of(path, null));
  }
}
