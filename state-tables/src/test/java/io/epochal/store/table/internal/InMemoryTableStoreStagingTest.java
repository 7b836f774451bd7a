package io.epochal.store.table.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.epochal.store.table.ColumnType;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The in-memory store's commit applies a transaction's staged list in order (no map per row): a key staged several
 * times, whether or not it had a row before the commit, ends with its last write, in one table or across tables.
 */
class InMemoryTableStoreStagingTest {
  private static final TableSchema COUNTS = TableSchema.builder("counts").key("word", ColumnType.STRING)
      .value("count", ColumnType.INT64).build();
  private static final TableSchema OTHER = TableSchema.builder("other").key("word", ColumnType.STRING)
      .value("count", ColumnType.INT64).build();

  private static Row row(TableSchema s, String word, long n) {
    return Row.of(s.key(word), n);
  }

  private static List<Optional<Row>> get(TableStore store, Table t, String... words) {
    return store.lookup(t, java.util.Arrays.stream(words).map(w -> t.schema().key(w)).toList());
  }

  @Test
  void shouldApplyTheLastWriteOfKeysThatHadNoRowBeforeTheCommit() {
    TableStore store = TableStores.inMemory();
    Table t = store.openTable(COUNTS);
    Table o = store.openTable(OTHER);
    TableKey old = COUNTS.key("old");
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(t, row(COUNTS, "old", 1));
      tx.commit();
    }
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(t, row(COUNTS, "twice", 1));
      tx.upsert(o, row(OTHER, "twice", 7));
      tx.upsert(t, row(COUNTS, "twice", 2));   // new key staged twice, the lists interleaved across tables
      tx.upsert(t, row(COUNTS, "gone", 1));
      tx.delete(t, COUNTS.key("gone"));         // new key upserted then deleted
      tx.delete(t, COUNTS.key("back"));
      tx.upsert(t, row(COUNTS, "back", 5));     // absent key deleted then upserted
      tx.upsert(t, row(COUNTS, "old", 2));
      tx.delete(t, old);
      tx.upsert(t, row(COUNTS, "old", 3));      // existing key: the last of three writes
      tx.upsert(o, row(OTHER, "twice", 8));
      tx.commit();
    }
    assertEquals(List.of(Optional.of(row(COUNTS, "twice", 2)), Optional.empty(), Optional.of(row(COUNTS, "back", 5)),
        Optional.of(row(COUNTS, "old", 3))), get(store, t, "twice", "gone", "back", "old"));
    assertEquals(List.of(Optional.of(row(OTHER, "twice", 8))), get(store, o, "twice"));
    try (StoreTransaction tx = store.begin()) {
      assertEquals(Set.of(row(COUNTS, "back", 5), row(COUNTS, "old", 3), row(COUNTS, "twice", 2)),
          new HashSet<>(tx.scan(t)), "a scan sees exactly the three rows");
      assertEquals(3, tx.scan(t).size());
    }
  }
}
