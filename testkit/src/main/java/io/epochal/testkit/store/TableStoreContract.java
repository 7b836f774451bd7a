package io.epochal.testkit.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.epochal.codec.Codecs;
import io.epochal.errors.CommitConflictException;
import io.epochal.errors.EpochalException;
import io.epochal.errors.LeaseLostException;
import io.epochal.errors.SchemaMismatchException;
import io.epochal.errors.StoreException;
import io.epochal.hash.FarmHash;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.spouts.ListSpout;
import io.epochal.state.MapState;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.Lease;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableBackedStateFactory;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

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
 *
 * <p><b>Read faults.</b> The contract opens every store through {@link #createStore(CommitHook, ReadHook)}, whose
 * default ignores the {@link ReadHook} and calls {@link #createStore(CommitHook)}. A store passes the read-fault cases
 * (an unreadable store, damaged stored bytes, in single calls and under whole pipelines and their checkpoints) only if
 * it calls the hook, so override that method to give the hook to the store; a store that does not wire it fails them,
 * naming this method. A store that keeps rows as objects rather than bytes overrides {@link #storesBytes()}; a store
 * that cannot take a read hook at all may opt out explicitly, with a reason shown on every skipped case
 * ({@link #readFaultsOptOut()}).
 *
 * <pre>{@code
 * class MyTableStoreTest extends TableStoreContract {
 *   @TempDir Path dir;
 *
 *   @Override
 *   protected TableStore createStore(CommitHook commit, ReadHook read) {
 *     return MyTableStore.builder(dir).commitHook(commit).readHook(read).build();
 *   }
 *
 *   @Override
 *   protected TableStore createStore(CommitHook commit) {
 *     return createStore(commit, ReadHook.NONE);
 *   }
 * }
 * }</pre>
 */
public abstract class TableStoreContract {
  private final List<TableStore> stores = new ArrayList<>();
  private final ContractReadHook reads = new ContractReadHook();
  private volatile boolean armed;

  /**
   * Creates (or, when called again in the same test after closing the previous one, reopens) the store under test.
   *
   * @param hook the fault-injection hook the store must call during commits (see {@link CommitHook})
   */
  protected abstract TableStore createStore(CommitHook hook);

  /**
   * Creates (or reopens, see {@link #createStore(CommitHook)}) the store under test with both fault-injection hooks.
   * Every store the contract opens comes from here. The default ignores {@code read} and returns
   * {@code createStore(commit)}: such a store fails the read-fault cases, so override this to pass the hook on.
   *
   * @param commit the hook the store must call during commits (see {@link CommitHook})
   * @param read the hook the store must call on every read (see {@link ReadHook})
   */
  protected TableStore createStore(CommitHook commit, ReadHook read) {
    return createStore(commit);
  }

  /**
   * Whether the store keeps rows as bytes that it decodes on every read, and so passes them through
   * {@link ReadHook#storedBytes} (default true). Return false for a store that keeps rows as objects (the in-memory
   * store) or as typed columns a server decodes: the contract then checks that it never calls
   * {@link ReadHook#storedBytes}, and skips the damaged-bytes cases saying why.
   */
  protected boolean storesBytes() {
    return true;
  }

  /**
   * An explicit opt-out of every read-fault case, with the reason shown on each skipped case (default: none, the
   * cases run). Only for a store that cannot take a {@link ReadHook}; a store that can must wire it in
   * {@link #createStore(CommitHook, ReadHook)} instead.
   */
  protected Optional<String> readFaultsOptOut() {
    return Optional.empty();
  }

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
    TableStore s = createStore(hook, reads);
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

  // ------------------------------------------------------------------ read faults: an unreadable store

  @Test
  public void shouldFailALookupWhoseReadFailsInsteadOfReportingTheKeysMissing() {
    assumeReadFaults();
    TableStore store = open();
    TableSchema schema = counts();
    Table t = store.openTable(schema);
    commit(store, t, count(schema, "a", 1), count(schema, "b", 2));
    reads.failReadsOf(schema.path());
    try (StoreTransaction tx = store.begin()) {
      assertInjectedReadFailure("StoreTransaction.lookup", schema.path(),
          () -> tx.lookup(t, List.of(schema.key("a"), schema.key("never-written"), schema.key("b"))));
    }
    reads.heal();
    assertEquals(Optional.of(count(schema, "a", 1)), read(store, t, schema.key("a")), "a failed read changed a");
    assertEquals(Optional.of(count(schema, "b", 2)), read(store, t, schema.key("b")), "a failed read changed b");
    assertEquals(2, scan(store, t).size(), "a failed read changed the table");
  }

  @Test
  public void shouldFailAScanWhoseReadFailsInsteadOfReportingAnEmptyTable() {
    assumeReadFaults();
    TableStore store = open();
    TableSchema schema = counts();
    Table t = store.openTable(schema);
    commit(store, t, count(schema, "a", 1));
    reads.failReadsOf(schema.path());
    try (StoreTransaction tx = store.begin()) {
      assertInjectedReadFailure("StoreTransaction.scan", schema.path(), () -> tx.scan(t));
    }
    reads.heal();
    assertEquals(List.of(count(schema, "a", 1)), scan(store, t));
  }

  @Test
  public void shouldFailAOneOffLookupWhoseReadFails() {
    assumeReadFaults();
    TableStore store = open();
    TableSchema schema = counts();
    Table t = store.openTable(schema);
    commit(store, t, count(schema, "a", 1));
    reads.failReadsOf(schema.path());
    assertInjectedReadFailure("TableStore.lookup", schema.path(),
        () -> store.lookup(t, List.of(schema.key("a"), schema.key("never-written"))));
    reads.heal();
    assertEquals(List.of(Optional.of(count(schema, "a", 1)), Optional.empty()),
        store.lookup(t, List.of(schema.key("a"), schema.key("never-written"))));
  }

  @Test
  public void shouldNameTheTableOfEachReadToTheReadHook() {
    assumeReadFaults();
    TableStore store = open();
    TableSchema c = counts();
    TableSchema n = names();
    Table tc = store.openTable(c);
    Table tn = store.openTable(n);
    commit(store, tc, count(c, "a", 1));
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(tn, Row.of(n.key(1L), "one"));
      tx.commit();
    }
    reads.failReadsOf(n.path());
    assertEquals(Optional.of(count(c, "a", 1)), read(store, tc, c.key("a")),
        "only reads of " + n.path() + " fail; a read of " + c.path() + " must not");
    assertEquals(List.of(count(c, "a", 1)), scan(store, tc));
    try (StoreTransaction tx = store.begin()) {
      assertInjectedReadFailure("StoreTransaction.lookup", n.path(), () -> tx.lookup(tn, List.of(n.key(1L))));
    }
    assertTrue(reads.beforeReads(c.path()) >= 2, "ReadHook.beforeRead must be called with the path of the table "
        + "read (" + c.path() + ") on every lookup and scan; calls seen: " + reads.beforeReadPaths());
  }

  // ------------------------------------------------------------------ read faults: damaged stored bytes

  @Test
  public void shouldPassTheStoredBytesOfEveryRowReadThroughTheReadHook() {
    assumeReadFaults();
    TableStore store = open();
    TableSchema schema = counts();
    Table t = store.openTable(schema);
    commit(store, t, count(schema, "a", 1), Row.of(schema.key("b"), 2L, new byte[] {1, 2, 3}));
    int before = reads.storedBytesCalls(schema.path());
    try (StoreTransaction tx = store.begin()) {
      assertEquals(3, tx.lookup(t, List.of(schema.key("a"), schema.key("never-written"), schema.key("b"))).size());
    }
    int afterLookup = reads.storedBytesCalls(schema.path());
    assertEquals(2, scan(store, t).size());
    int afterScan = reads.storedBytesCalls(schema.path());
    if (!storesBytes()) {
      assertEquals(0, afterScan, "the store declares that it keeps no stored bytes (storesBytes() is false) but "
          + "called ReadHook.storedBytes; override storesBytes() to return true");
      return;
    }
    assertTrue(afterLookup - before >= 2, "a lookup of 2 stored rows passed " + (afterLookup - before)
        + " rows' bytes through ReadHook.storedBytes; a store that keeps rows as bytes must pass every row it reads "
        + "(if it keeps no bytes, override storesBytes() to return false)" + notWiredHint(schema.path()));
    assertTrue(afterScan - afterLookup >= 2, "a scan of 2 stored rows passed " + (afterScan - afterLookup)
        + " rows' bytes through ReadHook.storedBytes");
    assertTrue(reads.storedBytesLengths(schema.path()).stream().allMatch(len -> len > 0),
        "ReadHook.storedBytes was given empty bytes: " + reads.storedBytesLengths(schema.path()));
  }

  @Test
  public void shouldRefuseAStoredRowWithAnyBitFlipped() {
    assumeReadFaults();
    assumeStoresBytes();
    TableStore store = open();
    TableSchema schema = counts();
    Table t = store.openTable(schema);
    Row row = Row.of(schema.key(DAMAGED_KEY), 17L, new byte[] {5, 6, 7});
    commit(store, t, row);
    int length = storedLength(store, t, schema.key(DAMAGED_KEY));
    int bits = length * 8;
    int step = Math.max(1, bits / 2048);
    for (int bit = 0; bit < bits; bit += step) {
      int flipped = bit;
      reads.damage(schema.path(), bytes -> {
        if (flipped >= bytes.length * 8) {
          return null;
        }
        byte[] copy = bytes.clone();
        copy[flipped / 8] ^= (byte) (1 << (flipped % 8));
        return copy;
      });
      assertRefusedDamage("a lookup of a stored row with bit " + bit + " of " + bits + " flipped", schema.path(),
          DAMAGED_KEY, () -> read(store, t, schema.key(DAMAGED_KEY)));
      assertRefusedDamage("a scan over a stored row with bit " + bit + " of " + bits + " flipped", schema.path(),
          null, () -> scan(store, t));
    }
    reads.heal();
    assertEquals(Optional.of(row), read(store, t, schema.key(DAMAGED_KEY)), "a damaged read changed the row");
  }

  @Test
  public void shouldRefuseATruncatedStoredRow() {
    assumeReadFaults();
    assumeStoresBytes();
    TableStore store = open();
    TableSchema schema = counts();
    Table t = store.openTable(schema);
    Row row = Row.of(schema.key(DAMAGED_KEY), 17L, new byte[] {5, 6, 7});
    commit(store, t, row);
    int length = storedLength(store, t, schema.key(DAMAGED_KEY));
    for (int keep = 0; keep < length; keep++) {
      int kept = keep;
      reads.damage(schema.path(), bytes -> kept >= bytes.length ? null : java.util.Arrays.copyOf(bytes, kept));
      assertRefusedDamage("a lookup of a stored row truncated to " + keep + " of " + length + " bytes",
          schema.path(), DAMAGED_KEY, () -> read(store, t, schema.key(DAMAGED_KEY)));
    }
    reads.damage(schema.path(), bytes -> java.util.Arrays.copyOf(bytes, bytes.length / 2));
    assertRefusedDamage("a scan over a stored row truncated to half", schema.path(), null, () -> scan(store, t));
    reads.heal();
    assertEquals(Optional.of(row), read(store, t, schema.key(DAMAGED_KEY)), "a damaged read changed the row");
  }

  @Test
  public void shouldRefuseGarbageInPlaceOfAStoredRow() {
    assumeReadFaults();
    assumeStoresBytes();
    TableStore store = open();
    TableSchema schema = counts();
    Table t = store.openTable(schema);
    Row row = Row.of(schema.key(DAMAGED_KEY), 17L, new byte[] {5, 6, 7});
    commit(store, t, row);
    int length = storedLength(store, t, schema.key(DAMAGED_KEY));
    java.util.Random random = new java.util.Random(20240610L);
    List<byte[]> garbage = new ArrayList<>();
    for (int len : new int[] {1, length - 1, length, length, length + 1, 2 * length, 256}) {
      byte[] g = new byte[Math.max(1, len)];
      random.nextBytes(g);
      garbage.add(g);
    }
    garbage.add(new byte[length]);
    byte[] ones = new byte[length];
    java.util.Arrays.fill(ones, (byte) 0xff);
    garbage.add(ones);
    for (byte[] g : garbage) {
      reads.damage(schema.path(), bytes -> g.clone());
      assertRefusedDamage("a lookup of a stored row replaced by " + g.length + " bytes of garbage", schema.path(),
          DAMAGED_KEY, () -> read(store, t, schema.key(DAMAGED_KEY)));
      assertRefusedDamage("a scan over a stored row replaced by " + g.length + " bytes of garbage", schema.path(),
          null, () -> scan(store, t));
    }
    reads.heal();
    assertEquals(Optional.of(row), read(store, t, schema.key(DAMAGED_KEY)), "a damaged read changed the row");
  }

  // ------------------------------------------------------------------ read faults under a pipeline

  @Test
  public void shouldStopAPipelineWhoseStateCannotBeReadWithoutCommittingTheBatch() {
    assumeReadFaults();
    TableStore store = open();
    String name = "read-fault-state";
    runBatches(store, name, "w1", 2);
    String state = statePath(name);
    List<Row> before = rowsOf(store, state);
    reads.failReadsOf(state);
    RuntimeException e = assertPipelineStops(store, name, "w2", state, "the state table " + state + " cannot be read");
    assertTrue(causedBy(e, InjectedReadFailure.class), "the pipeline must stop with the injected read failure in "
        + "the cause chain, got " + e + notWiredHint(state));
    reads.heal();
    assertNothingCommittedAfter(store, name, 2, state, before);
    assertResumesExactly(store, name);
  }

  @Test
  public void shouldStopAPipelineWhoseStateBytesAreDamagedWithoutCommittingTheBatch() {
    assumeReadFaults();
    assumeStoresBytes();
    TableStore store = open();
    String name = "damaged-state";
    runBatches(store, name, "w1", 2);
    String state = statePath(name);
    List<Row> before = rowsOf(store, state);
    reads.damage(state, bytes -> {
      byte[] copy = bytes.clone();
      copy[copy.length / 2] ^= 0x10;
      return copy;
    });
    RuntimeException e = assertPipelineStops(store, name, "w2", state,
        "the state table " + state + " holds damaged bytes");
    assertNamedUnretryable("a pipeline over damaged state bytes", e, state, null);
    reads.heal();
    assertNothingCommittedAfter(store, name, 2, state, before);
    assertResumesExactly(store, name);
  }

  @Test
  public void shouldNotStartOverWhenTheCheckpointCannotBeRead() {
    assumeReadFaults();
    TableStore store = open();
    String name = "read-fault-checkpoint";
    runBatches(store, name, "w1", 2);
    String state = statePath(name);
    List<Row> before = rowsOf(store, state);
    String checkpoints = checkpointPath(store);
    reads.failReadsOf(checkpoints);
    RuntimeException e = assertPipelineStops(store, name, "w2", checkpoints,
        "the checkpoint table " + checkpoints + " cannot be read");
    assertTrue(causedBy(e, InjectedReadFailure.class), "a restarted pipeline whose checkpoint cannot be read must "
        + "stop with the injected read failure in the cause chain, got " + e + notWiredHint(checkpoints));
    reads.heal();
    assertNothingCommittedAfter(store, name, 2, state, before);
    assertResumesExactly(store, name);
  }

  @Test
  public void shouldNotStartOverWhenTheCheckpointBytesAreDamaged() {
    assumeReadFaults();
    assumeStoresBytes();
    TableStore store = open();
    String name = "damaged-checkpoint";
    runBatches(store, name, "w1", 2);
    String state = statePath(name);
    List<Row> before = rowsOf(store, state);
    String checkpoints = checkpointPath(store);
    reads.damage(checkpoints, bytes -> java.util.Arrays.copyOf(bytes, bytes.length - 1));
    RuntimeException e = assertPipelineStops(store, name, "w2", checkpoints,
        "the checkpoint table " + checkpoints + " holds damaged bytes");
    assertNamedUnretryable("a restarted pipeline over a damaged checkpoint row", e, checkpoints, null);
    reads.heal();
    assertNothingCommittedAfter(store, name, 2, state, before);
    assertResumesExactly(store, name);
  }

  // ------------------------------------------------------------------ read-fault fixtures

  /** A key no other text of the contract contains, so that an error naming it is recognised. */
  private static final String DAMAGED_KEY = "damaged-key-17";

  /** Sentences of the contract's word count; every batch after the first reads the stored count of {@code a}. */
  private static final List<String> SENTENCES = List.of("a b", "a c", "a", "b a", "a");

  private static final Map<String, Long> COUNTS = Map.of("a", 5L, "b", 2L, "c", 1L);

  /** What the contract's {@link ReadHook} throws from {@code beforeRead}: a store failure, retryable. */
  private static final class InjectedReadFailure extends StoreException {
    private static final long serialVersionUID = 1L;

    InjectedReadFailure(String tablePath) {
      super("injected by the table-store contract: table " + tablePath + " cannot be read");
    }
  }

  /**
   * The hook every store of the contract gets: counts calls per table, and fails reads or damages stored bytes of one
   * table when a test says so. Thread-safe.
   */
  private static final class ContractReadHook implements ReadHook {
    private final Map<String, AtomicInteger> beforeReads = new ConcurrentHashMap<>();
    private final Map<String, List<Integer>> storedLengths = new ConcurrentHashMap<>();
    private final AtomicInteger damaged = new AtomicInteger();
    private volatile String failing;
    private volatile String damagedTable;
    private volatile UnaryOperator<byte[]> damage;

    @Override
    public void beforeRead(String tablePath) {
      beforeReads.computeIfAbsent(tablePath, p -> new AtomicInteger()).incrementAndGet();
      if (tablePath.equals(failing)) {
        throw new InjectedReadFailure(tablePath);
      }
    }

    @Override
    public byte[] storedBytes(String tablePath, byte[] stored) {
      storedLengths.computeIfAbsent(tablePath, p -> new CopyOnWriteArrayList<>()).add(stored.length);
      UnaryOperator<byte[]> d = damage;
      if (d != null && tablePath.equals(damagedTable)) {
        byte[] copy = d.apply(stored.clone());
        if (copy != null) {
          damaged.incrementAndGet();
          return copy;
        }
      }
      return stored;
    }

    void failReadsOf(String tablePath) {
      heal();
      failing = tablePath;
    }

    /** Damages the stored bytes of {@code tablePath}: {@code how} returns the damaged copy, or null to keep them. */
    void damage(String tablePath, UnaryOperator<byte[]> how) {
      failing = null;
      damage = how;
      damagedTable = tablePath;
    }

    void heal() {
      failing = null;
      damagedTable = null;
      damage = null;
    }

    int beforeReads(String tablePath) {
      AtomicInteger n = beforeReads.get(tablePath);
      return n == null ? 0 : n.get();
    }

    Map<String, AtomicInteger> beforeReadPaths() {
      return Map.copyOf(beforeReads);
    }

    /** @return how many stored rows were damaged so far */
    int damaged() {
      return damaged.get();
    }

    int storedBytesCalls(String tablePath) {
      return storedBytesLengths(tablePath).size();
    }

    List<Integer> storedBytesLengths(String tablePath) {
      return List.copyOf(storedLengths.getOrDefault(tablePath, List.of()));
    }
  }

  private void assumeReadFaults() {
    readFaultsOptOut().ifPresent(reason -> assumeTrue(false, "the store under test opts out of the read-fault "
        + "cases: " + reason));
  }

  private void assumeStoresBytes() {
    assumeTrue(storesBytes(), "the store keeps rows as objects or typed columns, not bytes it decodes "
        + "(storesBytes() is false): there are no stored bytes to damage");
  }

  private String notWiredHint(String tablePath) {
    if (reads.beforeReads(tablePath) > 0) {
      return "";
    }
    return ". ReadHook.beforeRead was never called for table " + tablePath + " (calls seen: "
        + reads.beforeReadPaths() + "): the store under test does not take the contract's read hook. Override "
        + "createStore(CommitHook, ReadHook) to pass it to the store (or, only if the store cannot take one, "
        + "readFaultsOptOut() with the reason)";
  }

  /** Asserts that {@code call} fails with the injected read failure, as is or as the cause of a StoreException. */
  private void assertInjectedReadFailure(String what, String tablePath, Supplier<?> call) {
    Object result;
    try {
      result = call.get();
    } catch (RuntimeException e) {
      assertTrue(causedBy(e, InjectedReadFailure.class), what + " of " + tablePath + " must fail with the failure "
          + "ReadHook.beforeRead threw (as is or as the cause of a StoreException), got " + e);
      assertTrue(e instanceof StoreException, what + " must throw the injected StoreException or a StoreException "
          + "caused by it, got " + e);
      return;
    }
    throw new AssertionFailedError(what + " of " + tablePath + " returned " + result + " although its read failed "
        + "(ReadHook.beforeRead threw): a store must never turn an unreadable value into \"absent\""
        + notWiredHint(tablePath));
  }

  /** Asserts that {@code call} fails with a named, unretryable error because the stored bytes were damaged. */
  private void assertRefusedDamage(String what, String tablePath, String key, Supplier<?> call) {
    int calls = reads.storedBytesCalls(tablePath);
    int damaged = reads.damaged();
    Object result;
    try {
      result = call.get();
    } catch (RuntimeException e) {
      assertNamedUnretryable(what, e, tablePath, key);
      return;
    }
    if (reads.storedBytesCalls(tablePath) == calls) {
      throw new AssertionFailedError(what + " of table " + tablePath + " returned " + result + " without passing "
          + "any stored bytes through ReadHook.storedBytes: a store that keeps rows as bytes must pass every row it "
          + "reads (if it keeps no bytes, override storesBytes() to return false)" + notWiredHint(tablePath));
    }
    if (reads.damaged() != damaged) {
      throw new AssertionFailedError(what + " of table " + tablePath + " returned " + result + ": damaged stored "
          + "bytes must fail with a named error (StateCorruptedException), never read as absent or as another "
          + "value");
    }
    // the bytes the store passed were too short for this damage: nothing was damaged
  }

  private static void assertNamedUnretryable(String what, Throwable e, String tablePath, String key) {
    boolean named = false;
    for (Throwable c = e; c != null; c = c.getCause()) {
      named |= c instanceof EpochalException;
    }
    assertTrue(named, what + " must fail with an EpochalException (StateCorruptedException), got " + e);
    assertFalse(EpochalException.isRetryable(e), what + ": damaged bytes stay damaged, so the error must not be "
        + "retryable (EpochalException.retryable() false), got " + e);
    assertTrue(names(e, tablePath), what + ": the error must name the table " + tablePath
        + " (in its message or context().table()), got " + e);
    if (key != null) {
      assertTrue(names(e, key), what + ": the error must name the key " + key
          + " (in its message or context().key()), got " + e);
    }
  }

  /** Whether {@code text} is in the message or the error context of {@code e} or a cause. */
  private static boolean names(Throwable e, String text) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c.getMessage() != null && c.getMessage().contains(text)) {
        return true;
      }
      if (c instanceof EpochalException ee && (ee.context().table().filter(x -> x.contains(text)).isPresent()
          || ee.context().key().filter(x -> x.contains(text)).isPresent())) {
        return true;
      }
    }
    return false;
  }

  private static boolean causedBy(Throwable t, Class<? extends Throwable> type) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c)) {
        return true;
      }
      for (Throwable s : c.getSuppressed()) {
        if (causedBy(s, type)) {
          return true;
        }
      }
    }
    return false;
  }

  /** The length of the stored bytes of {@code key}, as the store passes them to the hook on a lookup. */
  private int storedLength(TableStore store, Table t, TableKey key) {
    String path = t.path();
    int before = reads.storedBytesCalls(path);
    assertTrue(read(store, t, key).isPresent(), "a committed row of " + path + " was not found");
    List<Integer> lengths = reads.storedBytesLengths(path);
    assertTrue(lengths.size() > before, "a lookup of a stored row did not pass its bytes through "
        + "ReadHook.storedBytes (if the store keeps no bytes, override storesBytes() to return false)"
        + notWiredHint(path));
    return lengths.get(before);
  }

  private String pipelinePrefix() {
    return tablePath("pipeline/");
  }

  private String statePath(String pipeline) {
    return pipelinePrefix() + pipeline + "/counts";
  }

  private String checkpointPath(TableStore store) {
    return checkpoints(store, "contract-probe").checkpointTable().path();
  }

  private TableCheckpointStore checkpoints(TableStore store, String owner) {
    return TableCheckpointStore.builder(store).tablePrefix(pipelinePrefix()).owner(owner).build();
  }

  /** A word count over {@link #SENTENCES}, one sentence per batch, one partition, 3 immediate attempts per batch. */
  private Pipeline wordCount(TableCheckpointStore checkpoints, String name) {
    TableBackedStateFactory<MapState<String, Long>> counts =
        TransactionalTableLayout.factory(KeyCodec.strings(), Codecs.longs());
    PipelineBuilder builder = Pipeline.newBuilder(name).partitions(1).retryPolicy(RetryPolicy.immediate(3))
        .sleeper(d -> { }).checkpointStore(checkpoints);
    builder.source(ListSpout.of("sentences", SENTENCES, 1))
        .flatMap(line -> java.util.Arrays.asList(line.split(" ")))
        .groupBy(w -> w)
        .persistentAggregate("counts", counts, Aggregators.count());
    return builder.build();
  }

  private void runBatches(TableStore store, String name, String owner, int batches) {
    try (Pipeline p = wordCount(checkpoints(store, owner), name)) {
      p.run(batches);
      assertEquals(batches, p.lastCommittedTxid());
    }
  }

  /** Builds and runs a restarted pipeline that must stop; returns what it threw. */
  private RuntimeException assertPipelineStops(TableStore store, String name, String owner, String tablePath,
      String because) {
    long committed;
    try (Pipeline p = wordCount(checkpoints(store, owner), name)) {
      p.runUntilIdle();
      committed = p.lastCommittedTxid();
    } catch (RuntimeException e) {
      assertTrue(causedBy(e, EpochalException.class), "the pipeline must stop with a named error (an "
          + "EpochalException) when " + because + ", got " + e);
      return e;
    }
    throw new AssertionFailedError("a pipeline ran to txid " + committed + " although " + because
        + ": the store read an unreadable value as absent" + notWiredHint(tablePath));
  }

  private void assertNothingCommittedAfter(TableStore store, String name, long txid, String state, List<Row> before) {
    assertEquals(txid, checkpoints(store, "contract-check").load(name).committedTxid(),
        "the checkpoint advanced past a failed read");
    assertEquals(before, rowsOf(store, state), "state was committed on top of a failed read");
  }

  private void assertResumesExactly(TableStore store, String name) {
    TableCheckpointStore checkpoints = checkpoints(store, "w3");
    try (Pipeline p = wordCount(checkpoints, name)) {
      p.runUntilIdle();
      assertEquals(SENTENCES.size(), p.lastCommittedTxid());
    }
    MapState<String, Long> state = TransactionalTableLayout.factory(KeyCodec.strings(), Codecs.longs())
        .makeState(new io.epochal.store.ManualEpochs(checkpoints, name).context("counts", 0, 1));
    try {
      state.begin(io.epochal.state.Epoch.readAfter(name, SENTENCES.size())); // read what is committed
      assertEquals(COUNTS, state.multiGet(COUNTS.keySet()),
          "the counts after the failed reads and a resume must be exact");
      state.end();
    } finally {
      if (state instanceof AutoCloseable closeable) {
        try {
          closeable.close();
        } catch (Exception e) {
          throw new IllegalStateException("cannot close the state reader", e);
        }
      }
    }
  }

  private static List<Row> rowsOf(TableStore store, String path) {
    return scan(store, store.findTable(path).orElseThrow(() -> new AssertionFailedError("no table " + path)));
  }
}
