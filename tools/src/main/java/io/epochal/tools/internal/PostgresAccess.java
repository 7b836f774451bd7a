package io.epochal.tools.internal;

import io.epochal.errors.StateCorruptedException;
import io.epochal.errors.StoreException;
import io.epochal.store.postgres.PostgresTableStore;
import io.epochal.store.table.Column;
import io.epochal.store.table.Row;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A PostgreSQL store opened read-only: every session, the store's pool and this class' own connection, runs with
 * {@code default_transaction_read_only=on} (a pgjdbc {@code options} URL parameter), so the server refuses any write,
 * and the tool never takes a lease. Tables are listed from the store's registry {@code epochal_tables}; a table whose
 * scan meets an unreadable row is read again key by key (the keys listed in SQL), so each bad row is reported and the
 * others shown. Thread-safe.
 */
public final class PostgresAccess implements StoreAccess {
  /** The pgjdbc URL parameter that makes every transaction of a session read-only. */
  static final String READ_ONLY_OPTION = "options=-c%20default_transaction_read_only%3Don";

  private final String url;
  private final String user;
  private final String password;
  private final String schema;
  private final PostgresTableStore store;

  /**
   * Opens the store read-only ({@code default_transaction_read_only=on}).
   *
   * @param jdbcUrl {@code jdbc:postgresql://HOST:PORT/DB}
   * @param user the database user, or null for the driver's default
   * @param password the password, or null for none
   * @param schema the schema holding the store's tables, or null for {@code epochal}
   */
  public PostgresAccess(String jdbcUrl, String user, String password, String schema) {
    this.url = jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?") + READ_ONLY_OPTION;
    this.user = user;
    this.password = password;
    this.schema = schema == null ? "epochal" : schema;
    PostgresTableStore.Builder b = PostgresTableStore.builder(url).schema(this.schema).poolSize(2);
    if (user != null) {
      b.user(user);
    }
    if (password != null) {
      b.password(password);
    }
    this.store = b.build();
  }

  @Override
  public TableStore store() {
    return store;
  }

  @Override
  public List<String> tablePaths() {
    List<String> paths = new ArrayList<>();
    query("SELECT path FROM " + quote(schema) + ".epochal_tables ORDER BY path", rs -> paths.add(rs.getString(1)));
    return paths;
  }

  @Override
  public void inspect(Table table, Consumer<Cell> sink) {
    StoreAccess.scan(store, table, sink, Optional.of(() -> byKey(table, sink)));
  }

  private void byKey(Table table, Consumer<Cell> sink) {
    List<Column> columns = table.schema().userKeyColumns();
    StringBuilder select = new StringBuilder("SELECT ");
    for (int i = 0; i < columns.size(); i++) {
      select.append(i == 0 ? "" : ", ").append(quote(columns.get(i).name()));
    }
    String sqlName = store.sqlTableName(table.path()).orElseThrow();
    select.append(" FROM ").append(sqlName).append(" ORDER BY hash");
    List<TableKey> keys = new ArrayList<>();
    query(select.toString(), rs -> {
      Object[] parts = new Object[columns.size()];
      for (int i = 0; i < parts.length; i++) {
        parts[i] = switch (columns.get(i).type()) {
          case INT64 -> rs.getLong(i + 1);
          case UINT64 -> rs.getLong(i + 1) ^ Long.MIN_VALUE; // stored with the top bit flipped
          case DOUBLE -> rs.getDouble(i + 1);
          case BOOLEAN -> rs.getBoolean(i + 1);
          case STRING -> rs.getString(i + 1);
          case BYTES -> rs.getBytes(i + 1);
        };
      }
      keys.add(TableKey.of(table.schema(), parts));
    });
    for (TableKey key : keys) {
      try {
        Optional<Row> row = get(table, key);
        row.ifPresent(r -> sink.accept(Cell.of(r)));
      } catch (StateCorruptedException e) {
        sink.accept(Cell.failed(key.toString(), Errors.oneLine(e)));
      }
    }
  }

  /** A row handler that may throw {@link SQLException}. */
  private interface RowHandler {
    void handle(ResultSet rs) throws SQLException;
  }

  private void query(String sql, RowHandler handler) {
    try (Connection c = DriverManager.getConnection(url, user, password);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        handler.handle(rs);
      }
    } catch (SQLException e) {
      throw new StoreException("cannot read " + store.describe() + ": " + e.getMessage(), e, false,
          io.epochal.errors.ErrorContext.NONE);
    }
  }

  private static String quote(String name) {
    return '"' + name.replace("\"", "\"\"") + '"';
  }

  @Override
  public void close() {
    store.close();
  }
}
