package io.epochal.store.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.StoreException;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@link PostgresFormatMigration} against the real server of {@link TestPostgres}: a schema in format 1 (uint64
 * columns as {@code numeric(20,0)} with a range check, as the previous version created them; rebuilt here from a
 * format-2 schema by the inverse conversion) is refused on open with a message naming the migration, migrates in
 * place, and then reads the same rows, in the same unsigned order, with every row's CRC still checking.
 */
class PostgresFormatMigrationTest {
  private static final String TWO_TO_63 = "9223372036854775808";
  private final TestPostgres pg = TestPostgres.get();
  private final String schema = pg.freshSchema("fmt");

  private static TableSchema ids() {
    return TableSchema.builder("ids").key("id", ColumnType.UINT64).value("seen", ColumnType.UINT64)
        .value("name", ColumnType.STRING).build();
  }

  private static List<Row> rows() {
    List<Row> rows = new ArrayList<>();
    for (long i = 0; i < 200; i++) {
      long id = i % 2 == 0 ? i : -1L - i;                // half of them >= 2^63 as unsigned
      rows.add(Row.of(ids().key(id), i * 0x0123_4567_89AB_CDEFL, "n" + i));
    }
    return rows;
  }

  private static List<String> scan(PostgresTableStore store, Table t) {
    try (StoreTransaction tx = store.begin()) {
      return tx.scan(t).stream().map(r -> r.key().describeParts() + "=" + r.values())
          .collect(Collectors.toList());
    }
  }

  /** Rewrites a format-2 store schema into what the previous version wrote (format 1). */
  private void downgradeToFormat1(String table) {
    String q = "\"" + schema + "\"." + table;
    for (String col : List.of("hash", "id", "seen")) {
      pg.sql("ALTER TABLE " + q + " ALTER COLUMN " + col + " TYPE numeric(20,0) USING (" + col + "::numeric + "
          + TWO_TO_63 + "), ADD CHECK (" + col + " BETWEEN 0 AND 18446744073709551615)");
    }
    pg.sql("UPDATE \"" + schema + "\".epochal_meta SET value = 'epochal-postgres/1' WHERE key = 'format'");
  }

  @Test
  void shouldRefuseAFormat1SchemaThenMigrateItInPlaceKeepingEveryRowAndTheOrder() throws Exception {
    List<String> before;
    String table;
    try (PostgresTableStore store = pg.store(schema).build()) {
      Table t = store.openTable(ids());
      try (StoreTransaction tx = store.begin()) {
        tx.upsert(t, rows());
        tx.commit();
      }
      before = scan(store, t);
      table = store.sqlTableName("ids").orElseThrow().replaceFirst("^.*\\.", "");
    }
    downgradeToFormat1(table);

    StoreException refused = assertThrows(StoreException.class, () -> pg.store(schema).build());
    assertFalse(refused.retryable());
    assertTrue(refused.getMessage().contains("epochal-postgres/1")
        && refused.getMessage().contains("PostgresFormatMigration.migrate"), refused.getMessage());

    assertEquals(1, PostgresFormatMigration.migrate(pg.admin(), schema));
    try (Connection c = pg.admin().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_constraint WHERE contype = 'c' AND conrelid = '\""
            + schema + "\"." + table + "'::regclass")) {
      rs.next();
      assertEquals(0, rs.getInt(1), "the numeric range checks are gone");
    }
    try (PostgresTableStore store = pg.store(schema).build()) {
      Table t = store.openTable(ids());
      assertEquals(before, scan(store, t), "every row, in the same unsigned order, each CRC checked");
      TableKey high = ids().key(-1L - 1);
      assertEquals(List.of(1 * 0x0123_4567_89AB_CDEFL, "n1"), store.lookup(t, List.of(high)).get(0)
          .orElseThrow().values());
    }
    assertEquals(0, PostgresFormatMigration.migrate(pg.admin(), schema), "a second run has nothing to do");
  }

  @Test
  void shouldRefuseToMigrateAnUnknownFormatOrASchemaWithoutAStore() {
    pg.store(schema).build().close();
    pg.sql("UPDATE \"" + schema + "\".epochal_meta SET value = 'epochal-postgres/99' WHERE key = 'format'");
    StoreException unknown = assertThrows(StoreException.class,
        () -> PostgresFormatMigration.migrate(pg.admin(), schema));
    assertFalse(unknown.retryable());
    assertTrue(unknown.getMessage().contains("epochal-postgres/99"), unknown.getMessage());
    StoreException none = assertThrows(StoreException.class,
        () -> PostgresFormatMigration.migrate(pg.admin(), pg.freshSchema("none")));
    assertTrue(none.getMessage().contains("no Epochal store"), none.getMessage());
  }
}
