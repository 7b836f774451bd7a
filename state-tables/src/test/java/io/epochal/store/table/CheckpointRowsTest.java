package io.epochal.store.table;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.StateCorruptedException;
import io.epochal.store.Checkpoint;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link CheckpointRows}: the checkpoint rows a {@link TableCheckpointStore} writes, read back without one. */
class CheckpointRowsTest {

  @Test
  void shouldDecodeTheRowsATableCheckpointStoreWrites() {
    TableStore store = TableStores.inMemory();
    TableCheckpointStore cps = TableCheckpointStore.builder(store).tablePrefix("app/").build();
    cps.reserveAttempts("p", 7, 3);
    cps.recordPending("p", 1, new byte[] {10});
    cps.commit("p", 1, new byte[] {1, 2});
    cps.recordPending("p", 2, new byte[] {20});
    assertEquals("app/__epochal_checkpoints", CheckpointRows.tablePath("app/"));
    Table table = store.findTable(CheckpointRows.tablePath("app/")).orElseThrow();
    assertEquals(CheckpointRows.schema(table.path()), table.schema());
    List<Row> rows;
    try (StoreTransaction tx = store.begin()) {
      rows = tx.scan(table);
    }
    assertEquals(1, rows.size());
    assertEquals("p", CheckpointRows.pipeline(rows.get(0)));
    Checkpoint read = CheckpointRows.decode(rows.get(0));
    Checkpoint loaded = cps.load("p");
    assertEquals(loaded.committedTxid(), read.committedTxid());
    assertEquals(1, read.committedTxid());
    assertArrayEquals(new byte[] {1, 2}, read.committedMetadata());
    assertEquals(List.of(2L), List.copyOf(read.pendingMetadata().keySet()));
    assertEquals(loaded.attemptCeiling(), read.attemptCeiling());
  }

  @Test
  void shouldNameTableAndPipelineOfARowThatDoesNotDecodeAndRefuseOtherTables() {
    TableSchema schema = CheckpointRows.schema(CheckpointRows.tablePath(""));
    Row bad = Row.builder(schema.key("p")).set("committed_txid", 1L).set("metadata", new byte[0])
        .set("pending", new byte[] {99}).build();
    StateCorruptedException e = assertThrows(StateCorruptedException.class, () -> CheckpointRows.decode(bad));
    assertTrue(e.getMessage().contains("__epochal_checkpoints") && e.getMessage().contains("p"), e.getMessage());
    TableSchema other = TableSchema.builder("t").key("k", ColumnType.STRING).value("v", ColumnType.BYTES).build();
    assertThrows(IllegalArgumentException.class, () -> CheckpointRows.decode(Row.of(other.key("a"), (Object) null)));
  }
}
