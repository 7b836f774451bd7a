package io.epochal.testkit.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The contract's cases of reads and writes: lookups (missing keys, order, every column type), when upserts and
 * deletes become visible, aborts and the end of a transaction, scan order, and concurrent writes to one transaction.
 * Not thread-safe: one per contract instance, that is per test.
 */
final class ReadWriteCases extends ContractCases {
  ReadWriteCases(ContractFixture fixture) {
    super(fixture);
  }

  // ------------------------------------------------------------------ lookups

  void shouldReportMissingKeysInPlace() {
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

  void shouldReturnLookupResultsInTheOrderOfTheKeysAsked() {
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

  void shouldRoundTripEveryColumnTypeIncludingNulls() {
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

  void shouldMakeUpsertsVisibleOnlyAfterCommit() {
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

  void shouldMakeDeletesVisibleOnlyAfterCommit() {
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

  void shouldDropEverythingOnAbort() {
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

  void shouldLetTheLastWriteOfAKeyWinWithinATransaction() {
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

  void shouldEndTheTransactionWithItsCommit() {
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

  void shouldScanInYtKeyOrder() {
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

  void shouldAcceptConcurrentWritesToOneTransaction() throws Exception {
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
}
