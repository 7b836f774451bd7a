package io.epochal.state.opaque;

import io.epochal.state.Epoch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.errors.StateCorruptedException;
import io.epochal.state.MapState;
import io.epochal.state.StateKind;
import io.epochal.state.ValueUpdater;
import io.epochal.store.ManualEpochs;
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
import org.junit.jupiter.api.Test;

class OpaqueTableLayoutTest {
  private static final byte[] META = {0};

  private static ValueUpdater<Long> plus(long n) {
    return v -> v.orElse(0L) + n;
  }

  private static List<Row> scan(TableStore store) {
    try (StoreTransaction tx = store.begin()) {
      return tx.scan(store.findTable("p/counts").orElseThrow());
    }
  }

  private static TableStore perKeyStore() {
    return TableStores.inMemoryBuilder().atomicMultiTableCommit(false).build();
  }

  @Test
  void shouldStoreRowsHashKeyValuePrevValueTxid() {
    TableStore store = TableStores.inMemory();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    ManualEpochs epochs = new ManualEpochs(cps, "p");
    TableBackedStateFactory<MapState<String, Long>> f =
        OpaqueTableLayout.factory(KeyCodec.strings(), Codecs.longs());
    assertEquals(StateKind.OPAQUE, f.kind());
    MapState<String, Long> map = f.makeState(epochs.context("counts", 0, 1));
    map.begin(epochs.open(1));
    map.multiUpdate(Map.of("a", plus(3)));
    map.end();
    epochs.commit(META);
    Row first = scan(store).get(0);
    assertEquals(List.of("value", "prev_value", "txid"),
        first.schema().valueColumns().stream().map(c -> c.name()).toList());
    assertEquals(3L, Codecs.longs().decode(first.getBytes("value")));
    assertNull(first.getBytes("prev_value"), "no previous value is a null prev_value");
    map.begin(epochs.open(2));
    map.multiUpdate(Map.of("a", plus(2)));
    map.end();
    epochs.commit(META);
    Row second = scan(store).get(0);
    assertEquals(5L, Codecs.longs().decode(second.getBytes("value")));
    assertEquals(3L, Codecs.longs().decode(second.getBytes("prev_value")));
    assertEquals(2L, second.getLong("txid"));
  }

  @Test
  void shouldRecomputeAReplayFromPrevValueOnThePerKeyProtocol() {
    TableStore store = perKeyStore();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    ManualEpochs epochs = new ManualEpochs(cps, "p");
    MapState<String, Long> map = OpaqueTableLayout.factory(KeyCodec.strings(), Codecs.longs())
        .makeState(epochs.context("counts", 0, 1));
    map.begin(epochs.open(1));
    map.multiUpdate(Map.of("a", plus(10)));
    map.end();
    epochs.commit(META);
    map.begin(epochs.open(2));
    map.multiUpdate(Map.of("a", plus(1)));
    map.abort();
    epochs.abort();
    map.begin(epochs.open(2));
    assertEquals(Map.of("a", 17L), map.multiUpdate(Map.of("a", plus(7))), "replay of txid 2 builds on prev");
  }

  @Test
  void shouldReportACorruptPrevValueWithTheTxid() {
    TableStore store = TableStores.inMemory();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    ManualEpochs epochs = new ManualEpochs(cps, "p");
    MapState<String, Long> map = OpaqueTableLayout.factory(KeyCodec.strings(), Codecs.longs())
        .makeState(epochs.context("counts", 0, 1));
    Table t = store.findTable("p/counts").orElseThrow();
    Row corrupt = Row.of(t.schema().key("bad"), Codecs.longs().encode(1L), new byte[] {1}, 4L);
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(t, corrupt);
      tx.commit();
    }
    map.begin(epochs.open(5));
    StateCorruptedException e = assertThrows(StateCorruptedException.class, () -> map.multiGet(List.of("bad")));
    assertEquals(java.util.Optional.of("bad"), e.context().key());
    assertEquals(java.util.OptionalLong.of(4), e.context().txid(), "the txid the damaged cell claims");
    assertTrue(e.context().table().isPresent(), e::toString);
    assertFalse(e.retryable());
    assertEquals(List.of(corrupt), scan(store));
  }

  @Test
  void shouldDeleteEmptyRowsOnTheEpochProtocol() {
    TableStore store = TableStores.inMemory();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    ManualEpochs epochs = new ManualEpochs(cps, "p");
    MapState<String, Long> map = OpaqueTableLayout.factory(
        TableStates.builder(KeyCodec.strings(), Codecs.longs()).emptyWhen(v -> v == 0L))
        .makeState(epochs.context("counts", 0, 1));
    map.begin(epochs.open(1));
    map.multiUpdate(Map.of("a", plus(2), "b", plus(1)));
    map.end();
    epochs.commit(META);
    map.begin(epochs.open(2));
    map.multiUpdate(Map.of("a", plus(-2)));
    map.end();
    epochs.commit(META);
    assertEquals(1, scan(store).size());
    map.begin(Epoch.readAfter("p", 2));
    assertEquals(Map.of(), map.multiGet(List.of("a")));
    map.end();
  }
}
