package io.epochal.store.table;

import io.epochal.state.Epoch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.errors.InvalidRecordException;
import io.epochal.errors.SchemaMismatchException;
import io.epochal.errors.StateCorruptedException;
import io.epochal.errors.TableClaimedTwiceException;
import io.epochal.state.ForwardingBackingMap;
import io.epochal.state.IBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.StateContext;
import io.epochal.state.StateKind;
import io.epochal.state.ValueUpdater;
import io.epochal.store.ManualEpochs;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The generic table plumbing, through the non-transactional layout {@code (hash, key…, value)}. */
class TableStatesTest {
  private static final byte[] META = {0};

  private static List<Row> scan(TableStore store, String path) {
    try (StoreTransaction tx = store.begin()) {
      return tx.scan(store.findTable(path).orElseThrow());
    }
  }

  private static ValueUpdater<Long> plus(long n) {
    return v -> v.orElse(0L) + n;
  }

  @Test
  void shouldStoreRowsHashKeyValueInATableNamedAfterPipelineAndState() {
    TableStore store = TableStores.inMemory();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    ManualEpochs epochs = new ManualEpochs(cps, "wc");
    TableBackedStateFactory<MapState<String, Long>> f =
        TableStates.nonTransactional(KeyCodec.strings(), Codecs.longs());
    assertEquals(StateKind.NON_TRANSACTIONAL, f.kind());
    MapState<String, Long> map = f.makeState(epochs.context("counts", 0, 1));
    cps.load("wc");
    map.begin(epochs.open(1));
    assertEquals(Map.of("a", 2L, "b", 1L), map.multiUpdate(Map.of("a", plus(2), "b", plus(1))));
    assertEquals(Map.of("a", 2L), map.multiGet(List.of("a", "zzz")), "reads see the epoch's own writes");
    map.end();
    assertEquals(List.of(), scan(store, "wc/counts"), "nothing visible before the checkpoint commit");
    epochs.commit(META);
    List<Row> rows = scan(store, "wc/counts");
    assertEquals(2, rows.size());
    TableSchema schema = rows.get(0).schema();
    assertEquals(List.of("hash", "key"), schema.keyColumns().stream().map(Column::name).toList());
    assertEquals(List.of(Column.required("value", ColumnType.BYTES)), schema.valueColumns());
    assertEquals(Map.of("epochal.codec", "long-be:v1", "epochal.key", "string:key", "epochal.layout", "plain:v1"),
        schema.attributes());
    Row a = rows.stream().filter(r -> r.key().get("key").equals("a")).findFirst().orElseThrow();
    assertEquals(2L, Codecs.longs().decode(a.getBytes("value")));
  }

  @Test
  void shouldDeleteTheRowOfAnEmptyValue() {
    TableStore store = TableStores.inMemory();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    ManualEpochs epochs = new ManualEpochs(cps, "p");
    MapState<String, Long> map = TableStates.builder(KeyCodec.strings(), Codecs.longs()).emptyValue(0L)
        .nonTransactional().makeState(epochs.context("s", 0, 1));
    map.begin(epochs.open(1));
    map.multiUpdate(Map.of("a", plus(1), "b", plus(1)));
    map.end();
    epochs.commit(META);
    map.begin(epochs.open(2));
    map.multiUpdate(Map.of("a", plus(-1)));
    map.end();
    epochs.commit(META);
    assertEquals(List.of("b"), scan(store, "p/s").stream().map(r -> r.key().get("key")).toList());
    map.begin(Epoch.readAfter("p", 2));
    assertEquals(Map.of(), map.multiGet(List.of("a")));
    map.end();
  }

