package io.epochal.store.postgres;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.CommitConflictException;
import io.epochal.errors.EpochalException;
import io.epochal.errors.LeaseLostException;
import io.epochal.errors.SchemaMismatchException;
import io.epochal.errors.StateCorruptedException;
import io.epochal.errors.StoreException;
import io.epochal.hash.FarmHash;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.Lease;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * What only the PostgreSQL store promises, against the real server of {@link TestPostgres}: typed errors for an
 * unreachable server, a refused login, a lost connection, an expired transaction and an exhausted pool; schema
 * checks of the registry and of the physical table; rows checked by their CRC (a damaged or hand-edited row is
 * {@link StateCorruptedException}, never a value); conflicts the contract does not reach; leases across store
 * instances (as across processes); table names from any path; batching past the chunk size.
 */
class PostgresTableStoreTest {
  private final TestPostgres pg = TestPostgres.get();
  private final String schema = pg.freshSchema("store");
  private final List<TableStore> stores = new ArrayList<>();

  @AfterEach
  void closeStores() {
    stores.forEach(TableStore::close);
  }

  private PostgresTableStore store() {
    return keep(pg.store(schema).build());
  }

  private <T extends TableStore> T keep(T store) {
    stores.add(store);
    return store;
  }

  private static TableSchema counts() {
    return TableSchema.builder("counts").key("word", ColumnType.STRING).value("count", ColumnType.INT64)
        .value("note", ColumnType.BYTES).build();
  }

  private static Row count(String word, long n) {
    return Row.of(counts().key(word), n, new byte[] {(byte) n});
  }

