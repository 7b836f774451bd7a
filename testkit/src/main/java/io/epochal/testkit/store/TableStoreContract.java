package io.epochal.testkit.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.epochal.errors.CommitConflictException;
import io.epochal.errors.LeaseLostException;
import io.epochal.errors.SchemaMismatchException;
import io.epochal.hash.FarmHash;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.Lease;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link TableStore} keeps, as an abstract JUnit 5 suite (like Kafka's
 * {@code AbstractKeyValueStoreTest}). Shipped in {@code epochal-testkit}: depend on it with {@code <scope>test</scope>}
 * and subclass it (or subclass {@link io.epochal.testkit.TableStoreContractKit}, which adds replay checks).
 *
 * <p>A subclass implements {@link #createStore(CommitHook)}: a store over this test's location (JUnit makes a new
 * test instance per test method, so a {@code @TempDir} field or a random table prefix gives each test its own). A
 * second call in the same test, after the first store was closed, must reopen the same location: that is how
 * {@link #supportsReopen()} tests persistence. Stores that cannot persist override {@link #supportsReopen()} to
 * return false. Override {@link #tablePath(String)} to place the test tables (for example under a YTsaurus
 * directory). Every store created is closed after the test.
 */
public abstract class TableStoreContract {
  private final List<TableStore> stores = new ArrayList<>();
  private volatile boolean armed;

  /**
   * Creates (or, when called again in the same test after closing the previous one, reopens) the store under test.
   *
   * @param hook the fault-injection hook the store must call during commits (see {@link CommitHook})
   */
  protected abstract TableStore createStore(CommitHook hook);

  /** Whether a store created again over the same location sees what the previous one committed. */
  protected boolean supportsReopen() {
    return true;
  }

  /** The path of the contract's table {@code name}; override to place tables elsewhere. */
  protected String tablePath(String name) {
    return "contract/" + name;
  }

  @AfterEach
  public void closeStores() {
    for (TableStore s : stores) {
      try {
        s.close();
      } catch (RuntimeException e) {
        // already closed or broken by the test: nothing to do
      }
    }
  }

  // ------------------------------------------------------------------ fixtures

  private TableStore open(CommitHook hook) {
    TableStore s = createStore(hook);
    stores.add(s);
    return s;
  }

  private TableStore open() {
    return open(CommitHook.NONE);
  }

  /** {@code (hash, word string) -> count int64, note bytes} */
  private TableSchema counts() {
    return TableSchema.builder(tablePath("counts")).key("word", ColumnType.STRING)
        .value("count", ColumnType.INT64).value("note", ColumnType.BYTES).build();
  }

  /** {@code (hash, id int64) -> name string required} */
  private TableSchema names() {
    return TableSchema.builder(tablePath("names")).key("id", ColumnType.INT64)
        .requiredValue("name", ColumnType.STRING).build();
  }

  /** Every column type, with a composite key. */
  private TableSchema everyType() {
    return TableSchema.builder(tablePath("every_type"))
        .key("k_str", ColumnType.STRING).key("k_i64", ColumnType.INT64).key("k_u64", ColumnType.UINT64)
        .key("k_bytes", ColumnType.BYTES).key("k_bool", ColumnType.BOOLEAN).key("k_dbl", ColumnType.DOUBLE)
        .value("v_str", ColumnType.STRING).value("v_i64", ColumnType.INT64).value("v_u64", ColumnType.UINT64)
        .value("v_bytes", ColumnType.BYTES).value("v_bool", ColumnType.BOOLEAN).value("v_dbl", ColumnType.DOUBLE)
        .build();
  }

  private static Row count(TableSchema schema, String word, long n) {
    return Row.of(schema.key(word), n, null);
  }

  private static void commit(TableStore store, Table table, Row... rows) {
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(table, List.of(rows));
      tx.commit();
    }
  }

  private static Optional<Row> read(TableStore store, Table table, TableKey key) {
    try (StoreTransaction tx = store.begin()) {
      return tx.lookup(table, List.of(key)).get(0);
    }
  }

  private static List<Row> scan(TableStore store, Table table) {
    try (StoreTransaction tx = store.begin()) {
      return tx.scan(table);
    }
  }

  private static boolean causedBy(Throwable t, Throwable cause) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c == cause) {
        return true;
      }
    }
    return false;
  }

  // ------------------------------------------------------------------ lookups

  @Test
  public void shouldReportMissingKeysInPlace() {
    TableStore store = open();
    TableSchema schema = counts();
    Table t = store.openTable(schema);
    commit(store, t, count(schema, "a", 1), count(schema, "c", 3));
    try (StoreTransaction tx = store.begin()) {
      List<Optional<Row>> rows = tx.lookup(t, List.of(schema.key("a"), schema.key("b"), schema.key("c"),
          schema.key("d")));
      assertEquals(4, rows.size());
      assertEquals(Optional.of(count(schema, "a", 1)), rows.get(0));
      assertEquals(Optional.empty(), rows.get(1));
      assertEquals(Optional.of(count(schema, "c", 3)), rows.get(2));
      assertEquals(Optional.empty(), rows.get(3));
    }
  }

  @Test
  public void shouldReturnLookupResultsInTheOrderOfTheKeysAsked() {
    TableStore store = open();
    TableSchema schema = counts();
    Table t = store.openTable(schema);
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      rows.add(count(schema, "w" + i, i));
    }
    commit(store, t, rows.toArray(new Row[0]));
    List<TableKey> keys = new ArrayList<>();
    for (int i = 49; i >= 0; i -= 3) {
      keys.add(schema.key("w" + i));
      keys.add(schema.key("missing" + i));
    }
    keys.add(schema.key("w7"));
    keys.add(schema.key("w7"));
    Collections.shuffle(keys, new java.util.Random(42));
    try (StoreTransaction tx = store.begin()) {
      List<Optional<Row>> got = tx.lookup(t, keys);
      assertEquals(keys.size(), got.size());
      for (int i = 0; i < keys.size(); i++) {
        String word = (String) keys.get(i).get("word");
        if (word.startsWith("missing")) {
          assertEquals(Optional.empty(), got.get(i), "position " + i);
        } else {
          assertEquals(keys.get(i), got.get(i).orElseThrow().key(), "position " + i);
          assertEquals(Long.parseLong(word.substring(1)), got.get(i).orElseThrow().getLong("count"));
        }
      }
    }
  }

  @Test
  public void shouldRoundTripEveryColumnTypeIncludingNulls() {
    TableStore store = open();
    TableSchema schema = everyType();
    Table t = store.openTable(schema);
    byte[] bytes = {0, (byte) 0xff, 7, 0};
    Row full = Row.of(schema.key("ключ ✓", -5L, -1L, bytes, true, -0.5),
        "значение 🙂", Long.MIN_VALUE, 0x8000_0000_0000_0001L, new byte[] {1, 2, 0, (byte) 0x80}, false, 1e-300);
    Row nulls = Row.of(schema.key("", 0L, 0L, new byte[0], false, 0.0), null, null, null, null, null, null);
    commit(store, t, full, nulls);
    assertEquals(Optional.of(full), read(store, t, full.key()));
    assertEquals(Optional.of(nulls), read(store, t, nulls.key()));
    Row back = read(store, t, full.key()).orElseThrow();
    assertEquals("значение 🙂", back.getString("v_str"));
    assertArrayEquals(new byte[] {1, 2, 0, (byte) 0x80}, back.getBytes("v_bytes"));
    assertEquals(0x8000_0000_0000_0001L, back.getLong("v_u64"));
    assertTrue(read(store, t, nulls.key()).orElseThrow().isNull("v_bytes"));
  }

  // ------------------------------------------------------------------ visibility and lifecycle

  @Test
  public void shouldMakeUpsertsVisibleOnlyAfterCommit() {
    TableStore store = open();
    TableSchema schema = counts();
    Table t = store.openTable(schema);
    try (StoreTransaction writer = store.begin()) {
      writer.upsert(t, count(schema, "a", 1));
      assertEquals(Optional.empty(), read(store, t, schema.key("a")), "another transaction saw an uncommitted row");
      assertEquals(Optional.empty(), writer.lookup(t, List.of(schema.key("a"))).get(0),
          "a transaction's lookups must not see its own uncommitted writes");
      writer.commit();
    }
    assertEquals(Optional.of(count(schema, "a", 1)), read(store, t, schema.key("a")));
  }

  @Test
  public void shouldMakeDeletesVisibleOnlyAfterCommit() {
    TableStore store = open();
    TableSchema schema = counts();
    Table t = store.openTable(schema);
    commit(store, t, count(schema, "a", 1), count(schema, "b", 2));
    try (StoreTransaction tx = store.begin()) {
      tx.delete(t, schema.key("a"));
      tx.delete(t, schema.key("never-there"));
      assertEquals(Optional.of(count(schema, "a", 1)), read(store, t, schema.key("a")));
      tx.commit();
    }
    assertEquals(Optional.empty(), read(store, t, schema.key("a")));
    assertEquals(List.of(count(schema, "b", 2)), scan(store, t));
  }

  @Test
  public void shouldDropEverythingOnAbort() {
    TableStore store = open();
    TableSchema schema = counts();
    Table t = store.openTable(schema);
    commit(store, t, count(schema, "a", 1));
    StoreTransaction tx = store.begin();
    tx.upsert(t, count(schema, "b", 2));
    tx.delete(t, schema.key("a"));
    tx.abort();
    tx.abort();
    assertThrows(IllegalStateException.class, tx::commit);
    assertEquals(List.of(count(schema, "a", 1)), scan(store, t));
    try (StoreTransaction closedUnused = store.begin()) {
      closedUnused.upsert(t, count(schema, "c", 3));
    }
    assertEquals(Optional.empty(), read(store, t, schema.key("c")), "close() must abort an open transaction");
  }

  @Test
  public void shouldLetTheLastWriteOfAKeyWinWithinATransaction() {
    TableStore store = open();
    TableSchema schema = counts();
    Table t = store.openTable(schema);
    commit(store, t, count(schema, "kept", 1), count(schema, "deleted", 1));
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(t, count(schema, "kept", 2));
      tx.delete(t, schema.key("kept"));
      tx.upsert(t, count(schema, "kept", 3));
      tx.upsert(t, count(schema, "deleted", 2));
      tx.delete(t, schema.key("deleted"));
      tx.commit();
    }
    assertEquals(List.of(count(schema, "kept", 3)), scan(store, t));
  }

  @Test
  public void shouldEndTheTransactionWithItsCommit() {
    TableStore store = open();
    TableSchema schema = counts();
    Table t = store.openTable(schema);
    StoreTransaction tx = store.begin();
    tx.upsert(t, count(schema, "a", 1));
    tx.commit();
    assertThrows(IllegalStateException.class, tx::commit);
    assertThrows(IllegalStateException.class, () -> tx.upsert(t, count(schema, "b", 1)));
    assertThrows(IllegalStateException.class, () -> tx.lookup(t, List.of(schema.key("a"))));
    tx.abort();
    tx.close();
    assertEquals(List.of(count(schema, "a", 1)), scan(store, t));
  }

  @Test
  public void shouldScanInYtKeyOrder() {
    TableStore store = open();
    TableSchema schema = counts();
    Table t = store.openTable(schema);
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      rows.add(count(schema, "word-" + i, i));
    }
    commit(store, t, rows.toArray(new Row[0]));
    List<Row> scanned = scan(store, t);
    assertEquals(200, scanned.size());
    for (int i = 1; i < scanned.size(); i++) {
      long prev = scanned.get(i - 1).key().hash();
      long next = scanned.get(i).key().hash();
      assertTrue(Long.compareUnsigned(prev, next) < 0, "scan must be ordered by hash as unsigned");
    }
    List<Row> sorted = new ArrayList<>(rows);
    sorted.sort((a, b) -> a.key().compareTo(b.key()));
    assertEquals(sorted, scanned);
  }

  @Test
  public void shouldAcceptConcurrentWritesToOneTransaction() throws Exception {
    TableStore store = open();
    TableSchema schema = counts();
    Table t = store.openTable(schema);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try (StoreTransaction tx = store.begin()) {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<?>> futures = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        int worker = w;
        futures.add(pool.submit(() -> {
          go.await();
          for (int i = 0; i < 100; i++) {
            tx.upsert(t, count(schema, "w" + worker + "-" + i, i));
            tx.lookup(t, List.of(schema.key("w" + worker + "-" + i)));
          }
          return null;
        }));
      }
      go.countDown();
      for (Future<?> f : futures) {
        f.get(30, TimeUnit.SECONDS);
      }
      tx.commit();
    } finally {
      pool.shutdownNow();
    }
    assertEquals(400, scan(store, t).size());
  }

  // ------------------------------------------------------------------ atomicity

  @Test
  public void shouldCommitSeveralTablesTogether() {
    TableStore store = open();
    TableSchema c = counts();
    TableSchema n = names();
    Table tc = store.openTable(c);
    Table tn = store.openTable(n);
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(tc, count(c, "a", 1));
      tx.upsert(tn, Row.of(n.key(7L), "seven"));
      assertEquals(Optional.empty(), read(store, tn, n.key(7L)));
      tx.commit();
    }
    assertEquals(Optional.of(count(c, "a", 1)), read(store, tc, c.key("a")));
    assertEquals("seven", read(store, tn, n.key(7L)).orElseThrow().getString("name"));
  }

  @Test
  public void shouldApplyNothingWhenTheCommitFailsMidway() {
    RuntimeException injected = new IllegalStateException("injected failure after the first table");
    TableStore store = open(path -> {
      if (armed && path.equals(tablePath("names"))) {
        throw injected;
      }
    });
    assumeTrue(store.capabilities().atomicMultiTableCommit(), "the store does not declare atomic multi-table commit");
    TableSchema c = counts();
    TableSchema n = names();
    Table tc = store.openTable(c);
    Table tn = store.openTable(n);
    commit(store, tc, count(c, "before", 1));
    armed = true;
    StoreTransaction tx = store.begin();
    tx.upsert(tc, count(c, "a", 1));
    tx.delete(tc, c.key("before"));
    tx.upsert(tn, Row.of(n.key(1L), "one"));
    RuntimeException thrown = assertThrows(RuntimeException.class, tx::commit);
    assertTrue(causedBy(thrown, injected), "commit must fail with the injected failure, got " + thrown);
    armed = false;
    assertEquals(List.of(count(c, "before", 1)), scan(store, tc), "a failed atomic commit wrote the first table");
    assertEquals(List.of(), scan(store, tn));
    tx.abort();
    commit(store, tn, Row.of(n.key(2L), "two"));
    assertEquals(1, scan(store, tn).size(), "the store must stay usable after a failed commit");
  }

  // ------------------------------------------------------------------ conflicts

  @Test
  public void shouldFailTheSecondOfTwoOverlappingWritesToOneRow() {
    TableStore store = open();
    TableSchema c = counts();
    TableSchema n = names();
    Table tc = store.openTable(c);
    Table tn = store.openTable(n);
    StoreTransaction first = store.begin();
    StoreTransaction second = store.begin();
    first.upsert(tc, count(c, "contended", 1));
    second.upsert(tn, Row.of(n.key(1L), "from the loser"));
    second.upsert(tc, count(c, "contended", 2));
    first.commit();
    CommitConflictException e = assertThrows(CommitConflictException.class, second::commit);
    assertTrue(e.getMessage().contains(tablePath("counts")), "message must name the table: " + e.getMessage());
    assertTrue(e.getMessage().contains("contended"), "message must name the key: " + e.getMessage());
    assertEquals(Optional.of(count(c, "contended", 1)), read(store, tc, c.key("contended")));
    assertEquals(List.of(), scan(store, tn), "nothing of the conflicting transaction may be applied");
    second.abort();
  }

  @Test
  public void shouldDetectAConflictWithACommittedDelete() {
    TableStore store = open();
    TableSchema c = counts();
    Table tc = store.openTable(c);
    commit(store, tc, count(c, "x", 1));
    StoreTransaction deleter = store.begin();
    StoreTransaction writer = store.begin();
    deleter.delete(tc, c.key("x"));
    deleter.commit();
    writer.upsert(tc, count(c, "x", 5));
    assertThrows(CommitConflictException.class, writer::commit);
    assertEquals(Optional.empty(), read(store, tc, c.key("x")));
  }

  @Test
  public void shouldNotConflictWithoutOverlapOrOnDifferentRows() {
    TableStore store = open();
    TableSchema c = counts();
    Table tc = store.openTable(c);
    StoreTransaction a = store.begin();
    StoreTransaction b = store.begin();
    a.upsert(tc, count(c, "a", 1));
    b.upsert(tc, count(c, "b", 1));
    a.commit();
    b.commit();
    StoreTransaction later = store.begin();
    later.upsert(tc, count(c, "a", 2));
    later.commit();
    assertEquals(List.of(count(c, "a", 2), count(c, "b", 1)),
        scan(store, tc).stream().sorted((x, y) -> ((String) x.key().get("word")).compareTo(
            (String) y.key().get("word"))).toList());
  }

  // ------------------------------------------------------------------ leases and fencing

  @Test
  public void shouldIncreaseTheLeaseGenerationOnEveryTakeover() {
    TableStore store = open();
    Lease first = store.acquireLease("pipeline-a", "worker-1");
    Lease second = store.acquireLease("pipeline-a", "worker-2");
    Lease other = store.acquireLease("pipeline-b", "worker-1");
    assertTrue(second.generation() > first.generation());
    assertEquals("worker-2", second.owner());
    assertEquals("pipeline-a", second.name());
    assertTrue(other.generation() >= 1);
    assertTrue(store.acquireLease("pipeline-a", "worker-1").generation() > second.generation());
  }

  @Test
  public void shouldCommitUnderTheCurrentLease() {
    TableStore store = open();
    TableSchema c = counts();
    Table tc = store.openTable(c);
    Lease lease = store.acquireLease("p", "w1");
    try (StoreTransaction tx = store.begin(lease)) {
      assertEquals(Optional.of(lease), tx.lease());
      tx.upsert(tc, count(c, "a", 1));
      tx.commit();
    }
    assertEquals(Optional.of(count(c, "a", 1)), read(store, tc, c.key("a")));
  }

  @Test
  public void shouldFenceACommitOnceItsLeaseWasTakenOver() {
    TableStore store = open();
    assumeTrue(store.capabilities().fencing(), "the store does not declare fencing");
    TableSchema c = counts();
    TableSchema n = names();
    Table tc = store.openTable(c);
    Table tn = store.openTable(n);
    Lease old = store.acquireLease("p", "old-worker");
    StoreTransaction stale = store.begin(old);
    stale.upsert(tc, count(c, "stale", 1));
    stale.upsert(tn, Row.of(n.key(1L), "stale"));
    Lease fresh = store.acquireLease("p", "new-worker");
    LeaseLostException e = assertThrows(LeaseLostException.class, stale::commit);
    assertTrue(e.getMessage().contains("p"), e.getMessage());
    assertEquals(List.of(), scan(store, tc), "a fenced commit must change nothing");
    assertEquals(List.of(), scan(store, tn), "a fenced commit must change nothing");
    try (StoreTransaction tx = store.begin(fresh)) {
      tx.upsert(tc, count(c, "fresh", 1));
      tx.commit();
    }
    assertEquals(1, scan(store, tc).size());
    assertThrows(LeaseLostException.class, () -> {
      try (StoreTransaction tx = store.begin(old)) {
        tx.upsert(tc, count(c, "stale-again", 1));
        tx.commit();
      }
    });
    assertEquals(Optional.empty(), read(store, tc, c.key("stale-again")));
  }

  // ------------------------------------------------------------------ schemas, keys and validation

  @Test
  public void shouldCreateATableOnceAndValidateItsSchemaOnEveryOpen() {
    TableStore store = open();
    TableSchema c = counts();
    Table first = store.openTable(c);
    commit(store, first, count(c, "a", 1));
    Table again = store.openTable(c);
    assertEquals(c, again.schema());
    assertEquals(Optional.of(count(c, "a", 1)), read(store, again, c.key("a")));
    TableSchema otherType = TableSchema.builder(tablePath("counts")).key("word", ColumnType.STRING)
        .value("count", ColumnType.DOUBLE).value("note", ColumnType.BYTES).build();
    SchemaMismatchException e = assertThrows(SchemaMismatchException.class, () -> store.openTable(otherType));
    assertTrue(e.getMessage().contains("expected " + otherType), e.getMessage());
    assertTrue(e.getMessage().contains("actual " + c), e.getMessage());
    TableSchema otherKey = TableSchema.builder(tablePath("counts")).key("word", ColumnType.BYTES)
        .value("count", ColumnType.INT64).value("note", ColumnType.BYTES).build();
    assertThrows(SchemaMismatchException.class, () -> store.openTable(otherKey));
    TableSchema otherAttribute = TableSchema.builder(tablePath("counts")).key("word", ColumnType.STRING)
        .value("count", ColumnType.INT64).value("note", ColumnType.BYTES).attribute("codec", "v2").build();
    assertThrows(SchemaMismatchException.class, () -> store.openTable(otherAttribute));
    assertEquals(Optional.of(count(c, "a", 1)), read(store, first, c.key("a")), "a failed open changed the table");
  }

  @Test
  public void shouldFindExistingTablesWithTheirSchema() {
    TableStore store = open();
    TableSchema c = TableSchema.builder(tablePath("found")).key("word", ColumnType.STRING)
        .value("count", ColumnType.INT64).attribute("epochal.codec", "long-be:v1").build();
    store.openTable(c);
    assertEquals(c, store.findTable(tablePath("found")).orElseThrow().schema());
    assertEquals(Optional.empty(), store.findTable(tablePath("nope")));
  }

  @Test
  public void shouldComputeTheHashColumnAsFarmHashOfTheKeyColumns() {
    TableStore store = open();
    TableSchema schema = everyType();
    Table t = store.openTable(schema);
    byte[] bytes = "raw".getBytes(StandardCharsets.UTF_8);
    TableKey key = schema.key("word", 42L, -7L, bytes, true, 2.5);
    commit(store, t, Row.of(key, null, null, null, null, null, null));
    Row stored = read(store, t, key).orElseThrow();
    long expected = FarmHash.farmHash("word", 42L, -7L, bytes, true, 2.5);
    assertEquals(expected, stored.getLong(TableSchema.HASH_COLUMN));
    assertEquals(expected, stored.key().hash());
    TableSchema single = counts();
    assertEquals(FarmHash.farmHash("hello"), single.key("hello").hash());
    assertEquals(FarmHash.farmHash("hello"), (long) Row.of(single.key("hello"), 1L, null).getLong("hash"));
  }

  @Test
  public void shouldRejectNullKeyPartsNamingTableAndColumn() {
    TableSchema schema = everyType();
    NullPointerException e = assertThrows(NullPointerException.class,
        () -> schema.key("s", null, 1L, new byte[0], true, 1.0));
    assertTrue(e.getMessage().contains(tablePath("every_type")), e.getMessage());
    assertTrue(e.getMessage().contains("k_i64"), e.getMessage());
    TableSchema n = names();
    NullPointerException required = assertThrows(NullPointerException.class, () -> Row.of(n.key(1L), (Object) null));
    assertTrue(required.getMessage().contains("name"), required.getMessage());
  }

  @Test
  public void shouldRejectKeysAndRowsThatDoNotFitTheSchema() {
    TableStore store = open();
    TableSchema c = counts();
    TableSchema n = names();
    Table tc = store.openTable(c);
    IllegalArgumentException wrongType = assertThrows(IllegalArgumentException.class, () -> n.key("not a number"));
    assertTrue(wrongType.getMessage().contains("id"), wrongType.getMessage());
    assertThrows(IllegalArgumentException.class, () -> c.key("a", "b"));
    assertThrows(IllegalArgumentException.class, () -> Row.of(c.key("a"), 1L));
    assertThrows(IllegalArgumentException.class, () -> Row.of(c.key("a"), "one", null));
    assertThrows(IllegalArgumentException.class, () -> Row.builder(c.key("a")).set("word", "x"));
    assertThrows(IllegalArgumentException.class, () -> c.key("\uD800"));
    try (StoreTransaction tx = store.begin()) {
      assertThrows(IllegalArgumentException.class, () -> tx.upsert(tc, Row.of(n.key(1L), "one")));
      assertThrows(IllegalArgumentException.class, () -> tx.lookup(tc, List.of(n.key(1L))));
      assertThrows(NullPointerException.class, () -> tx.upsert(tc, (Row) null));
    }
  }

  @Test
  public void shouldTreatByteKeysByContent() {
    TableStore store = open();
    TableSchema schema = TableSchema.builder(tablePath("blobs")).key("k", ColumnType.BYTES)
        .value("v", ColumnType.INT64).build();
    Table t = store.openTable(schema);
    byte[] k = {1, 2, 3};
    TableKey key = schema.key(k);
    k[0] = 9;
    commit(store, t, Row.of(key, 5L));
    assertEquals(5L, read(store, t, schema.key(new byte[] {1, 2, 3})).orElseThrow().getLong("v"));
    assertEquals(schema.key(new byte[] {1, 2, 3}), key);
    assertNotEquals(schema.key(new byte[] {9, 2, 3}), key);
  }

  // ------------------------------------------------------------------ persistence

  @Test
  public void shouldKeepCommittedRowsSchemasAndLeasesAcrossReopen() {
    assumeTrue(supportsReopen(), "the store does not persist across reopen");
    TableStore first = open();
    TableSchema c = counts();
    Table tc = first.openTable(c);
    commit(first, tc, count(c, "a", 1), count(c, "b", 2));
    try (StoreTransaction tx = first.begin()) {
      tx.delete(tc, c.key("b"));
      tx.commit();
    }
    StoreTransaction unfinished = first.begin();
    unfinished.upsert(tc, count(c, "uncommitted", 1));
    Lease before = first.acquireLease("p", "w1");
    first.close();

    TableStore second = open();
    TableSchema otherType = TableSchema.builder(tablePath("counts")).key("word", ColumnType.STRING)
        .value("count", ColumnType.DOUBLE).value("note", ColumnType.BYTES).build();
    assertThrows(SchemaMismatchException.class, () -> second.openTable(otherType));
    Table again = second.openTable(c);
    assertEquals(List.of(count(c, "a", 1)), scan(second, again));
    Lease after = second.acquireLease("p", "w2");
    assertTrue(after.generation() > before.generation(), "lease generations must survive a reopen");
    assertSame(c.getClass(), again.schema().getClass());
  }
}
