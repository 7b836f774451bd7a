package io.epochal.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.CommitConflictException;
import io.epochal.errors.SchemaMismatchException;
import io.epochal.errors.StoreException;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import io.epochal.testkit.store.TableStoreContract;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The whole {@link TableStoreContract} through {@link EpochalMetrics#metered} over the in-memory store, plus the
 * meters: request counts and latencies per operation and table (the inner store's hooks advance a mock clock, so the
 * recorded times are exact), rows per table, and failures counted by error type with the exception passed through.
 */
class MeteredTableStoreTest extends TableStoreContract {
  private final MockClock clock = new MockClock();
  private final MeterRegistry registry = new SimpleMeterRegistry(SimpleConfig.DEFAULT, clock);

  @Override
  protected TableStore createStore(CommitHook commit, ReadHook read) {
    return EpochalMetrics.metered(TableStores.inMemoryBuilder().commitHook(commit).readHook(read).build(), registry,
        "contract");
  }

  @Override
  protected TableStore createStore(CommitHook hook) {
    return createStore(hook, ReadHook.NONE);
  }

  /** The in-memory store keeps rows as objects: it has no stored bytes to pass through the read hook. */
  @Override
  protected boolean storesBytes() {
    return false;
  }

  @Override
  protected boolean supportsReopen() {
    return false;
  }

  // ------------------------------------------------------------------ the meters

  private static final TableSchema WORDS = TableSchema.builder("m/words").key("word", ColumnType.STRING)
      .value("count", ColumnType.INT64).build();
  private static final TableSchema NAMES = TableSchema.builder("m/names").key("id", ColumnType.INT64)
      .value("name", ColumnType.STRING).build();

  /** A metered in-memory store whose reads take 7 ms and whose commits take 3 ms per table (on the mock clock). */
  private TableStore timedStore(AtomicReference<RuntimeException> commitFault,
      AtomicReference<RuntimeException> readFault) {
    TableStore inner = TableStores.inMemoryBuilder()
        .commitHook(path -> {
          clock.add(Duration.ofMillis(3));
          if (commitFault.get() != null) {
            throw commitFault.get();
          }
        })
        .readHook(new ReadHook() {
          @Override
          public void beforeRead(String tablePath) {
            clock.add(Duration.ofMillis(7));
            if (readFault.get() != null) {
              throw readFault.get();
            }
          }
        })
        .build();
    return EpochalMetrics.metered(inner, registry, "timed");
  }

  private Timer timer(String op, String table, String outcome) {
    return registry.get(EpochalMetrics.STORE_REQUESTS)
        .tags("store", "timed", "op", op, "table", table, "outcome", outcome).timer();
  }

  private double rows(String op, String table) {
    return registry.get(EpochalMetrics.STORE_ROWS).tags("store", "timed", "op", op, "table", table).counter().count();
  }

  private double failures(String op, String table, String error) {
    return registry.get(EpochalMetrics.STORE_FAILURES)
        .tags("store", "timed", "op", op, "table", table, "error", error).counter().count();
  }

  @Test
  void requestsAreCountedAndTimedPerOperationAndTableAndRowsPerTable() {
    AtomicReference<RuntimeException> none = new AtomicReference<>();
    try (TableStore store = timedStore(none, none)) {
      assertEquals(0, timer("begin", "none", "ok").count(), "table-less request timers exist from the start");
      Table words = store.openTable(WORDS);
      Table names = store.openTable(NAMES);
      try (StoreTransaction tx = store.begin()) {
        tx.upsert(words, List.of(Row.of(WORDS.key("a"), 1L), Row.of(WORDS.key("b"), 2L),
            Row.of(WORDS.key("c"), 3L)));
        tx.upsert(names, Row.of(NAMES.key(1L), "one"));
        tx.delete(words, WORDS.key("zz"));
        tx.commit();
      }
      try (StoreTransaction tx = store.begin()) {
        List<Optional<Row>> found = tx.lookup(words, List.of(WORDS.key("a"), WORDS.key("missing")));
        assertEquals(Optional.of(1L), found.get(0).map(r -> r.get("count")));
        assertEquals(Optional.empty(), found.get(1));
        assertEquals(1, tx.scan(names).size());
        tx.abort();
      }
      assertEquals(1, store.lookup(words, List.of(WORDS.key("b"))).stream().filter(Optional::isPresent).count());
      assertTrue(store.findTable("m/words").isPresent());
    }

    assertEquals(1, timer("open_table", "m/words", "ok").count());
    assertEquals(1, timer("open_table", "m/names", "ok").count());
    assertEquals(1, timer("find_table", "m/words", "ok").count());
    assertEquals(2, timer("begin", "none", "ok").count(),
        "the explicit ones: the store-level lookup's own is the inner store's");
    assertEquals(1, timer("commit", "none", "ok").count());
    assertEquals(6, timer("commit", "none", "ok").totalTime(TimeUnit.MILLISECONDS), "3 ms for each of 2 tables");
    assertEquals(1, timer("abort", "none", "ok").count());
    Timer lookups = timer("lookup", "m/words", "ok");
    assertEquals(2, lookups.count(), "one in a transaction, one store-level");
    assertEquals(14, lookups.totalTime(TimeUnit.MILLISECONDS), "7 ms each");
    assertEquals(1, timer("scan", "m/names", "ok").count());
    assertEquals(7, timer("scan", "m/names", "ok").totalTime(TimeUnit.MILLISECONDS));
    assertNull(registry.find(EpochalMetrics.STORE_REQUESTS).tags("op", "scan", "table", "m/words").timer());

    assertEquals(3, rows("upsert", "m/words"));
    assertEquals(1, rows("upsert", "m/names"));
    assertEquals(1, rows("delete", "m/words"));
    assertEquals(3, rows("read", "m/words"), "2 keys looked up in the transaction, 1 outside");
    assertEquals(1, rows("read", "m/names"), "the row the scan returned");
    assertNull(registry.find(EpochalMetrics.STORE_FAILURES).counter(), "nothing failed");
  }

  @Test
  void failuresAreCountedByErrorTypeAndRethrownUnchanged() {
    AtomicReference<RuntimeException> commitFault = new AtomicReference<>();
    AtomicReference<RuntimeException> readFault = new AtomicReference<>();
    try (TableStore store = timedStore(commitFault, readFault)) {
      Table words = store.openTable(WORDS);
      assertThrows(SchemaMismatchException.class, () -> store.openTable(TableSchema.builder("m/words")
          .key("word", ColumnType.INT64).value("count", ColumnType.INT64).build()));

      StoreException down = new StoreException("unreadable");
      readFault.set(down);
      try (StoreTransaction tx = store.begin()) {
        RuntimeException thrown = assertThrows(RuntimeException.class, () -> tx.lookup(words,
            List.of(WORDS.key("a"))));
        assertTrue(thrown == down || thrown.getCause() == down, "the inner store's failure: " + thrown);
      }
      readFault.set(null);

      StoreTransaction first = store.begin();
      StoreTransaction second = store.begin();
      first.upsert(words, Row.of(WORDS.key("x"), 1L));
      second.upsert(words, Row.of(WORDS.key("x"), 2L));
      first.commit();
      assertThrows(CommitConflictException.class, second::commit);
      assertThrows(IllegalStateException.class, first::commit, "a transaction that is over");

      IllegalArgumentException injected = new IllegalArgumentException("disk on fire");
      commitFault.set(injected);
      try (StoreTransaction tx = store.begin()) {
        tx.upsert(words, Row.of(WORDS.key("y"), 1L));
        RuntimeException thrown = assertThrows(RuntimeException.class, tx::commit);
        assertTrue(thrown == injected || thrown.getCause() == injected, "the hook's failure: " + thrown);
      }
    }

    assertEquals(1, failures("open_table", "m/words", "SchemaMismatchException"));
    assertEquals(1, timer("open_table", "m/words", "error").count());
    assertEquals(1, timer("open_table", "m/words", "ok").count());
    assertEquals(1, registry.get(EpochalMetrics.STORE_FAILURES).tags("op", "lookup", "table", "m/words").counter()
        .count());
    assertEquals(7, timer("lookup", "m/words", "error").totalTime(TimeUnit.MILLISECONDS));
    assertEquals(1, failures("commit", "none", "CommitConflictException"));
    assertEquals(1, failures("commit", "none", "IllegalStateException"));
    assertEquals(1, timer("commit", "none", "ok").count());
    assertEquals(3, timer("commit", "none", "error").count(), "conflict, over, injected");
    double injectedFailures = registry.get(EpochalMetrics.STORE_FAILURES).tags("op", "commit").counters().stream()
        .filter(c -> !List.of("CommitConflictException", "IllegalStateException").contains(c.getId().getTag("error")))
        .mapToDouble(c -> c.count()).sum();
    assertEquals(1, injectedFailures, "the injected commit failure, as the inner store reported it");
    assertEquals(0, registry.find(EpochalMetrics.STORE_ROWS).tags("op", "read").counters().stream()
        .mapToDouble(c -> c.count()).sum(), "a failed lookup reads no rows");
  }

  @Test
  void tablesAndCapabilitiesAreTheInnerStoresOwn() {
    TableStore inner = TableStores.inMemory();
    TableStore metered = EpochalMetrics.metered(inner, registry, "plain");
    Table table = metered.openTable(WORDS);
    assertSame(inner.findTable("m/words").orElseThrow().getClass(), table.getClass());
    assertEquals(inner.capabilities(), metered.capabilities());
    assertTrue(metered.describe().startsWith(inner.describe()));
    try (StoreTransaction tx = inner.begin()) {
      tx.upsert(table, Row.of(WORDS.key("a"), 5L));
      tx.commit(); // a table opened through the metered store works on the inner store
    }
    assertEquals(Optional.of(5L), metered.lookup(table, List.of(WORDS.key("a"))).get(0).map(r -> r.get("count")));
    metered.close();
    assertThrows(IllegalStateException.class, () -> inner.openTable(NAMES), "closing the metered store closes it");
  }
}
