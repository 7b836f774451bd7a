package io.epochal.store.ytsaurus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.epochal.errors.LeaseLostException;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.Lease;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreCapabilities;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import io.epochal.testkit.store.TableStoreContract;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The {@link TableStoreContract} for {@link YtTableStore} in {@link YtMode#SINGLE_TABLE} fallback mode, against the
 * {@link YtProtocolDouble} reached only through its round-robin balancer (no pinning possible), plus the shape of
 * the mode: one {@code insert_rows} per commit, tombstones, no tablet transactions, best-effort fencing.
 */
class YtSingleTableStoreTest extends TableStoreContract {
  private static YtProtocolDouble yt;
  private final String root = YtDoubleFixture.freshRoot();

  @BeforeAll
  static void startDouble() {
    yt = YtProtocolDouble.start(3);
  }

  @AfterAll
  static void stopDouble() {
    yt.close();
  }

  /** Single-table mode keeps each row's values as checksummed bytes, which pass through the read hook. */
  @Override
  protected TableStore createStore(CommitHook commit, ReadHook read) {
    return YtDoubleFixture.builder(yt, root).mode(YtMode.SINGLE_TABLE).commitHook(commit).readHook(read).build();
  }

  @Override
  protected TableStore createStore(CommitHook hook) {
    return createStore(hook, ReadHook.NONE);
  }

  private YtTableStore store() {
    return YtDoubleFixture.builder(yt, root).mode(YtMode.SINGLE_TABLE).build();
  }

  @Test
  void shouldDeclareAtomicCommitButNoFencing() {
    try (YtTableStore store = store()) {
      assertEquals(new StoreCapabilities(true, false, true), store.capabilities());
    }
  }

  @Test
  void shouldCommitAnEpochOfSeveralTablesWithOneInsertRowsAndTombstones() {
    try (YtTableStore store = store()) {
      TableSchema a = TableSchema.builder("a").key("k", ColumnType.STRING).value("v", ColumnType.INT64).build();
      TableSchema b = TableSchema.builder("b").key("k", ColumnType.INT64).value("v", ColumnType.BYTES).build();
      Table ta = store.openTable(a);
      Table tb = store.openTable(b);
      try (StoreTransaction tx = store.begin()) {
        tx.upsert(ta, Row.of(a.key("gone"), 1L));
        tx.commit();
      }
      Lease lease = store.acquireLease("pipeline", "w");
      yt.clearRequests();
      try (StoreTransaction tx = store.begin(lease)) {
        tx.upsert(ta, Row.of(a.key("x"), 1L));
        tx.upsert(tb, Row.of(b.key(7L), new byte[] {1}));
        tx.delete(ta, a.key("gone"));
        tx.commit();
      }
      List<String> commands = yt.requests().stream().map(YtProtocolDouble.Recorded::command).toList();
      assertEquals(1, commands.stream().filter("insert_rows"::equals).count(), commands.toString());
      assertFalse(commands.contains("start_transaction"), "no tablet transaction in single-table mode: " + commands);
      assertFalse(commands.contains("delete_rows"), commands.toString());
      assertTrue(commands.contains("ping_transaction"), "the lease is pinged right before the write: " + commands);
      long tombstones = yt.rows(store.ytPath("a")).stream().filter(r -> r.path("deleted").asBoolean()).count();
      assertEquals(1, tombstones);
      try (StoreTransaction tx = store.begin()) {
        assertEquals(Optional.empty(), tx.lookup(ta, List.of(a.key("gone"))).get(0));
        assertEquals(1, tx.scan(ta).size());
      }
      for (JsonNode row : yt.rows(store.ytPath("a"))) {
        assertTrue(row.has("hash") && row.has("state_id") && row.has("key"), row.toString());
      }
    }
  }

  @Test
  void shouldSelfFenceWhenTheLeaseWasTakenOverBeforeTheWrite() {
    try (YtTableStore store = store(); YtTableStore other = store()) {
      TableSchema a = TableSchema.builder("a").key("k", ColumnType.STRING).value("v", ColumnType.INT64).build();
      Table ta = store.openTable(a);
      Lease old = store.acquireLease("p", "old");
      StoreTransaction stale = store.begin(old);
      stale.upsert(ta, Row.of(a.key("x"), 1L));
      other.acquireLease("p", "new"); // another process takes over: aborts the old master transaction
      assertThrows(LeaseLostException.class, stale::commit);
      try (StoreTransaction tx = store.begin()) {
        assertEquals(Optional.empty(), tx.lookup(ta, List.of(a.key("x"))).get(0));
      }
    }
  }
}
