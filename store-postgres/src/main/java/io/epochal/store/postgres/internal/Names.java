package io.epochal.store.postgres.internal;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * SQL identifiers: quoting, and the names of the tables that hold Epochal tables. Stateless and thread-safe.
 *
 * <p>A table path (any text, e.g. {@code wordcount/counts_tx} or {@code //home/app/counts}) is never spliced into
 * SQL. Each table gets a SQL name {@code t<id>_<slug>} when it is created: {@code <id>} is the next value of the
 * store's sequence {@code epochal_table_ids}, {@code <slug>} the path lower-cased with every run of characters other
 * than {@code [a-z0-9]} replaced by one {@code _}, trimmed and cut to {@value #SLUG_MAX} characters (for people
 * reading the database). The id alone makes names unique (the text between {@code t} and the first {@code _} is
 * the id), so two paths can never share a table; the registry table {@code epochal_tables} maps each path to its
 * name. Every name is at most 61 bytes, under PostgreSQL's 63-byte limit, so nothing is truncated. The store's
 * own tables are named {@code epochal_*}, which never starts with {@code t<digit>}.
 */
public final class Names {
  /** The longest slug kept in a table name. */
  public static final int SLUG_MAX = 40;
  /** PostgreSQL's identifier limit in bytes (NAMEDATALEN - 1); longer names are silently truncated by the server. */
  public static final int MAX_IDENTIFIER_BYTES = 63;

  private Names() {
  }

  /**
   * Quotes an identifier for splicing into SQL, after the checks of {@link #check}.
   *
   * @param identifier the unquoted name of a schema, table, column or constraint; non-empty, without NUL, at most
   *     {@value #MAX_IDENTIFIER_BYTES} bytes in UTF-8
   * @return {@code identifier} as a quoted SQL identifier ({@code "..."}, inner quotes doubled)
   * @throws IllegalArgumentException if it is empty, holds NUL or is longer than 63 bytes in UTF-8
   */
  public static String quote(String identifier) {
    check(identifier, "identifier");
    return '"' + identifier.replace("\"", "\"\"") + '"';
  }

  /**
   * Checks that PostgreSQL keeps {@code identifier} as it is: not empty, no NUL, and not truncated by the server.
   *
   * @param identifier the unquoted identifier to check
   * @param what what the identifier names (e.g. {@code "schema"}), the subject of the exception's message
   * @throws IllegalArgumentException if {@code identifier} is empty, holds NUL or is longer than 63 bytes in UTF-8
   */
  public static void check(String identifier, String what) {
    if (identifier.isEmpty()) {
      throw new IllegalArgumentException(what + " must not be empty");
    }
    if (identifier.indexOf('\0') >= 0) {
      throw new IllegalArgumentException(what + " '" + identifier.replace('\0', '?') + "' holds NUL");
    }
    int bytes = identifier.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_IDENTIFIER_BYTES) {
      throw new IllegalArgumentException(what + " '" + identifier + "' is " + bytes + " bytes long; PostgreSQL "
          + "identifiers hold at most " + MAX_IDENTIFIER_BYTES + " bytes (longer ones would be truncated)");
    }
  }

  /**
   * Builds the SQL name of a newly registered table.
   *
   * @param id the table's registry id from the sequence {@code epochal_table_ids}; positive, and unique in the store,
   *     which alone makes the name unique
   * @param path the table's Epochal path, any text; only its slug (see the class comment) enters the name
   * @return the SQL name of the table with registry id {@code id} and path {@code path}: {@code t<id>_<slug>},
   *     unquoted, at most 61 bytes
   * @throws IllegalArgumentException if {@code id} is not positive
   */
  public static String tableName(long id, String path) {
    if (id < 1) {
      throw new IllegalArgumentException("table id must be positive, was " + id);
    }
    return "t" + id + "_" + slug(path);
  }

  /** @return the readable part of a table name: {@code [a-z0-9_]}, at most {@value #SLUG_MAX} characters */
  static String slug(String path) {
    StringBuilder sb = new StringBuilder();
    boolean gap = false;
    for (char c : path.toLowerCase(Locale.ROOT).toCharArray()) {
      if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
        if (gap && sb.length() > 0) {
          sb.append('_');
        }
        gap = false;
        sb.append(c);
      } else {
        gap = true;
      }
      if (sb.length() >= SLUG_MAX) {
        break;
      }
    }
    String s = sb.length() > SLUG_MAX ? sb.substring(0, SLUG_MAX) : sb.toString();
    while (s.endsWith("_")) {
      s = s.substring(0, s.length() - 1);
    }
    return s.isEmpty() ? "table" : s;
  }
}
