package io.epochal.trident;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.EpochalException;
import io.epochal.errors.LeaseLostException;
import io.epochal.errors.StateAheadException;
import io.epochal.errors.StateCorruptedException;
import io.epochal.errors.StoreException;
import io.epochal.store.table.Lease;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import io.epochal.testkit.store.ForwardingStoreTransaction;
import io.epochal.testkit.store.ForwardingTableStore;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.storm.trident.operation.builtin.Count;
import org.apache.storm.trident.state.CombinerValueUpdater;
import org.apache.storm.trident.state.StateFactory;
import org.apache.storm.trident.state.ValueUpdater;
import org.apache.storm.trident.state.map.MapState;
import org.junit.jupiter.api.Test;

/** The per-partition epoch protocol of {@code stormState} partitions, driven as Storm drives them. */
class PartitionEpochTest {
  private static final AtomicInteger NAMES = new AtomicInteger();
  private static final Map<String, TableStore> STORES = new ConcurrentHashMap<>();

  /** A fresh store under a fresh name (stormState keeps one store per name and worker). */
  private static String register(TableStore store) {
    String name = "pe-" + NAMES.incrementAndGet();
    STORES.put(name, store);
    return name;
  }

  private static StormStateBuilder state(String name) {
    return EpochalTrident.stormState(name, () -> STORES.get(name), "counts");
  }

  @SuppressWarnings("unchecked")
  private static MapState<Object> partition(StateFactory factory, int index, int count) {
    return (MapState<Object>) factory.makeState(Map.of(), null, index, count);
  }

  @SuppressWarnings("rawtypes")
  private static List<ValueUpdater> plus(long n) {
    return List.of(new CombinerValueUpdater(new Count(), n));
  }

  private static Object add(MapState<Object> map, String key, long n) {
    return map.multiUpdate(List.of(List.of(key)), plus(n)).get(0);
  }

  private static void batch(MapState<Object> map, long txid, Runnable writes) {
    map.beginCommit(txid);
    writes.run();
    map.commit(txid);
  }

  private static Object read(MapState<Object> map, String key) {
    return map.multiGet(List.of(List.of(key))).get(0);
  }

  @Test
  void shouldUndoACommittedBatchWhoseReplayNoLongerWritesAKey() {
    for (StateFactory factory : List.of(state(register(TableStores.inMemory())).opaque(),
        state(register(TableStores.inMemory())).transactional(),
        state(register(TableStores.inMemory())).localCacheSize(8).opaque())) {
      MapState<Object> map = partition(factory, 0, 1);
      batch(map, 1, () -> {
        add(map, "a", 1);
        add(map, "x", 1);
      });
      batch(map, 1, () -> assertEquals(1L, add(map, "a", 1), "the replay reads a from before batch 1"));
      assertNull(read(map, "x"), "x, which the re-cut replay no longer holds, is undone: " + factory);
      batch(map, 2, () -> assertEquals(1L, add(map, "x", 1)));
      assertEquals(1L, read(map, "a"));
      assertEquals(1L, read(map, "x"));
    }
  }

  @Test
  void shouldApplyEveryBatchOnceWhenAReplayRepeatsIt() {
    MapState<Object> map = partition(state(register(TableStores.inMemory())).opaque(), 0, 1);
    batch(map, 1, () -> add(map, "a", 2));
    batch(map, 2, () -> add(map, "a", 3));
    batch(map, 2, () -> assertEquals(5L, add(map, "a", 3)));
    batch(map, 2, () -> assertEquals(6L, add(map, "a", 4)));
    assertEquals(6L, read(map, "a"));
    assertTrue(assertThrows(StateAheadException.class, () -> map.beginCommit(1L)).getMessage()
        .contains("__epochal_partitions"));
  }

  @Test
  void shouldFenceAFrozenTaskWhosePartitionWasTakenOver() {
    String name = register(TableStores.inMemory());
    StateFactory factory = state(name).opaque();
    MapState<Object> frozen = partition(factory, 0, 1);
    batch(frozen, 1, () -> add(frozen, "a", 1));
    frozen.beginCommit(2L);
    add(frozen, "a", 10);
    MapState<Object> successor = partition(factory, 0, 1); // Storm moved the task: the new one takes the lease
    batch(successor, 2, () -> assertEquals(2L, add(successor, "a", 1)));
    assertThrows(LeaseLostException.class, () -> frozen.commit(2L));
    assertEquals(2L, read(successor, "a"), "the zombie's commit changed nothing");
    batch(successor, 3, () -> assertEquals(3L, add(successor, "a", 1)));
  }