  @Test
  void shouldReportUndecodableBytesNamingTableKeyAndTxid() {
    TableStore store = TableStores.inMemory();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    ManualEpochs epochs = new ManualEpochs(cps, "p");
    MapState<String, Long> map = TableStates.nonTransactional(KeyCodec.strings(), Codecs.longs())
        .makeState(epochs.context("s", 0, 1));
    Table t = store.findTable("p/s").orElseThrow();
    Row corrupt = Row.of(t.schema().key("bad"), (Object) new byte[] {1, 2, 3});
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(t, corrupt);
      tx.commit();
    }
    map.begin(epochs.open(1));
    StateCorruptedException e = assertThrows(StateCorruptedException.class,
        () -> map.multiUpdate(Map.of("bad", plus(1), "good", plus(1))));
    assertEquals(Optional.of("p/s"), e.context().table());
    assertEquals(Optional.of("bad"), e.context().key());
    assertEquals(java.util.OptionalLong.empty(), e.context().txid(), "a plain layout has no txid column");
    assertFalse(e.retryable());
    epochs.commit(META);
    assertEquals(List.of(corrupt), scan(store, "p/s"), "nothing may be overwritten");
  }

  @Test
  void shouldRefuseATableWrittenWithAnotherCodecOrKeyMapping() {
    TableStore store = TableStores.inMemory();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    ManualEpochs epochs = new ManualEpochs(cps, "p");
    StateContext ctx = epochs.context("s", 0, 1);
    TableStates.nonTransactional(KeyCodec.strings(), Codecs.longs()).makeState(ctx);
    TableCheckpointStore restarted = TableCheckpointStore.on(store);
    SchemaMismatchException codec = assertThrows(SchemaMismatchException.class,
        () -> TableStates.nonTransactional(KeyCodec.strings(), Codecs.<Long>kryo()).makeState(ctx));
    assertTrue(codec.getMessage().contains("kryo:v1") && codec.getMessage().contains("long-be:v1"),
        codec.getMessage());
    assertThrows(SchemaMismatchException.class,
        () -> TableStates.nonTransactional(KeyCodec.strings("word"), Codecs.longs()).makeState(ctx));
  }

  @Test
  void shouldRefuseTwoStatesWritingOneTable() {
    TableCheckpointStore cps = TableCheckpointStore.on(TableStores.inMemory());
    ManualEpochs epochs = new ManualEpochs(cps, "p");
    TableBackedStateFactory<MapState<String, Long>> f = TableStates.builder(KeyCodec.strings(), Codecs.longs())
        .table("shared").nonTransactional();
    f.makeState(epochs.context("first", 0, 2));
    f.makeState(epochs.context("first", 1, 2));
    TableClaimedTwiceException e = assertThrows(TableClaimedTwiceException.class,
        () -> f.makeState(epochs.context("second", 0, 1)));
    assertEquals("State table shared is claimed for writing by both state 'first' of pipeline 'p' and state "
        + "'second' of pipeline 'p'", e.getMessage());
  }

  @Test
  void shouldWriteThroughOnThePerKeyProtocol() {
    TableStore store = TableStores.inMemoryBuilder().atomicMultiTableCommit(false).build();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    ManualEpochs epochs = new ManualEpochs(cps, "p");
    MapState<Long, String> map = TableStates.nonTransactional(KeyCodec.longs(), Codecs.strings())
        .makeState(epochs.context("s", 0, 1));
    map.begin(epochs.open(1));
    map.multiPut(Map.of(7L, "seven"));
    assertEquals(1, scan(store, "p/s").size());
    assertEquals(7L, scan(store, "p/s").get(0).key().get("key"));
  }

  @Test
  void shouldMapCompositeKeys() {
    record Pair(String user, long day) {
    }
    KeyCodec<Pair> pairs = KeyCodec.of("pair:v1",
        List.of(Column.required("user", ColumnType.STRING), Column.required("day", ColumnType.INT64)),
        p -> java.util.Arrays.asList(p.user(), p.day()), k -> new Pair((String) k.get("user"), (Long) k.get("day")));
    TableStore store = TableStores.inMemory();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    ManualEpochs epochs = new ManualEpochs(cps, "p");
    MapState<Pair, Long> map = TableStates.nonTransactional(pairs, Codecs.longs())
        .makeState(epochs.context("s", 0, 1));
    map.begin(epochs.open(1));
    map.multiPut(Map.of(new Pair("ann", 3), 5L));
    map.end();
    epochs.commit(META);
    Row row = scan(store, "p/s").get(0);
    assertEquals(new Pair("ann", 3), pairs.fromKey(row.key()));
    assertEquals(io.epochal.hash.FarmHash.farmHash("ann", 3L), row.key().hash());
    map.begin(epochs.open(2));
    assertEquals(Map.of(new Pair("ann", 3), 5L), map.multiGet(List.of(new Pair("ann", 3))));
    // a key the codec cannot map is a bad record, not a transient failure: not retryable, naming table and column
    InvalidRecordException bad = assertThrows(InvalidRecordException.class,
        () -> map.multiPut(Map.of(new Pair(null, 1), 1L)));
    assertTrue(bad.getMessage().contains("user"), bad.getMessage());
    assertEquals(Optional.of("p/s"), bad.context().table());

    KeyCodec<List<Object>> lists = KeyCodec.list(Column.required("a", ColumnType.STRING),
        Column.required("b", ColumnType.INT64));
    TableSchema s = TableSchema.builder("t").key("a", ColumnType.STRING).key("b", ColumnType.INT64).build();
    assertEquals(List.of("x", 2L), lists.fromKey(lists.toKey(s, List.of("x", 2))));
  }

  @Test
  void shouldPlaceALayerBetweenTheRuleAndTheTable() {
    TableStore store = TableStores.inMemory();
    TableCheckpointStore cps = TableCheckpointStore.on(store);
    ManualEpochs epochs = new ManualEpochs(cps, "p");
    AtomicInteger puts = new AtomicInteger();
    BackingMapLayer counting = new BackingMapLayer() {
      @Override
      public <K, C> IBackingMap<K, C> wrap(IBackingMap<K, C> inner) {
        return new ForwardingBackingMap<>(inner) {
          @Override
          public void multiPut(Map<K, C> cells) {
            puts.incrementAndGet();
            super.multiPut(cells);
          }
        };
      }
    };
    MapState<String, Long> map = TableStates.builder(KeyCodec.strings(), Codecs.longs()).layer(counting)
        .nonTransactional().makeState(epochs.context("s", 0, 1));
    map.begin(epochs.open(1));
    map.multiPut(Map.of("a", 1L));
    assertEquals(1, puts.get());
    assertEquals(Optional.of(1L), Optional.ofNullable(map.multiGet(List.of("a")).get("a")));
  }
}
