package io.epochal.store.ytsaurus.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.epochal.errors.StoreException;
import io.epochal.store.table.Row;
import io.epochal.store.table.TableKey;
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
   * @throws StoreException if the count or a key differs
   */
  public static List<Optional<Row>> matchLookup(YtTable table, List<TableKey> keys, List<JsonNode> rows) {
    if (rows.size() != keys.size()) {
      throw new StoreException("lookup_rows on " + table.ytPath() + " with keep_missing_rows=true answered "
          + rows.size() + " rows for " + keys.size() + " keys (an error may have been sent as an HTTP trailer); "
          + "refusing a partial answer");
    }
    List<Optional<Row>> out = new ArrayList<>(keys.size());
    for (int i = 0; i < keys.size(); i++) {
      JsonNode r = rows.get(i);
      if (isMissing(r)) {
        out.add(Optional.empty());
        continue;
      }
      Row row = YtRowCodec.rowFromJson(table.schema(), r);
      if (!row.key().equals(keys.get(i))) {
        throw new StoreException("lookup_rows on " + table.ytPath() + " answered key " + row.key() + " at position "
            + i + " where " + keys.get(i) + " was asked");
      }
      out.add(Optional.of(row));
    }
    return out;
  }

  /**
   * @param row a line of a {@code keep_missing_rows} answer
   * @return whether it stands for a missing row ({@code null}, or an object without any column)
   */
  public static boolean isMissing(JsonNode row) {
    return row == null || row.isNull() || row.isMissingNode() || (row.isObject() && row.isEmpty());
  }
}