  private static void put(TableStore store, Table t, Row... rows) {
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(t, List.of(rows));
      tx.commit();
    }
  }

  private static Optional<Row> get(TableStore store, Table t, TableKey key) {
    return store.lookup(t, List.of(key)).get(0);
  }

  private String sqlName(PostgresTableStore store, String path) {
    return store.sqlTableName(path).orElseThrow();
  }

  // ------------------------------------------------------------------ connection and login errors

  @Test
  void shouldReportAnUnreachableServerAsRetryableNamingHostAndPort() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    StoreException e = assertThrows(StoreException.class, () -> PostgresTableStore.builder(
        "jdbc:postgresql://localhost:" + port + "/epochal").user("u").password("p")
        .connectTimeout(Duration.ofSeconds(2)).build());
    assertTrue(e.retryable(), "an unreachable server may come back: " + e.getMessage());
    assertTrue(e.getMessage().contains("localhost:" + port), e.getMessage());
    assertTrue(e.getMessage().contains("cannot reach"), e.getMessage());
    assertTrue(EpochalException.isRetryable(e));
  }

  @Test
  void shouldReportAWrongPasswordAsNotRetryableSayingToCheckUserAndPassword() {
    StoreException e = assertThrows(StoreException.class, () -> PostgresTableStore.builder(pg.jdbcUrl())
        .user(TestPostgres.USER).password("wrong-password").schema(schema).build());
    assertFalse(e.retryable(), "no retry fixes a wrong password: " + e.getMessage());
    assertFalse(EpochalException.isRetryable(e));
    assertTrue(e.getMessage().contains("Check the user and password"), e.getMessage());
    assertTrue(e.getMessage().contains(TestPostgres.USER), e.getMessage());
    assertTrue(e.getMessage().contains("localhost:" + pg.port()), e.getMessage());

    StoreException unknown = assertThrows(StoreException.class, () -> PostgresTableStore.builder(pg.jdbcUrl())
        .user("nobody_here").password("x").build());
    assertFalse(unknown.retryable(), unknown.getMessage());
  }

  @Test
  void shouldReportAMissingDatabaseAsNotRetryable() {
    StoreException e = assertThrows(StoreException.class, () -> PostgresTableStore.builder(
        "jdbc:postgresql://localhost:" + pg.port() + "/no_such_db").user(TestPostgres.USER)
        .password(TestPostgres.PASSWORD).build());
    assertFalse(e.retryable(), e.getMessage());
    assertTrue(e.getMessage().contains("no_such_db"), e.getMessage());
  }

  @Test
  void shouldFailALookupOnALostConnectionInsteadOfReportingTheRowAbsent() throws Exception {
    PostgresTableStore store = store();
    Table t = store.openTable(counts());
    put(store, t, count("a", 1));
    StoreTransaction tx = store.begin();
    terminateIdleTransactions();
    StoreException e = assertThrows(StoreException.class, () -> tx.lookup(t, List.of(counts().key("a"))));
    assertTrue(e.retryable(), e.getMessage());
    tx.close();
    StoreTransaction writer = store.begin();
    writer.upsert(t, count("b", 2));
    terminateIdleTransactions();
    StoreException failed = assertThrows(StoreException.class, writer::commit);
    assertTrue(failed.retryable(), failed.getMessage());
    assertEquals(Optional.empty(), get(store, t, counts().key("b")), "nothing of the failed commit is applied");
    assertEquals(Optional.of(count("a", 1)), get(store, t, counts().key("a")), "the store stays usable");
  }

  private void terminateIdleTransactions() throws Exception {
    try (Connection c = pg.admin().getConnection(); Statement st = c.createStatement()) {
      for (int i = 0; i < 50; i++) {
        try (ResultSet rs = st.executeQuery("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE "
            + "usename = '" + TestPostgres.USER + "' AND state = 'idle in transaction'")) {
          rs.next();
          if (rs.getInt(1) > 0) {
            // handshake: the terminated backends are gone before the test goes on
            awaitActivity("state = 'idle in transaction'", false);
            return;
          }
        }
        Thread.sleep(20);
      }
    }
    throw new AssertionError("no idle transaction to terminate");
  }

  /** @return the server's clock now, as text PostgreSQL reads back as a timestamptz */
  private String serverClock() throws Exception {
    try (Connection c = pg.admin().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT clock_timestamp()::text")) {
      rs.next();
      return rs.getString(1);
    }
  }

  /**
   * Polls {@code pg_stat_activity} until a backend of the test user matching {@code condition} exists (or, with
   * {@code present = false}, none does): a handshake on the server's own state, not a timer. Fails after 30 s.
   */
  private void awaitActivity(String condition, boolean present) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    try (Connection c = pg.admin().getConnection(); Statement st = c.createStatement()) {
      while (true) {
        try (ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE usename = '"
            + TestPostgres.USER + "' AND " + condition)) {
          rs.next();
          if ((rs.getInt(1) > 0) == present) {
            return;
          }
        }
        if (System.nanoTime() > deadline) {
          throw new AssertionError("no backend " + (present ? "" : "stopped ") + "matching " + condition);
        }
        Thread.sleep(10);
      }
    }
  }

  @Test
  void shouldExpireAnIdleTransactionOnTheServerAndApplyNothing() throws Exception {
    PostgresTableStore store = keep(pg.store(schema).transactionTimeout(Duration.ofMillis(300)).build());
    Table t = store.openTable(counts());
    String before = serverClock();
    StoreTransaction tx = store.begin();
    tx.upsert(t, count("late", 1));
    String ours = "state = 'idle in transaction' AND xact_start >= '" + before + "'::timestamptz";
    // handshake, no sleep: begin ran its statements, so the transaction is idle on the server until the server
    // ends it after its 300 ms idle timeout
    awaitActivity(ours, false);
    StoreException e = assertThrows(StoreException.class, tx::commit);
    assertTrue(e.retryable(), e.getMessage());
    assertEquals(Optional.empty(), get(store, t, counts().key("late")));
  }

  @Test
  void shouldReportAnExhaustedPoolAsRetryableNamingPoolSize() {
    PostgresTableStore store = keep(PostgresTableStore.builder(pg.jdbcUrl()).user(TestPostgres.USER)
        .password(TestPostgres.PASSWORD).schema(schema).poolSize(1).connectTimeout(Duration.ofMillis(500)).build());
    Table t = store.openTable(counts());
    try (StoreTransaction held = store.begin()) {
      StoreException e = assertThrows(StoreException.class, () -> get(store, t, counts().key("a")));
      assertTrue(e.retryable(), e.getMessage());
      assertTrue(e.getMessage().contains("poolSize"), e.getMessage());
      assertEquals(List.of(), held.scan(t));
    }
    assertEquals(Optional.empty(), get(store, t, counts().key("a")), "the connection came back");
  }

  // ------------------------------------------------------------------ schemas and format

  @Test
  void shouldRefuseATableOpenedWithAnotherSchemaByAnotherStoreShowingExpectedAndActual() {
    PostgresTableStore first = store();
    Table t = first.openTable(counts());
    put(first, t, count("a", 1));
    PostgresTableStore second = store();
    TableSchema other = TableSchema.builder("counts").key("word", ColumnType.STRING).value("count", ColumnType.DOUBLE)
        .value("note", ColumnType.BYTES).build();
    SchemaMismatchException e = assertThrows(SchemaMismatchException.class, () -> second.openTable(other));
    assertEquals(Optional.of("counts"), e.context().table(), "the context names the table by its path");
    assertEquals(other.toString(), e.expected());
    assertEquals(counts().toString(), e.actual());
    assertFalse(e.retryable());
    assertTrue(e.getMessage().contains(second.describe()), e.getMessage()); // user-facing: where the table lives
    assertEquals(Optional.of(count("a", 1)), get(second, second.openTable(counts()), counts().key("a")));
  }

  @Test
  void shouldRefuseATableAlteredByHandShowingExpectedAndActualColumns() {
    PostgresTableStore first = store();
    first.openTable(counts());
    String table = sqlName(first, "counts");
    first.close();
    pg.sql("ALTER TABLE " + table + " ALTER COLUMN count TYPE numeric");
    PostgresTableStore second = store();
    SchemaMismatchException e = assertThrows(SchemaMismatchException.class, () -> second.openTable(counts()));
    assertEquals(Optional.of("counts"), e.context().table());
    assertTrue(e.actual().contains("count numeric"), e.actual());
    assertFalse(e.retryable());
    assertTrue(e.getMessage().contains("count bigint") && e.getMessage().contains("count numeric")
        && e.getMessage().contains(table), e.getMessage()); // user-facing: both column types, the SQL table
    assertThrows(SchemaMismatchException.class, () -> second.findTable("counts"));
  }

  @Test
  void shouldRefuseARegisteredTableThatWasDropped() {
    PostgresTableStore first = store();
    first.openTable(counts());
    String table = sqlName(first, "counts");
    first.close();
    pg.sql("DROP TABLE " + table);
    StoreException e = assertThrows(StoreException.class, () -> store().openTable(counts()));
    assertFalse(e.retryable());
    assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
  }

  @Test
  void shouldRefuseASchemaHoldingAnotherStoreFormat() {
    store().close();
    pg.sql("UPDATE \"" + schema + "\".epochal_meta SET value = 'epochal-postgres/99' WHERE key = 'format'");
    StoreException e = assertThrows(StoreException.class, this::store);
    assertFalse(e.retryable());
    assertTrue(e.getMessage().contains("epochal-postgres/99") && e.getMessage().contains(PostgresTableStore.FORMAT),
        e.getMessage());
  }

  @Test
  void shouldCreateATableOnceWhenManyStoresOpenItAtOnce() throws Exception {
    List<PostgresTableStore> many = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      many.add(store());
    }
    CountDownLatch go = new CountDownLatch(1);
    List<CompletableFuture<Table>> opened = new ArrayList<>();
    for (PostgresTableStore s : many) {
      opened.add(CompletableFuture.supplyAsync(() -> {
        try {
          go.await();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
        return s.openTable(counts());
      }));
    }
    go.countDown();
    for (CompletableFuture<Table> f : opened) {
      assertEquals(counts(), f.get(30, TimeUnit.SECONDS).schema());
    }
    Set<String> names = new HashSet<>();
    for (PostgresTableStore s : many) {
      names.add(sqlName(s, "counts"));
    }
    assertEquals(1, names.size(), names.toString());
  }

  // ------------------------------------------------------------------ table names and layout

  @Test
  void shouldGiveEveryPathItsOwnTableWhateverItsCharacters() {
    PostgresTableStore store = store();
    List<String> paths = List.of("a/b", "a.b", "A B", "//home/app/counts", "quote\"d'path; DROP TABLE x",
        "ünïcödé/тест", "x".repeat(300), "x".repeat(299) + "y", "42");
    Set<String> names = new HashSet<>();
    for (String path : paths) {
      TableSchema s = TableSchema.builder(path).key("k", ColumnType.STRING).value("v", ColumnType.INT64).build();
      Table t = store.openTable(s);
      put(store, t, Row.of(s.key(path), (long) path.length()));
      String name = sqlName(store, path);
      assertTrue(name.matches("\"" + schema + "\"\\.\"t[0-9]+_[a-z0-9_]{1,40}\""), name);
      names.add(name);
    }
    assertEquals(paths.size(), names.size(), "one table per path: " + names);
    PostgresTableStore again = store();
    for (String path : paths) {
      Table t = again.findTable(path).orElseThrow();
      assertEquals(List.of(Row.of(t.schema().key(path), (long) path.length())), scan(again, t));
    }
    assertEquals(Optional.empty(), again.sqlTableName("never"));
  }

  @Test
  void shouldRejectColumnNamesLongerThanPostgresKeeps() {
    TableSchema s = TableSchema.builder("long").key("k" + "x".repeat(63), ColumnType.STRING)
        .value("v", ColumnType.INT64).build();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> store().openTable(s));
    assertTrue(e.getMessage().contains("63"), e.getMessage());
  }

  @Test
  void shouldStoreTheHashWithItsTopBitFlippedSoTheTableSortsAsInYtsaurus() throws Exception {
    PostgresTableStore store = store();
    Table t = store.openTable(counts());
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      rows.add(count("w" + i, i));
    }
    put(store, t, rows.toArray(new Row[0]));
    List<String> hashes = new ArrayList<>();
    try (Connection c = pg.admin().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT (t.hash::numeric + 9223372036854775808)::text AS h, t.word, "
            + "format_type(a.atttypid, a.atttypmod) FROM " + sqlName(store, "counts") + " t, pg_attribute a WHERE "
            + "a.attrelid = '" + sqlName(store, "counts").replace("'", "''") + "'::regclass AND a.attname = 'hash' "
            + "ORDER BY t.hash, t.word")) {
      while (rs.next()) {
        assertEquals(Long.toUnsignedString(FarmHash.farmHash(rs.getString(2))), rs.getString(1));
        assertEquals("bigint", rs.getString(3), "an 8-byte hash column, not numeric");
        hashes.add(rs.getString(1));
      }
    }
    assertTrue(hashes.stream().anyMatch(h -> Long.parseUnsignedLong(h) < 0), "some hashes are >= 2^63");
    List<String> scanned = scan(store, t).stream().map(r -> Long.toUnsignedString(r.key().hash())).toList();
    assertEquals(hashes, scanned, "SQL order by hash is the scan order, YTsaurus' unsigned order");
  }

  private static List<Row> scan(TableStore store, Table t) {
    try (StoreTransaction tx = store.begin()) {
      return tx.scan(t);
    }
  }

  @Test
  void shouldKeepSpecialDoublesAndRejectWhatPostgresCannotStore() {
    PostgresTableStore store = store();
    TableSchema s = TableSchema.builder("doubles").key("d", ColumnType.DOUBLE).key("s", ColumnType.STRING)
        .value("v", ColumnType.DOUBLE).value("t", ColumnType.STRING).build();
    Table t = store.openTable(s);
    List<Row> rows = List.of(Row.of(s.key(-0.0, "a"), -0.0, "x"), Row.of(s.key(0.0, "a"), Double.NaN, ""),
        Row.of(s.key(Double.NaN, "a"), Double.NEGATIVE_INFINITY, "y"),
        Row.of(s.key(Double.POSITIVE_INFINITY, "a"), Double.MIN_VALUE, "z"));
    put(store, t, rows.toArray(new Row[0]));
    for (Row r : rows) {
      assertEquals(Optional.of(r), get(store, t, r.key()));
    }
    assertEquals(4, scan(store, t).size());
    try (StoreTransaction tx = store.begin()) {
      IllegalArgumentException nul = assertThrows(IllegalArgumentException.class,
          () -> tx.upsert(t, Row.of(s.key(1.0, "a\u0000b"), 1.0, null)));
      assertTrue(nul.getMessage().contains("U+0000"), nul.getMessage());
      assertThrows(IllegalArgumentException.class, () -> tx.upsert(t, Row.of(s.key(1.0, "a"), 1.0, "\u0000")));
      double payloadNaN = Double.longBitsToDouble(0x7ff8000000000001L);
      assertThrows(IllegalArgumentException.class, () -> tx.upsert(t, Row.of(s.key(payloadNaN, "a"), 1.0, null)));
      assertThrows(IllegalArgumentException.class, () -> tx.lookup(t, List.of(s.key(1.0, "\u0000"))));
    }
  }

  @Test
  void shouldBatchLookupsAndWritesPastTheChunkSize() {
    PostgresTableStore store = store();
    Table t = store.openTable(counts());
    int n = PostgresTableStore.CHUNK * 2 + 500;
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      rows.add(count("w" + i, i));
    }
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(t, rows);
      tx.commit();
    }
    List<TableKey> keys = new ArrayList<>();
    for (int i = n + 10; i >= 0; i--) {
      keys.add(counts().key("w" + i));
    }
    List<Optional<Row>> got = store.lookup(t, keys);
    for (int i = 0; i < keys.size(); i++) {
      int w = n + 10 - i;
      assertEquals(w < n ? Optional.of(rows.get(w)) : Optional.empty(), got.get(i), "w" + w);
    }
    try (StoreTransaction tx = store.begin()) {
      tx.delete(t, keys.subList(0, PostgresTableStore.CHUNK + 20));
      tx.commit();
    }
    assertEquals(n - (PostgresTableStore.CHUNK + 20 - 11), scan(store, t).size());
  }

  // ------------------------------------------------------------------ reads: hooks and checks

  @Test
  void shouldFailEveryReadWhoseHookFailsInsteadOfReportingRowsAbsent() {
    AtomicBoolean failing = new AtomicBoolean();
    RuntimeException injected = new IllegalStateException("injected unreadable store");
    PostgresTableStore store = keep(pg.store(schema).readHook(new ReadHook() {
      @Override
      public void beforeRead(String tablePath) {
        if (failing.get()) {
          throw injected;
        }
      }
    }).build());
    Table t = store.openTable(counts());
    put(store, t, count("a", 1));
    failing.set(true);
    assertSame(injected, assertThrows(RuntimeException.class, () -> get(store, t, counts().key("a"))));
    try (StoreTransaction tx = store.begin()) {
      assertSame(injected, assertThrows(RuntimeException.class, () -> tx.lookup(t, List.of(counts().key("a")))));
      assertSame(injected, assertThrows(RuntimeException.class, () -> tx.scan(t)));
    }
    failing.set(false);
    assertEquals(Optional.of(count("a", 1)), get(store, t, counts().key("a")));
  }

  @Test
  void shouldReportDamagedStoredBytesAsCorruptionNamingTableAndKey() {
    AtomicBoolean damaging = new AtomicBoolean();
    PostgresTableStore store = keep(pg.store(schema).readHook(new ReadHook() {
      @Override
      public byte[] storedBytes(String tablePath, byte[] stored) {
        if (!damaging.get()) {
          return stored;
        }
        byte[] copy = stored.clone();
        copy[copy.length - 1] ^= 0x10;
        return copy;
      }
    }).build());
    Table t = store.openTable(counts());
    put(store, t, count("a", 1));
    assertEquals(Optional.of(count("a", 1)), get(store, t, counts().key("a")));
    damaging.set(true);
    StateCorruptedException e = assertThrows(StateCorruptedException.class, () -> get(store, t, counts().key("a")));
    assertEquals(Optional.of("counts"), e.context().table());
    assertEquals(Optional.of("a"), e.context().key());
    assertFalse(e.retryable());
    assertThrows(StateCorruptedException.class, () -> scan(store, t));
  }

  @Test
  void shouldReportRowsEditedByHandAsCorruption() {
    PostgresTableStore store = store();
    Table t = store.openTable(counts());
    put(store, t, count("a", 1), count("b", 2));
    String table = sqlName(store, "counts");
    pg.sql("UPDATE " + table + " SET count = 42 WHERE word = 'a'");
    StateCorruptedException e = assertThrows(StateCorruptedException.class, () -> get(store, t, counts().key("a")));
    assertEquals(Optional.of("a"), e.context().key());
    assertEquals(Optional.of("counts"), e.context().table());
    assertFalse(e.retryable());
    assertTrue(e.getMessage().contains("CRC"), e.getMessage());
    assertEquals(Optional.of(count("b", 2)), get(store, t, counts().key("b")), "other rows stay readable");
    assertThrows(StateCorruptedException.class, () -> scan(store, t));

    pg.sql("UPDATE " + table + " SET count = 1 WHERE word = 'a'");
    assertEquals(Optional.of(count("a", 1)), get(store, t, counts().key("a")), "restored by hand");
    pg.sql("UPDATE " + table + " SET hash = hash + 1 WHERE word = 'b'");
    assertEquals(Optional.empty(), get(store, t, counts().key("b")), "a row moved to another hash is not b's");
    StateCorruptedException moved = assertThrows(StateCorruptedException.class, () -> scan(store, t));
    assertEquals(Optional.of("counts"), moved.context().table());
    assertFalse(moved.retryable());
    assertTrue(moved.getMessage().contains("farm_hash"), moved.getMessage());
  }

  // ------------------------------------------------------------------ conflicts beyond the contract

  @Test
  void shouldDetectADeleteOfARowAnotherTransactionInsertedMeanwhile() {
    PostgresTableStore store = store();
    Table t = store.openTable(counts());
    StoreTransaction deleter = store.begin();
    put(store, t, count("new", 1));
    deleter.delete(t, counts().key("new"));
    CommitConflictException e = assertThrows(CommitConflictException.class, deleter::commit);
    assertTrue(e.retryable());
    assertEquals(Optional.of("counts"), e.context().table());
    assertEquals(Optional.of("new"), e.context().key());
    assertEquals(Optional.of(count("new", 1)), get(store, t, counts().key("new")));
  }

  @Test
  void shouldDetectADeleteOfARowAnotherTransactionUpdatedMeanwhile() {
    PostgresTableStore store = store();
    Table t = store.openTable(counts());
    put(store, t, count("x", 1));
    StoreTransaction deleter = store.begin();
    put(store, t, count("x", 2));
    deleter.delete(t, counts().key("x"));
    assertThrows(CommitConflictException.class, deleter::commit);
    assertEquals(Optional.of(count("x", 2)), get(store, t, counts().key("x")));
  }

  @Test
  void shouldDetectAnUpsertOfARowAnotherTransactionUpdatedMeanwhile() {
    PostgresTableStore store = store();
    Table t = store.openTable(counts());
    put(store, t, count("x", 1));
    StoreTransaction writer = store.begin();
    assertEquals(Optional.of(count("x", 1)), writer.lookup(t, List.of(counts().key("x"))).get(0));
    put(store, t, count("x", 2));
    writer.upsert(t, count("x", 3));
    writer.upsert(t, count("unrelated", 3));
    CommitConflictException e = assertThrows(CommitConflictException.class, writer::commit);
    assertTrue(e.retryable(), "the replay reads the other transaction's writes and can commit");
    assertEquals(Optional.of("counts"), e.context().table(), e::toString);
    assertTrue(e.getMessage().contains("x") && e.getMessage().contains("unrelated"), e.getMessage());
    assertEquals(Optional.of(count("x", 2)), get(store, t, counts().key("x")), "the first committer wins");
    assertEquals(Optional.empty(), get(store, t, counts().key("unrelated")));
  }

  @Test
  void shouldDeleteAbsentAndPresentKeysOfATableWithRequiredColumnsOfEveryType() {
    PostgresTableStore store = store();
    TableSchema s = TableSchema.builder("required").key("k", ColumnType.BYTES).requiredValue("a", ColumnType.INT64)
        .requiredValue("b", ColumnType.UINT64).requiredValue("c", ColumnType.DOUBLE)
        .requiredValue("d", ColumnType.BOOLEAN).requiredValue("e", ColumnType.STRING)
        .requiredValue("f", ColumnType.BYTES).build();
    Table t = store.openTable(s);
    Row kept = Row.of(s.key(new byte[] {1}), 1L, -1L, 1.5, true, "e", new byte[0]);
    Row gone = Row.of(s.key(new byte[] {2}), 2L, 2L, 2.5, false, "", new byte[] {2});
    put(store, t, kept, gone);
    try (StoreTransaction tx = store.begin()) {
      tx.delete(t, List.of(gone.key(), s.key(new byte[] {3}), s.key(new byte[0])));
      tx.commit();
    }
    assertEquals(List.of(kept), scan(store, t), "deleted keys are gone and no placeholder row is left");
  }

  @Test
  void shouldDetectConflictsBetweenStoreInstancesAsBetweenProcesses() {
    PostgresTableStore one = store();
    PostgresTableStore two = store();
    Table t1 = one.openTable(counts());
    Table t2 = two.openTable(counts());
    StoreTransaction a = one.begin();
    StoreTransaction b = two.begin();
    a.upsert(t1, count("c", 1));
    b.upsert(t2, count("c", 2));
    b.upsert(t2, count("d", 2));
    a.commit();
    CommitConflictException e = assertThrows(CommitConflictException.class, b::commit);
    assertTrue(e.retryable());
    assertEquals(Optional.of("counts"), e.context().table(), e::toString);
    assertEquals(Optional.empty(), get(one, t1, counts().key("d")), "nothing of the loser is applied");
    StoreTransaction noConflict = two.begin();
    noConflict.delete(t2, counts().key("never-written"));
    noConflict.commit();
  }

  // ------------------------------------------------------------------ leases

  @Test
  void shouldFenceACommitOfAnotherStoreInstance() {
    PostgresTableStore worker = store();
    PostgresTableStore successor = store();
    Table t = worker.openTable(counts());
    Lease old = worker.acquireLease("p", "worker");
    StoreTransaction stale = worker.begin(old);
    stale.upsert(t, count("stale", 1));
    Lease fresh = successor.acquireLease("p", "successor");
    assertEquals(old.generation() + 1, fresh.generation());
    LeaseLostException e = assertThrows(LeaseLostException.class, stale::commit);
    assertTrue(e.getMessage().contains("successor") && e.getMessage().contains("generation " + fresh.generation()),
        e.getMessage());
    assertFalse(e.retryable());
    assertEquals(Optional.empty(), get(successor, successor.openTable(counts()), counts().key("stale")));
    LeaseLostException early = assertThrows(LeaseLostException.class, () -> worker.begin(old));
    assertTrue(early.getMessage().contains("successor"), early.getMessage());
    assertThrows(IllegalArgumentException.class, () -> worker.begin(new Lease("p", "x", fresh.generation() + 5)));
    assertThrows(IllegalArgumentException.class, () -> worker.begin(new Lease("never-acquired", "x", 1)));
  }

  @Test
  void shouldLetATakeoverWaitForACommitInProgressUnderTheLease() throws Exception {
    PostgresTableStore worker = store();
    PostgresTableStore successor = store();
    Table t = worker.openTable(counts());
    Lease lease = worker.acquireLease("p", "worker");
    // the commit's statement batch (lease check FOR SHARE, then the rows) is held inside the server: another
    // transaction has inserted the same key and not ended, so the commit's insert waits for it after the lease check
    TableKey key = counts().key("in-flight");
    try (Connection blocker = pg.admin().getConnection()) {
      blocker.setAutoCommit(false);
      try (Statement st = blocker.createStatement()) {
        st.execute("INSERT INTO " + sqlName(worker, "counts") + " VALUES ("
            + (key.hash() ^ Long.MIN_VALUE) + ", 'in-flight', 7, NULL, 0)");
      }
      CompletableFuture<Void> commit = CompletableFuture.runAsync(() -> {
        try (StoreTransaction tx = worker.begin(lease)) {
          tx.upsert(t, count("in-flight", 1));
          tx.commit();
        }
      });
      awaitActivity("wait_event_type = 'Lock' AND query LIKE '%WITH u AS%'", true);
      CompletableFuture<Lease> takeover =
          CompletableFuture.supplyAsync(() -> successor.acquireLease("p", "successor"));
      // the takeover's statement waits on the lease row's lock held by the commit in progress
      awaitActivity("wait_event_type = 'Lock' AND query LIKE 'INSERT INTO%epochal_leases%'", true);
      assertFalse(takeover.isDone(), "the takeover must wait for the commit that already checked the lease");
      assertFalse(commit.isDone(), "the commit waits for the blocker");
      blocker.rollback();
      commit.get(30, TimeUnit.SECONDS);
      assertEquals(lease.generation() + 1, takeover.get(30, TimeUnit.SECONDS).generation());
    }
    assertEquals(Optional.of(count("in-flight", 1)), get(successor, successor.openTable(counts()),
        counts().key("in-flight")), "the commit ordered before the takeover is applied");
  }

  // ------------------------------------------------------------------ lifecycle and builder

  @Test
  void shouldRollBackOpenTransactionsOnClose() {
    PostgresTableStore store = store();
    Table t = store.openTable(counts());
    StoreTransaction open = store.begin();
    open.upsert(t, count("a", 1));
    store.close();
    assertThrows(IllegalStateException.class, open::commit);
    assertThrows(IllegalStateException.class, store::begin);
    assertThrows(IllegalStateException.class, () -> store.openTable(counts()));
    store.close();
    PostgresTableStore again = store();
    assertEquals(List.of(), scan(again, again.openTable(counts())));
  }

  @Test
  void shouldOpenOnADataSourceWithoutClosingIt() throws Exception {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(pg.jdbcUrl());
    ds.setUser(TestPostgres.USER);
    ds.setPassword(TestPostgres.PASSWORD);
    try (PostgresTableStore store = PostgresTableStore.open(ds)) {
      assertTrue(store.describe().contains("localhost:" + pg.port() + "/epochal"), store.describe());
      assertEquals("epochal", store.schemaName());
      Table t = store.openTable(TableSchema.builder("ds/" + schema).key("k", ColumnType.INT64)
          .value("v", ColumnType.BOOLEAN).build());
      put(store, t, Row.of(t.schema().key(1L), true));
      assertEquals(true, get(store, t, t.schema().key(1L)).orElseThrow().getBoolean("v"));
    }
    try (Connection c = ds.getConnection()) {
      assertTrue(c.isValid(1));
    }
    assertThrows(IllegalStateException.class, () -> PostgresTableStore.builder(ds).user("x"));
  }

  @Test
  void shouldValidateBuilderOptions() {
    PostgresTableStore.Builder b = PostgresTableStore.builder(pg.jdbcUrl());
    b.schema("s");
    assertThrows(IllegalStateException.class, () -> b.schema("t"));
    assertThrows(IllegalArgumentException.class, () -> b.poolSize(0));
    assertThrows(IllegalArgumentException.class, () -> b.transactionTimeout(Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> PostgresTableStore.builder(pg.jdbcUrl()).schema("x".repeat(64)));
    assertThrows(IllegalArgumentException.class, () -> PostgresTableStore.builder("jdbc:mysql://h/db").build());
    assertThrows(NullPointerException.class, () -> PostgresTableStore.builder((String) null));
  }

  @Test
  void shouldNotMistakeTwoSchemasOfOneDatabaseForOneStore() {
    PostgresTableStore a = store();
    PostgresTableStore b = keep(pg.store(schema + "_other").build());
    Table ta = a.openTable(counts());
    Table tb = b.openTable(counts());
    put(a, ta, count("only-in-a", 1));
    assertEquals(Optional.empty(), get(b, tb, counts().key("only-in-a")));
    a.acquireLease("p", "x");
    assertEquals(2, a.acquireLease("p", "x").generation());
    assertEquals(1, b.acquireLease("p", "y").generation(), "leases of another schema are another store's");
    assertArrayEquals(new byte[] {1}, get(a, ta, counts().key("only-in-a")).orElseThrow().getBytes("note"));
  }
}