  @Test
  void shouldRefuseAWorkerLocalStoreInAMultiWorkerTopologyUnlessOptedIn() {
    Map<String, Object> twoWorkers = Map.of("topology.workers", 2);
    EpochalException e = assertThrows(EpochalException.class,
        () -> state(register(TableStores.inMemory())).opaque().makeState(twoWorkers, null, 0, 1));
    assertTrue(e.getMessage().contains("2 workers") && e.getMessage().contains("allowWorkerLocalStore"),
        e.getMessage());
    assertEquals(Optional.of("counts"), e.context().table());
    assertTrue(state(register(TableStores.inMemory())).allowWorkerLocalStore().opaque()
        .makeState(twoWorkers, null, 0, 1) instanceof MapState<?>);
    assertTrue(state(register(new Shared(TableStores.inMemory()))).opaque()
        .makeState(twoWorkers, null, 0, 1) instanceof MapState<?>, "a shared store is accepted");
    assertThrows(IllegalStateException.class,
        () -> state("x").allowWorkerLocalStore().allowWorkerLocalStore());
  }

  /** An in-memory store standing in for a shared one. */
  private static final class Shared extends ForwardingTableStore {
    Shared(TableStore delegate) {
      super(delegate);
    }

    @Override
    public io.epochal.store.table.StoreCapabilities capabilities() {
      return io.epochal.store.table.StoreCapabilities.shared();
    }
  }

  @Test
  void shouldRefuseToReplayABatchWithAnotherParallelismThanTheOneThatPartlyCommittedIt() {
    String name = register(TableStores.inMemory());
    StateFactory factory = state(name).opaque();
    MapState<Object> p0 = partition(factory, 0, 2);
    MapState<Object> p1 = partition(factory, 1, 2);
    batch(p0, 1, () -> add(p0, "a", 1));
    batch(p1, 1, () -> add(p1, "b", 1));
    batch(p0, 2, () -> add(p0, "a", 1)); // partition 1 has not committed batch 2 when the topology is redeployed
    MapState<Object> alone = partition(factory, 0, 1);
    EpochalException e = assertThrows(EpochalException.class, () -> alone.beginCommit(2L));
    assertTrue(e.getMessage().contains("parallelism 2"), e.getMessage());
    batch(p1, 2, () -> add(p1, "b", 1));
    MapState<Object> after = partition(factory, 0, 1); // every old partition committed 2: batch 3 may rescale
    batch(after, 3, () -> {
      add(after, "a", 1);
      add(after, "b", 1);
    });
    assertEquals(3L, read(after, "a"));
    assertEquals(3L, read(after, "b"));
  }

  @Test
  void shouldStopNamingTheMarkerTableWhenTheUndoRecordIsDamaged() {
    TableStore store = TableStores.inMemory();
    String name = register(store);
    MapState<Object> map = partition(state(name).opaque(), 0, 1);
    batch(map, 1, () -> add(map, "a", 1));
    Table markers = store.openTable(PartitionEpoch.markerSchema("counts"));
    TableKey zero = TableKey.of(markers.schema(), 0L);
    Row marker = store.lookup(markers, List.of(zero)).get(0).orElseThrow();
    byte[] undo = marker.getBytes("undo");
    undo[undo.length / 2] ^= 0x10;
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(markers, Row.builder(zero).set("txid", 1L).set("partitions", 1L).set("undo", undo).build());
      tx.commit();
    }
    StateCorruptedException e = assertThrows(StateCorruptedException.class, () -> map.beginCommit(1L));
    assertEquals(Optional.of("counts__epochal_partitions"), e.context().table());
    assertEquals(1L, read(map, "a"), "nothing was changed");
  }

  @Test
  void shouldReadTheMarkerAgainWhenACommitLandedButItsReplyWasLost() {
    AtomicBoolean loseReply = new AtomicBoolean();
    TableStore store = new ForwardingTableStore(TableStores.inMemory()) {
      @Override
      public StoreTransaction begin(Lease lease) {
        return new ForwardingStoreTransaction(super.begin(lease)) {
          @Override
          public void commit() {
            super.commit();
            if (loseReply.getAndSet(false)) {
              throw new StoreException("injected: the commit landed, its reply was lost", null, true,
                  io.epochal.errors.ErrorContext.NONE);
            }
          }
        };
      }
    };
    MapState<Object> map = partition(state(register(store)).localCacheSize(16).opaque(), 0, 1);
    batch(map, 1, () -> add(map, "a", 1));
    map.beginCommit(2L);
    add(map, "a", 1);
    add(map, "x", 5);
    loseReply.set(true);
    assertThrows(StoreException.class, () -> map.commit(2L));
    batch(map, 2, () -> assertEquals(2L, add(map, "a", 1), "the replay reads a from before batch 2"));
    assertNull(read(map, "x"));
    batch(map, 3, () -> assertEquals(1L, add(map, "x", 1)));
    assertEquals(2L, read(map, "a"));
  }
}
