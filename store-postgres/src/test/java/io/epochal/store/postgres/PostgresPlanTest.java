package io.epochal.store.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.store.postgres.internal.PgTable;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The plans PostgreSQL picks for the store's batched statements, from {@code EXPLAIN} on the real server of
 * {@link TestPostgres} with the statements' own SQL and bound arrays: every key must probe the state table's
 * primary-key index, never a sequential scan of the table (which makes a lookup or a commit cost what the table
 * holds instead of what the batch holds). Checked for an analyzed table larger than the batch, a table whose
 * statistics were never gathered, and the commit's upsert and delete statements inside a store transaction's planner
 * settings.
 */
class PostgresPlanTest {
  private static final int ROWS = 20_000;
  private static final int BATCH = 10_000;

  private final TestPostgres pg = TestPostgres.get();
  private final String schema = pg.freshSchema("plan");
  private final PostgresTableStore store = pg.store(schema).build();

  @AfterEach
  void close() {
    store.close();
  }

  private static TableSchema counts(String path) {
    return TableSchema.builder(path).key("word", ColumnType.STRING).value("count", ColumnType.INT64)
        .value("note", ColumnType.BYTES).build();
  }

  /** A table of {@link #ROWS} rows {@code w0..}, analyzed as autovacuum would. */
  private TableHandle filledTable() {
    Table t = store.openTable(counts("plan/filled"));
    List<Row> rows = new ArrayList<>(ROWS);
    for (int i = 0; i < ROWS; i++) {
      rows.add(Row.of(t.schema().key("w" + i), (long) i, new byte[] {(byte) i}));
    }
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(t, rows);
      tx.commit();
    }
    pg.sql("ANALYZE " + store.sqlTableName("plan/filled").orElseThrow());
    return store.handleOf(t);
  }

  /** {@link #BATCH} keys, every other one present in {@link #filledTable()}. */
  private static List<TableKey> batchKeys(TableSchema s) {
    List<TableKey> keys = new ArrayList<>(BATCH);
    for (int i = 0; i < BATCH; i++) {
      keys.add(s.key(i % 2 == 0 ? "w" + (i * 2) : "new" + i));
    }
    return keys;
  }

  private Connection connect() throws SQLException {
    return DriverManager.getConnection(pg.jdbcUrl(), TestPostgres.USER, TestPostgres.PASSWORD);
  }

  private static String explain(Connection c, String sql, Array[] arrays) throws SQLException {
    StringBuilder plan = new StringBuilder();
    try (PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql)) {
      RowLookup.bind(ps, arrays);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
    }
    return plan.toString();
  }

  /** Fails on a sequential scan of {@code h}'s table; requires a probe of its primary key. */
  private static void assertIndexProbes(TableHandle h, String what, String plan) {
    String table = h.pg.sqlName();
    assertFalse(plan.contains("Seq Scan on " + table), what + " scans the whole state table:\n" + plan);
    assertTrue(plan.contains("Index Scan using " + table + "_pkey on " + table)
        || plan.contains("Index Only Scan using " + table + "_pkey on " + table),
        what + " does not probe the primary key of " + table + ":\n" + plan);
  }

  @Test
  void shouldLookUpABatchThroughThePrimaryKeyOfAnAnalyzedTable() throws Exception {
    TableHandle h = filledTable();
    List<TableKey> keys = batchKeys(h.schema());
    try (Connection c = connect()) {
      assertIndexProbes(h, "the lookup of " + BATCH + " keys", explain(c, h.pg.lookupSql(), h.pg.keyArrays(c, keys)));
    }
    // the same statement really answers: present keys found in place, absent ones empty
    List<Optional<Row>> found = store.lookup(h, keys);
    assertEquals(BATCH, found.size());
    assertEquals(0L, found.get(0).orElseThrow().getLong("count"));
    assertEquals(4L, found.get(2).orElseThrow().getLong("count"));
    assertTrue(found.get(1).isEmpty());
  }

  @Test
  void shouldLookUpABatchThroughThePrimaryKeyOfATableNeverAnalyzed() throws Exception {
    Table t = store.openTable(counts("plan/fresh"));
    TableHandle h = store.handleOf(t);
    List<TableKey> keys = batchKeys(h.schema());
    try (Connection c = connect()) {
      assertIndexProbes(h, "the lookup in a fresh table", explain(c, h.pg.lookupSql(), h.pg.keyArrays(c, keys)));
    }
  }

  @Test
  void shouldWriteABatchThroughThePrimaryKeyInsideAStoreTransaction() throws Exception {
    TableHandle h = filledTable();
    List<TableKey> keys = batchKeys(h.schema());
    List<List<Object>> values = new ArrayList<>(keys.size());
    int[] crcs = new int[keys.size()];
    for (int i = 0; i < keys.size(); i++) {
      values.add(List.of((long) i, new byte[] {1}));
    }
    PgTable t = h.pg;
    try (Connection c = connect()) {
      c.setAutoCommit(false);
      try (Statement st = c.createStatement()) {
        st.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ; " + Transactions.PLANNER_SETTINGS);
      }
      assertIndexProbes(h, "the commit's upsert of " + BATCH + " rows",
          explain(c, t.upsertSql(), t.rowArrays(c, keys, values, crcs)));
      assertIndexProbes(h, "the commit's delete of " + BATCH + " keys",
          explain(c, t.deleteProbeSql(), t.keyArrays(c, keys)));
      assertIndexProbes(h, "the delete of placeholders", explain(c, t.deleteSql(), t.keyArrays(c, keys)));
      c.rollback();
    }
  }
}
