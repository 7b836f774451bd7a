package io.epochal.store.table;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.errors.EpochalException;
import io.epochal.errors.LeaseLostException;
import io.epochal.errors.StateCorruptedException;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.NonTransactionalMap;
import io.epochal.state.Staging;
import io.epochal.store.Checkpoint;
import io.epochal.store.InMemoryCheckpointStore;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class TableCheckpointStoreTest {
  /** The staging of the epoch the engine would open for the first attempt of {@code txid}. */
  private static EpochBuffer epoch(TableCheckpointStore cps, String pipeline, long txid) {
    return cps.openEpoch(pipeline, new io.epochal.spout.BatchAttempt(txid, 1)).staging(EpochBuffer.class)
        .orElseThrow();
  }

  private static final byte[] META = {1, 2, 3};

  private static TableSchema states() {
    return TableSchema.builder("states").key("k", ColumnType.STRING).value("v", ColumnType.INT64).build();
  }

  private static List<Row> scan(TableStore store, Table t) {
    try (StoreTransaction tx = store.begin()) {
      return tx.scan(t);
    }
  }

  @Test
  void shouldLoadAnEmptyCheckpointForANewPipeline() {
    TableCheckpointStore cps = TableCheckpointStore.on(TableStores.inMemory());
    assertEquals(Checkpoint.EMPTY, cps.load("p"));
  }

  @Test
  void shouldRecordPendingAndCommitInTxidOrder() {
    TableCheckpointStore cps = TableCheckpointStore.on(TableStores.inMemory());
    cps.load("p");
    cps.recordPending("p", 1, new byte[] {10});
    cps.recordPending("p", 2, new byte[] {20});
    assertEquals(List.of(1L, 2L), List.copyOf(cps.load("p").pendingMetadata().keySet()));
    cps.commit("p", 1, META);
    Checkpoint cp = cps.load("p");
    assertEquals(1, cp.committedTxid());
    assertArrayEquals(META, cp.committedMetadata());
    assertEquals(List.of(2L), List.copyOf(cp.pendingMetadata().keySet()));
    assertArrayEquals(new byte[] {20}, cp.pendingMetadata().get(2L));
    // out of order / already committed: no retry can fix it (another writer, a reset checkpoint)
    EpochalException outOfOrder = assertThrows(EpochalException.class, () -> cps.commit("p", 3, META));
    assertFalse(EpochalException.isRetryable(outOfOrder), outOfOrder.getMessage());
    EpochalException committed = assertThrows(EpochalException.class, () -> cps.recordPending("p", 1, META));
    assertFalse(EpochalException.isRetryable(committed), committed.getMessage());
    assertEquals(1, cps.load("p").committedTxid());
    assertEquals(Checkpoint.EMPTY, cps.load("other"), "pipelines are independent");
  }

  @Test
  void shouldChooseTheProtocolFromTheStoreCapabilities() {
    assertEquals(CommitProtocol.EPOCH, TableCheckpointStore.on(TableStores.inMemory()).protocol());
    TableStore perTable = TableStores.inMemoryBuilder().atomicMultiTableCommit(false).build();
    assertEquals(CommitProtocol.PER_KEY, TableCheckpointStore.on(perTable).protocol());
    assertEquals(CommitProtocol.PER_KEY, TableCheckpointStore.builder(TableStores.inMemory())
        .protocol(CommitProtocol.PER_KEY).build().protocol());
    assertThrows(IllegalArgumentException.class,
        () -> TableCheckpointStore.builder(perTable).protocol(CommitProtocol.EPOCH).build());
    assertThrows(IllegalStateException.class,
        () -> TableCheckpointStore.builder(perTable).owner("a").owner("b"));
  }

  @Test
  void atomicityIsACapabilityTheStagingATableStateNeedsIsAtomicOnlyOnTheEpochProtocol() {
    TableStore store = TableStores.inMemory();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    TableBackedStateFactory<MapState<String, Long>> table =
        TableStates.nonTransactional(KeyCodec.strings(), Codecs.longs());
    assertEquals(Optional.of(EpochBuffer.class), table.staging(), "a table state stages in the epoch's buffer");
    assertEquals(Optional.empty(), NonTransactionalMap.factory(new InMemoryBackingMap<String, Long>()).staging());
    EpochBuffer buffer = cps.staging("p", EpochBuffer.class).orElseThrow();
    assertTrue(buffer.atomic());
    assertEquals("p", buffer.pipeline());
    assertTrue(buffer.store() == store);
    assertEquals("p", cps.staging("p", Staging.class).orElseThrow().pipeline(), "offered by its super-type too");
    assertEquals(Optional.empty(), cps.staging("p", String.class), "nothing of another type");
    TableCheckpointStore perKey = TableCheckpointStore.builder(store).protocol(CommitProtocol.PER_KEY).build();
    assertFalse(perKey.staging("p", EpochBuffer.class).orElseThrow().atomic(), "the per-key protocol writes through");
    assertEquals(Optional.empty(), new InMemoryCheckpointStore().staging("p", EpochBuffer.class));
  }

  @Test
  void shouldWriteTheEpochBufferWithTheCheckpointInOneTransaction() {
    TableStore store = TableStores.inMemory();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    Table t = store.openTable(states());
    cps.load("p");
    EpochBuffer epoch = epoch(cps, "p", 1);
    assertEquals(CommitProtocol.EPOCH, epoch.protocol());
    epoch.upsert(t, Row.of(states().key("a"), 1L));
    epoch.upsert(t, Row.of(states().key("b"), 2L));
    epoch.delete(t, states().key("b"));
    assertEquals(Optional.of(Row.of(states().key("a"), 1L)), epoch.lookup(t, List.of(states().key("a"))).get(0),
        "the epoch reads its own buffer");
    assertEquals(Optional.empty(), epoch.lookup(t, List.of(states().key("b"))).get(0));
    assertEquals(List.of(), scan(store, t), "buffered rows are invisible before the checkpoint commit");
    cps.commit("p", 1, META);
    assertEquals(List.of(Row.of(states().key("a"), 1L)), scan(store, t));
    assertEquals(1, cps.load("p").committedTxid());
  }

  @Test
  void shouldDropTheEpochBufferOnAbort() {
    TableStore store = TableStores.inMemory();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    Table t = store.openTable(states());
    epoch(cps, "p", 1).upsert(t, Row.of(states().key("a"), 1L));
    cps.abort("p", 1);
    epoch(cps, "p", 1).upsert(t, Row.of(states().key("b"), 2L));
    cps.commit("p", 1, META);
    assertEquals(List.of(Row.of(states().key("b"), 2L)), scan(store, t));
  }

  @Test
  void shouldRefuseToMixTheWritesOfTwoTxidsInOneEpoch() {
    TableStore store = TableStores.inMemory();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    Table t = store.openTable(states());
    epoch(cps, "p", 1).upsert(t, Row.of(states().key("a"), 1L));
    assertThrows(IllegalStateException.class, () -> epoch(cps, "p", 2));
    assertThrows(IllegalStateException.class, () -> cps.commit("p", 2, META));
    assertEquals(List.of(), scan(store, t));
  }

  @Test
  void shouldApplyNothingWhenTheEpochCommitFailsMidway() {
    AtomicBoolean fail = new AtomicBoolean();
    TableStore store = TableStores.inMemoryBuilder().commitHook(path -> {
      if (fail.get() && path.equals("__epochal_checkpoints")) {
        throw new IllegalStateException("injected");
      }
    }).build();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    Table t = store.openTable(states());
    epoch(cps, "p", 1).upsert(t, Row.of(states().key("a"), 1L));
    fail.set(true);
    assertThrows(IllegalStateException.class, () -> cps.commit("p", 1, META));
    assertEquals(List.of(), scan(store, t));
    assertEquals(0, cps.load("p").committedTxid());
  }

  @Test
  void shouldWriteThroughEachCallOnThePerKeyProtocol() {
    TableStore store = TableStores.inMemoryBuilder().atomicMultiTableCommit(false).build();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    Table t = store.openTable(states());
    epoch(cps, "p", 1).upsert(t, Row.of(states().key("a"), 1L));
    assertEquals(1, scan(store, t).size(), "per-key writes are visible at once");
    cps.abort("p", 1);
    assertEquals(1, scan(store, t).size());
    cps.commit("p", 1, META);
    assertEquals(1, cps.load("p").committedTxid());
  }

  @Test
  void shouldFenceAPipelineWhoseLeaseWasTakenOver() {
    TableStore store = TableStores.inMemory();
    TableCheckpointStore old = TableCheckpointStore.builder(store).owner("old").build();
    Table t = store.openTable(states());
    old.load("p");
    epoch(old, "p", 1).upsert(t, Row.of(states().key("stale"), 1L));
    TableCheckpointStore fresh = TableCheckpointStore.builder(store).owner("new").build();
    fresh.load("p");
    assertTrue(fresh.lease("p").generation() > old.lease("p").generation());
    LeaseLostException e = assertThrows(LeaseLostException.class, () -> old.commit("p", 1, META));
    assertTrue(e.getMessage().contains("new"), e.getMessage());
    assertEquals(List.of(), scan(store, t), "a fenced epoch must write nothing");
    assertEquals(0, fresh.load("p").committedTxid());
    assertThrows(LeaseLostException.class, () -> old.recordPending("p", 1, META));
    epoch(fresh, "p", 1).upsert(t, Row.of(states().key("fresh"), 1L));
    fresh.commit("p", 1, META);
    assertEquals(List.of(Row.of(states().key("fresh"), 1L)), scan(store, t));
  }

  @Test
  void shouldReportACorruptCheckpointRow() {
    TableStore store = TableStores.inMemory();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(cps.checkpointTable(), Row.of(cps.checkpointTable().schema().key("p"), 4L, META,
          new byte[] {9, 9}));
      tx.commit();
    }
    StateCorruptedException e = assertThrows(StateCorruptedException.class, () -> cps.load("p"));
    assertTrue(e.context().table().orElseThrow().contains("__epochal_checkpoints"), e::toString);
    // finding 12: the committed txid is known and in the context, not "unknown"
    assertEquals(java.util.OptionalLong.of(4), e.context().txid());
    assertEquals(Optional.of("p"), e.context().key());
    assertFalse(EpochalException.isRetryable(e));
  }

  /** Finding 10: the attempt reservation survives commits and pending records, and a new store on the same table. */
  @Test
  void shouldKeepTheAttemptReservationInTheCheckpointRow() {
    TableStore store = TableStores.inMemory();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    cps.load("p");
    cps.reserveAttempts("p", 20, 256);
    cps.recordPending("p", 1, new byte[] {1});
    cps.commit("p", 1, META);
    cps.reserveAttempts("p", 10, 100); // never lowered
    TableCheckpointStore restarted = TableCheckpointStore.on(store);
    Checkpoint cp = restarted.load("p");
    assertEquals(20, cp.attemptCeiling());
    assertEquals(256, cp.txidWindow());
    assertEquals(1, cp.committedTxid());
    assertThrows(LeaseLostException.class, () -> cps.reserveAttempts("p", 40, 512), "fenced like every write");
    restarted.reserveAttempts("p", 30, 512);
    assertEquals(new Checkpoint(1, META, new java.util.TreeMap<>(), 30, 512), restarted.load("p"));
  }

  /** The outbox: the sink outputs of the committed batch, kept in the checkpoint row until the next commit. */
  @Test
  void shouldKeepTheOutboxOfTheCommittedBatchInTheCheckpointRowUntilTheNextCommit() {
    for (CommitProtocol protocol : CommitProtocol.values()) {
      TableStore store = TableStores.inMemory();
      TableCheckpointStore cps = TableCheckpointStore.builder(store).protocol(protocol).build();
      assertTrue(cps.keepsOutbox());
      cps.load("p");
      List<io.epochal.store.OutboxEntry> first = List.of(new io.epochal.store.OutboxEntry("out", 1, 0, new byte[] {7}),
          new io.epochal.store.OutboxEntry("out", 1, 3, new byte[] {8, 9}));
      cps.openEpoch("p", new io.epochal.spout.BatchAttempt(1, 1)).commit(META, first);
      cps.recordPending("p", 2, new byte[] {20});
      cps.reserveAttempts("p", 40, 64);
      Checkpoint reloaded = TableCheckpointStore.builder(store).protocol(protocol).build().load("p");
      assertEquals(first, reloaded.outbox(), protocol + ": kept across pending records, reservations and a restart");
      assertEquals(List.of(2L), List.copyOf(reloaded.pendingMetadata().keySet()));
      TableCheckpointStore next = TableCheckpointStore.builder(store).protocol(protocol).build();
      next.load("p");
      next.commit("p", 2, META);
      assertEquals(List.of(), next.load("p").outbox(), protocol + ": the next commit replaces it");
      assertThrows(IllegalArgumentException.class, () -> next.commit("p", 3, META,
          List.of(new io.epochal.store.OutboxEntry("out", 2, 0, new byte[0]))), "entries of another txid");
    }
  }

  /** Rows written before the outbox existed (pending format 2) read as an empty outbox; a torn outbox is corrupt. */
  @Test
  void shouldReadAFormat2RowAsNoOutboxAndRefuseATornOutbox() {
    TableStore store = TableStores.inMemory();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    byte[] format2 = {2, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0}; // ceiling 5, window 9
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(cps.checkpointTable(), Row.of(cps.checkpointTable().schema().key("p"), 4L, META, format2));
      tx.commit();
    }
    Checkpoint cp = cps.load("p");
    assertEquals(new Checkpoint(4, META, new java.util.TreeMap<>(), 5, 9), cp);
    assertEquals(List.of(), cp.outbox());
    cps.commit("p", 5, META, List.of(new io.epochal.store.OutboxEntry("out", 5, 1, new byte[] {1, 2, 3})));
    byte[] written;
    try (StoreTransaction tx = store.begin()) {
      written = tx.lookup(cps.checkpointTable(), List.of(cps.checkpointTable().schema().key("p"))).get(0)
          .orElseThrow().getBytes("pending");
    }
    assertEquals(3, written[0], "written in format 3");
    byte[] torn = java.util.Arrays.copyOf(written, written.length - 2);
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(cps.checkpointTable(), Row.of(cps.checkpointTable().schema().key("p"), 5L, META, torn));
      tx.commit();
    }
    StateCorruptedException e = assertThrows(StateCorruptedException.class, () -> cps.load("p"));
    assertEquals(Optional.of(cps.checkpointTable().path()), e.context().table());
  }

  /** Rows written before the reservation existed (pending format 1) read as no reservation. */
  @Test
  void shouldReadACheckpointRowOfTheFormerFormat() {
    TableStore store = TableStores.inMemory();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    byte[] formerPending = {1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 1, 42}; // {8: [42]}
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(cps.checkpointTable(), Row.of(cps.checkpointTable().schema().key("p"), 7L, META, formerPending));
      tx.commit();
    }
    Checkpoint cp = cps.load("p");
    assertEquals(7, cp.committedTxid());
    assertEquals(List.of(8L), List.copyOf(cp.pendingMetadata().keySet()));
    assertArrayEquals(new byte[] {42}, cp.pendingMetadata().get(8L));
    assertEquals(0, cp.attemptCeiling());
    assertEquals(0, cp.txidWindow());
    cps.reserveAttempts("p", 10, 300);
    assertEquals(new Checkpoint(7, META, cp.pendingMetadata(), 10, 300), cps.load("p"));
  }

  @Test
  void shouldRefuseASecondWriterOfOneTable() {
    TableCheckpointStore cps = TableCheckpointStore.on(TableStores.inMemory());
    cps.claim("t", "state 'a'");
    cps.claim("t", "state 'a'");
    io.epochal.errors.TableClaimedTwiceException e = assertThrows(io.epochal.errors.TableClaimedTwiceException.class,
        () -> cps.claim("t", "state 'b'"));
    assertEquals("State table t is claimed for writing by both state 'a' and state 'b'", e.getMessage());
  }

  @Test
  void shouldPrefixItsTables() {
    TableStore store = TableStores.inMemory();
    TableCheckpointStore cps = TableCheckpointStore.builder(store).tablePrefix("//home/app/").build();
    assertEquals("//home/app/__epochal_checkpoints", cps.checkpointTable().path());
    assertTrue(store.findTable("//home/app/__epochal_checkpoints").isPresent());
  }
}
