package io.epochal.flow.internal;

import io.epochal.errors.SchemaMismatchException;
import io.epochal.store.table.CellLayout;
import io.epochal.store.table.Column;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import java.util.List;
import java.util.Optional;

/** Opening and validating the tables of Flow states. Internal. */
final class Tables {
  private Tables() {
  }

  /** The schema of an internal state table: key columns, layout columns, key/codec/layout ids as attributes. */
  static TableSchema internalSchema(String path, KeyCodec<?> keys, String codecId, CellLayout<?> layout) {
    TableSchema.Builder b = TableSchema.builder(path);
    for (Column c : keys.columns()) {
      b.key(c);
    }
    for (Column c : layout.valueColumns()) {
      b.value(c);
    }
    return b.attribute("epochal.layout", layout.id()).attribute("epochal.key", keys.id())
        .attribute("epochal.codec", codecId).build();
  }

  /** Creates the internal table, or checks the existing one has exactly the expected schema. */
  static Table openInternal(TableStore store, String path, KeyCodec<?> keys, String codecId, CellLayout<?> layout) {
    return store.openTable(internalSchema(path, keys, codecId, layout));
  }

  /**
   * Opens a user-created table and checks it fits: its user key columns are the key codec's, it has every layout
   * column with the same type, and every required value column is one the layout writes.
   *
   * @throws IllegalStateException if the table does not exist
   * @throws SchemaMismatchException if it does not fit
   */
  static Table openExternal(TableStore store, String path, KeyCodec<?> keys, CellLayout<?> layout, String what) {
    Optional<Table> found = store.findTable(path);
    String expected = "user key columns " + keys.columns() + " and value columns " + layout.valueColumns();
    if (found.isEmpty()) {
      throw new IllegalStateException("The table " + path + " of " + what + " does not exist in "
          + store.describe() + ". An external table is created by its user: create it with " + expected + ".");
    }
    Table table = found.get();
    TableSchema actual = table.schema();
    if (!sameKeyColumns(actual.userKeyColumns(), keys.columns())) {
      throw new SchemaMismatchException(path, expected, actual);
    }
    for (Column c : layout.valueColumns()) {
      Optional<Column> have = actual.column(c.name());
      if (have.isEmpty() || have.get().type() != c.type()
          || actual.keyColumns().stream().anyMatch(k -> k.name().equals(c.name()))) {
        throw new SchemaMismatchException(path, expected, actual);
      }
    }
    for (Column c : actual.valueColumns()) {
      if (c.required() && layout.valueColumns().stream().noneMatch(l -> l.name().equals(c.name()))) {
        throw new SchemaMismatchException(path, expected + " (the table's required value column '" + c.name()
            + "' is not written by the state's layout)", actual);
      }
    }
    return table;
  }

  private static boolean sameKeyColumns(List<Column> actual, List<Column> expected) {
    if (actual.size() != expected.size()) {
      return false;
    }
    for (int i = 0; i < actual.size(); i++) {
      if (!actual.get(i).name().equals(expected.get(i).name()) || actual.get(i).type() != expected.get(i).type()) {
        return false;
      }
    }
    return true;
  }
}
