package io.epochal.state.transactional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.errors.StateAheadException;
import io.epochal.errors.StateCorruptedException;
import io.epochal.state.MapState;
import io.epochal.state.StateKind;
import io.epochal.state.ValueUpdater;
import io.epochal.store.ManualEpochs;
import io.epochal.store.table.Column;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.EpochBuffer;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableBackedStateFactory;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TransactionalTableLayoutTest {
  private static final byte[] META = {0};

  private static ValueUpdater<Long> plus(long n) {
    return v -> v.orElse(0L) + n;
  }

  private static List<Row> scan(TableStore store) {
    try (StoreTransaction tx = store.begin()) {
      return tx.scan(store.findTable("p/counts").orElseThrow());
    }
  }

  private static void put(TableStore store, Row row) {
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(store.findTable(row.schema().path()).orElseThrow(), row);
      tx.commit();
    }
  }

  /** The state "counts" of pipeline "p" over the checkpoint store of {@code epochs}, partition 0 of 1. */
  private static MapState<String, Long> counts(ManualEpochs epochs) {
    return TransactionalTableLayout.factory(KeyCodec.strings(), Codecs.longs())
        .makeState(epochs.context("counts", 0, 1));
  }

  /** Every committed count of table "p/counts". */
  private static Map<String, Long> committed(TableStore store) {
    Map<String, Long> rows = new java.util.HashMap<>();
    for (Row row : scan(store)) {
      rows.put((String) row.key().get(0), Codecs.longs().decode(row.getBytes("value")));
    }
    return rows;
  }

  private static TableStore perKeyStore() {
    return TableStores.inMemoryBuilder().atomicMultiTableCommit(false).build();
  }

  @Test
  void shouldStoreRowsHashKeyValueTxid() {
    TableStore store = TableStores.inMemory();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    ManualEpochs epochs = new ManualEpochs(cps, "p");
    TableBackedStateFactory<MapState<String, Long>> f =
        TransactionalTableLayout.factory(KeyCodec.strings(), Codecs.longs());
    assertEquals(StateKind.TRANSACTIONAL, f.kind());
    assertEquals(Optional.of(EpochBuffer.class), f.staging());
    assertTrue(cps.staging("p", EpochBuffer.class).orElseThrow().atomic());
    MapState<String, Long> map = f.makeState(epochs.context("counts", 0, 1));
    cps.load("p");
    map.begin(epochs.open(1));
    map.multiUpdate(Map.of("a", plus(3)));
    map.end();
    epochs.commit(META);
    Row row = scan(store).get(0);
    assertEquals(List.of(Column.required("value", ColumnType.BYTES), Column.required("txid", ColumnType.INT64)),
        row.schema().valueColumns());
    assertEquals("transactional:v1", row.schema().attributes().get("epochal.layout"));
    assertEquals(3L, Codecs.longs().decode(row.getBytes("value")));
    assertEquals(1L, row.getLong("txid"));
  }

  /**
   * The table map reuses the table keys of its last lookup for the write that follows (matched by key identity, in
   * order): writes in another order, of keys not looked up, or of equal but not identical keys land on their rows.
   */
  @Test
  void shouldWriteEveryKeysRowWhateverTheOrderOfTheWritesAfterALookup() {
    TableStore store = TableStores.inMemory();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    ManualEpochs epochs = new ManualEpochs(cps, "p");
    MapState<String, Long> map = counts(epochs);
    cps.load("p");
    map.begin(epochs.open(1));
    Map<String, ValueUpdater<Long>> first = new java.util.LinkedHashMap<>();
    for (String k : List.of("a", "b", "c", "d")) {
      first.put(k, plus(1));
    }
    map.multiUpdate(first);
    Map<String, Long> reordered = new java.util.LinkedHashMap<>();
    reordered.put("d", 40L); // after the others in the lookup: the cursor passes them
    reordered.put("b", 20L); // before the cursor: mapped anew
    reordered.put("x", 90L); // never looked up
    reordered.put(new String("a"), 10L); // equal, not identical
    map.multiPut(reordered);
    map.end();
    epochs.commit(META);
    assertEquals(Map.of("a", 10L, "b", 20L, "c", 1L, "d", 40L, "x", 90L), committed(store));
  }

  /** A replay that skips keys writes a subsequence of the keys it looked up: each lands on its own row. */
  @Test
  void shouldWriteEveryKeysRowWhenAReplaySkipsSomeOfTheKeysItLookedUp() {
    TableStore store = perKeyStore();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    ManualEpochs epochs = new ManualEpochs(cps, "p");
    MapState<String, Long> first = counts(epochs);
    first.begin(epochs.open(1));
    first.multiUpdate(Map.of("a", plus(1), "c", plus(1)));
    first.abort();
    ManualEpochs replays = new ManualEpochs(TableCheckpointStore.on(store), "p");
    MapState<String, Long> replay = counts(replays);
    replay.begin(replays.open(1));
    Map<String, ValueUpdater<Long>> all = new java.util.LinkedHashMap<>();
    all.put("a", plus(1));
    all.put("b", plus(2));
    all.put("c", plus(1));
    all.put("d", plus(4));
    assertEquals(Map.of("a", 1L, "b", 2L, "c", 1L, "d", 4L), replay.multiUpdate(all), "a and c are skipped");
    replay.end();
    assertEquals(Map.of("a", 1L, "b", 2L, "c", 1L, "d", 4L), committed(store));
  }

  @Test
  void shouldSkipABatchTheTableAlreadyHoldsOnThePerKeyProtocol() {
    TableStore store = perKeyStore();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    ManualEpochs epochs = new ManualEpochs(cps, "p");
    MapState<String, Long> first = counts(epochs);
    first.begin(epochs.open(1));
    first.multiUpdate(Map.of("a", plus(1)));
    first.abort();
    ManualEpochs replays = new ManualEpochs(TableCheckpointStore.on(store), "p");
    MapState<String, Long> replay = counts(replays);
    replay.begin(replays.open(1));
    assertEquals(Map.of("a", 1L), replay.multiUpdate(Map.of("a", plus(1))), "txid 1 is already in the row");
    replays.abort();
    replay.begin(replays.open(2));
    assertEquals(Map.of("a", 2L), replay.multiUpdate(Map.of("a", plus(1))));
  }

  @Test
  void shouldForgetAFailedAttemptOnTheEpochProtocol() {
    TableStore store = TableStores.inMemory();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    ManualEpochs epochs = new ManualEpochs(cps, "p");
    MapState<String, Long> map = TransactionalTableLayout.factory(KeyCodec.strings(), Codecs.longs())
        .makeState(epochs.context("counts", 0, 1));
    map.begin(epochs.open(1));
    map.multiUpdate(Map.of("a", plus(1)));
    map.abort();
    epochs.abort();
    map.begin(epochs.open(1));
    assertEquals(Map.of("a", 5L), map.multiUpdate(Map.of("a", plus(5))), "a re-cut replay applies afresh");
    map.end();
    epochs.commit(META);
    assertEquals(5L, Codecs.longs().decode(scan(store).get(0).getBytes("value")));
  }

  @Test
  void shouldReportUndecodableBytesWithTheStoredTxidAndOverwriteNothing() {
    TableStore store = TableStores.inMemory();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    ManualEpochs epochs = new ManualEpochs(cps, "p");
    MapState<String, Long> map = TransactionalTableLayout.factory(KeyCodec.strings(), Codecs.longs())
        .makeState(epochs.context("counts", 0, 1));
    Table t = store.findTable("p/counts").orElseThrow();
    Row corrupt = Row.of(t.schema().key("bad"), new byte[] {1, 2, 3}, 7L);
    put(store, corrupt);
    map.begin(epochs.open(8));
    StateCorruptedException e = assertThrows(StateCorruptedException.class,
        () -> map.multiUpdate(Map.of("bad", plus(1))));
    assertEquals(java.util.Optional.of("p/counts"), e.context().table());
    assertEquals(java.util.Optional.of("bad"), e.context().key());
    assertEquals(java.util.OptionalLong.of(7), e.context().txid(), "the txid the damaged cell claims");
    assertFalse(e.retryable());
    assertEquals(List.of(corrupt), scan(store));
  }

  @Test
  void shouldStopWhenTheTableIsAheadOfTheBatch() {
    TableStore store = TableStores.inMemory();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    ManualEpochs epochs = new ManualEpochs(cps, "p");
    MapState<String, Long> map = TransactionalTableLayout.factory(KeyCodec.strings(), Codecs.longs())
        .makeState(epochs.context("counts", 0, 1));
    Table t = store.findTable("p/counts").orElseThrow();
    put(store, Row.of(t.schema().key("a"), Codecs.longs().encode(4L), 9L));
    map.begin(epochs.open(3));
    StateAheadException e = assertThrows(StateAheadException.class, () -> map.multiUpdate(Map.of("a", plus(1))));
    assertEquals(9, e.storedTxid());
    assertEquals("p/counts", e.table());
  }

  @Test
  void shouldDeleteEmptyRowsOnTheEpochProtocolButKeepTheirTxidOnThePerKeyProtocol() {
    for (TableStore store : List.of(TableStores.inMemory(), perKeyStore())) {
      TableCheckpointStore cps = TableCheckpointStore.on(store);
      ManualEpochs epochs = new ManualEpochs(cps, "p");
      MapState<String, Long> map = TransactionalTableLayout.factory(
          TableStates.builder(KeyCodec.strings(), Codecs.longs()).emptyValue(0L))
          .makeState(epochs.context("counts", 0, 1));
      map.begin(epochs.open(1));
      map.multiUpdate(Map.of("a", plus(1)));
      map.end();
      epochs.commit(META);
      map.begin(epochs.open(2));
      map.multiUpdate(Map.of("a", plus(-1)));
      map.end();
      epochs.commit(META);
      if (cps.protocol() == io.epochal.store.table.CommitProtocol.EPOCH) {
        assertEquals(List.of(), scan(store), "an empty state is an absent row");
      } else {
        assertEquals(2L, scan(store).get(0).getLong("txid"), "the per-key protocol needs the txid of an empty row");
        map.begin(epochs.open(2));
        assertEquals(Map.of("a", 0L), map.multiUpdate(Map.of("a", plus(-1))), "a replay must not apply twice");
      }
    }
  }
}
