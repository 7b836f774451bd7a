package io.epochal.testkit.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.epochal.store.table.ColumnType;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@link TableStoreContract} over an in-memory store with per-table atomicity only, plus what such a store does
 * differently: a failure mid-commit keeps the tables written before it.
 */
class PerTableInMemoryTableStoreTest extends TableStoreContract {

  @Override
  protected TableStore createStore(CommitHook commit, ReadHook read) {
    return TableStores.inMemoryBuilder().atomicMultiTableCommit(false).commitHook(commit).readHook(read).build();
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

  @Test
  void shouldKeepTheTablesWrittenBeforeAFailureMidCommit() {
    TableSchema first = TableSchema.builder("first").key("k", ColumnType.STRING).value("v", ColumnType.INT64).build();
    TableSchema second = TableSchema.builder("second").key("k", ColumnType.STRING).value("v", ColumnType.INT64)
        .build();
    TableStore store = createStore(path -> {
      if (path.equals("second")) {
        throw new IllegalStateException("injected");
      }
    });
    Table t1 = store.openTable(first);
    Table t2 = store.openTable(second);
    StoreTransaction tx = store.begin();
    tx.upsert(t1, Row.of(first.key("a"), 1L));
    tx.upsert(t2, Row.of(second.key("a"), 1L));
    assertThrows(IllegalStateException.class, tx::commit);
    try (StoreTransaction read = store.begin()) {
      assertEquals(1, read.scan(t1).size());
      assertEquals(List.of(), read.scan(t2));
    }
  }
}
