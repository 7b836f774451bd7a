package io.epochal.store.ytsaurus.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.SchemaMismatchException;
import io.epochal.errors.StoreException;
import io.epochal.store.table.Row;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Limits and checks shared by the two transaction kinds. Stateless. */
public final class YtTableStoreSupport {
  /** Keys per {@code lookup_rows} request. */
  public static final int LOOKUP_CHUNK = 10_000;
  /** Row limit of a {@code select_rows} scan. */
  public static final long SCAN_LIMIT = 10_000_000L;
  /** YTsaurus' default limit of rows written by one transaction. */
  public static final int MAX_ROWS_PER_TRANSACTION = 100_000;

  private YtTableStoreSupport() {
  }

  /**
   * Checks a {@code keep_missing_rows=true} answer (exactly one line per key, in key order; a JSON {@code null} or an
   * empty object for a missing key) and parses it. The row-count check also catches an error that arrived only as an
   * HTTP trailer, which {@code java.net.http} cannot read.
   *
   * @param table the table
   * @param keys the keys asked, in order
   * @param rows the answer
   * @return one element per key
   * @throws StoreException if the count differs (retryable: an answer cut short) or a key differs (not retryable)
   * @throws io.epochal.errors.StateCorruptedException if a row does not fit the schema
   */
  public static List<Optional<Row>> matchLookup(YtTable table, List<TableKey> keys, List<JsonNode> rows) {
    if (rows.size() != keys.size()) {
      throw partialAnswer(table.schema().path(), table.ytPath(), rows.size(), keys.size());
    }
    List<Optional<Row>> out = new ArrayList<>(keys.size());
    for (int i = 0; i < keys.size(); i++) {
      JsonNode r = rows.get(i);
      if (isMissing(r)) {
        out.add(Optional.empty());
        continue;
      }
      Row row = YtRowCodec.rowFromJson(table.schema(), r, keys.get(i));
      if (!row.key().equals(keys.get(i))) {
        throw wrongKey(table.schema().path(), table.ytPath(), i, row.key(), keys.get(i));
      }
      out.add(Optional.of(row));
    }
    return out;
  }

  /**
   * The error for a lookup answer with fewer or more rows than keys asked.
   *
   * @param path the logical table path
   * @param ytPath the physical table
   * @param answered the rows answered
   * @param asked the keys asked
   * @return the error for a {@code keep_missing_rows=true} answer with another row count than keys: retryable (an
   *     answer cut short in transit, or an error sent as an HTTP trailer, which {@code java.net.http} cannot read)
   */
  public static StoreException partialAnswer(String path, String ytPath, int answered, int asked) {
    return new StoreException("lookup_rows on " + ytPath + " (table " + path + ") with keep_missing_rows=true "
        + "answered " + answered + " rows for " + asked + " keys (an answer cut short, or an error sent as an HTTP "
        + "trailer); refusing a partial answer", null, true, ErrorContext.of(path, null));
  }

  /**
   * @return the error for a lookup answer whose row at {@code position} has another key than the one asked: not
   *     retryable (the server or the string convention disagrees with the client)
   */
  static StoreException wrongKey(String path, String ytPath, int position, TableKey answered, TableKey asked) {
    return new StoreException("lookup_rows on " + ytPath + " (table " + path + ") answered key "
        + answered.describeParts() + " at position " + position + " where " + asked.describeParts()
        + " was asked; refusing the answer", null, false, ErrorContext.of(path, asked.describeParts()));
  }

  /**
   * Tells whether a lookup answer's line stands for a missing row.
   *
   * @param row a line of a {@code keep_missing_rows} answer
   * @return whether it stands for a missing row ({@code null}, or an object without any column)
   */
  public static boolean isMissing(JsonNode row) {
    return row == null || row.isNull() || row.isMissingNode() || (row.isObject() && row.isEmpty());
  }

  /**
   * Reads the schema of the table at {@code ytPath}; empty if there is no table; throws
   * {@link SchemaMismatchException} if it differs from {@code expected} (when given).
   *
   * @param cypress the Cypress client the schema, the attributes and {@code @dynamic} are read with
   * @param logicalPath the table's path in the store, named in errors
   * @param ytPath the table's Cypress path
   * @param expected the schema the table must have, or {@code null} to accept any table-store table
   * @return the table's schema, empty if no node exists at {@code ytPath}
   * @throws SchemaMismatchException if the node is not a table, or (with {@code expected}) is not a dynamic table
   *     with exactly that schema
   * @throws StoreException if (without {@code expected}) the table is not a sorted dynamic table of the table-store
   *     layout
   */
  public static Optional<TableSchema> readSchema(YtCypress cypress, String logicalPath, String ytPath,
      TableSchema expected) {
    Optional<JsonNode> ytSchema = cypress.get(ytPath + "/@schema");
    if (ytSchema.isEmpty()) {
      if (cypress.exists(ytPath)) {
        throw new SchemaMismatchException(logicalPath, expected == null ? "a sorted dynamic table" : expected,
            ytPath + " is not a table");
      }
      return Optional.empty();
    }
    JsonNode attributes = cypress.get(ytPath + "/@" + YtSchemas.ATTRIBUTES_ATTRIBUTE).orElse(null);
    boolean dynamic = cypress.get(ytPath + "/@dynamic").map(JsonNode::asBoolean).orElse(false);
    Optional<TableSchema> actual = YtSchemas.fromYt(logicalPath, ytSchema.get(), attributes);
    Object actualShown = actual.isPresent() && dynamic ? actual.get()
        : (dynamic ? "" : "a static table ") + YtSchemas.describeYt(ytSchema.get(), attributes);
    if (expected != null && (!dynamic || actual.isEmpty() || !actual.get().equals(expected))) {
      throw new SchemaMismatchException(logicalPath, expected, actualShown);
    }
    if (expected == null && (!dynamic || actual.isEmpty())) {
      throw new StoreException("table " + ytPath + " is not a table-store table (a sorted dynamic table whose first "
          + "key column is hash = farm_hash(<other key columns>)): " + actualShown);
    }
    return actual;
  }
}
