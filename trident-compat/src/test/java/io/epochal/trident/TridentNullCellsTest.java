package io.epochal.trident;

import io.epochal.state.Epoch;
import io.epochal.spout.BatchAttempt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.EpochalException;
import io.epochal.errors.StateAheadException;
import io.epochal.errors.StateCorruptedException;
import io.epochal.state.MapState;
import io.epochal.state.StateContext;
import io.epochal.state.StateFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import org.apache.storm.trident.operation.TridentCollector;
import org.apache.storm.trident.operation.builtin.Sum;
import org.apache.storm.trident.state.BaseStateUpdater;
import org.apache.storm.trident.testing.FixedBatchSpout;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.tuple.Fields;
import org.apache.storm.trident.state.CombinerValueUpdater;
import org.apache.storm.trident.state.OpaqueValue;
import org.apache.storm.trident.state.TransactionalValue;
import org.apache.storm.trident.state.ValueUpdater;
import org.apache.storm.trident.state.map.RemovableMapState;
import org.apache.storm.trident.testing.MemoryMapState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Trident cells without a value ({@code [txid, null, prev]}, {@code [txid, null]}: Storm's removal) read and written
 * through {@code EpochalTrident.opaqueState}/{@code transactionalState}: they keep their txid and prev, so replays read
 * {@code prev}, cells ahead stop the pipeline, and the answers equal those of Storm's own maps.
 */
class TridentNullCellsTest {
  private static final List<List<Object>> A = List.of(List.of("a"));
  private static final List<List<Object>> B = List.of(List.of("b"));

  enum Kind { OPAQUE, TRANSACTIONAL }

  @SuppressWarnings({"rawtypes", "unchecked"})
  private static MapState<List<Object>, Object> epochal(Kind kind, MapSemanticsParityTest.HashBacking<?> backing) {
    MapSemanticsParityTest.HashBacking raw = backing;
    StateFactory factory = kind == Kind.OPAQUE ? EpochalTrident.opaqueState(raw)
        : EpochalTrident.transactionalState(raw);
    return (MapState<List<Object>, Object>) factory.makeState(new StateContext("p", "counts", 0, 1));
  }

  @SuppressWarnings({"rawtypes", "unchecked"})
  private static org.apache.storm.trident.state.map.MapState<Object> storm(Kind kind,
      MapSemanticsParityTest.HashBacking<?> backing) {
    MapSemanticsParityTest.HashBacking raw = backing;
    return kind == Kind.OPAQUE ? org.apache.storm.trident.state.map.OpaqueMap.build(raw)
        : org.apache.storm.trident.state.map.TransactionalMap.build(raw);
  }

  /** The Trident view a Trident StateUpdater gets of the Epochal map inside batch {@code txid}. */
  @SuppressWarnings("unchecked")
  private static org.apache.storm.trident.state.map.MapState<Object> view(MapState<List<Object>, Object> map,
      long txid) {
    return (org.apache.storm.trident.state.map.MapState<Object>) Operations.tridentView(map, txid, "test");
  }

  @SuppressWarnings("rawtypes")
  private static List<Object> cell(Object stored) {
    if (stored instanceof OpaqueValue o) {
      return Arrays.asList(o.getCurrTxid(), o.getCurr(), o.getPrev());
    }
    TransactionalValue t = (TransactionalValue) stored;
    return Arrays.asList(t.getTxid(), t.getVal());
  }

  private static Map<List<Object>, List<Object>> cells(MapSemanticsParityTest.HashBacking<?> backing) {
    Map<List<Object>, List<Object>> out = new HashMap<>();
    backing.cells.forEach((k, v) -> out.put(k, v == null ? null : cell(v)));
    return out;
  }

  @SuppressWarnings("rawtypes")
  private static List<ValueUpdater> plus(long n) {
    return List.of(new CombinerValueUpdater(new Sum(), n));
  }

  @Test
  @SuppressWarnings("unchecked")
  void shouldGiveStormsAnswersToItsOwnRemovalSequence() {
    // Storm's StateTest.testMemoryMapStateRemove, on Storm's MemoryMapState and on an Epochal OpaqueMap over a
    // Trident store (as a Trident StateUpdater sees it through EpochalTrident.updater).
    MemoryMapState<Object> memory = new MemoryMapState<>("null-cells-" + System.nanoTime());
    MapState<List<Object>, Object> map = epochal(Kind.OPAQUE, new MapSemanticsParityTest.HashBacking<>());
    List<Object> stormReads = new ArrayList<>();
    List<Object> epochalReads = new ArrayList<>();
    long[] txids = {1, 2, 2, 3};
    for (int step = 0; step < txids.length; step++) {
      long t = txids[step];
      memory.beginCommit(t);
      map.begin(Epoch.of("test", new BatchAttempt(t, 1)));
      org.apache.storm.trident.state.map.MapState<Object> view = view(map, t);
      for (org.apache.storm.trident.state.map.MapState<Object> m : List.of(memory, view)) {
        List<Object> reads = m == memory ? stormReads : epochalReads;
        RemovableMapState<Object> removable = (RemovableMapState<Object>) m;
        switch (step) {
          case 0:
            m.multiPut(A, List.of(1L));
            m.multiPut(B, List.of(2L));
            break;
          case 1:
            removable.multiRemove(A);
            reads.add(m.multiGet(A).get(0));
            reads.add(m.multiGet(B).get(0));
            break;
          case 2: // the replay of batch 2: "a" is 1 again
            reads.add(m.multiGet(A).get(0));
            reads.add(m.multiGet(B).get(0));
            removable.multiRemove(A);
            break;
          default:
            reads.add(m.multiGet(A).get(0));
            reads.add(m.multiGet(B).get(0));
        }
      }
      memory.commit(t);
      map.end();
    }
    assertEquals(Arrays.asList(null, 2L, 1L, 2L, null, 2L), stormReads); // Storm's own assertions
    assertEquals(stormReads, epochalReads);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void shouldReplayARemovingBatchFromTheCellStormWrote(Kind kind) {
    // Storm's map removes "a" in batch 2 (MemoryMapState.multiRemove is a multiPut of nulls through its OpaqueMap).
    MapSemanticsParityTest.HashBacking<Object> cells = new MapSemanticsParityTest.HashBacking<>();
    org.apache.storm.trident.state.map.MapState<Object> writer = storm(kind, cells);
    writer.beginCommit(1L);
    writer.multiPut(A, List.of(1L));
    writer.commit(1L);
    writer.beginCommit(2L);
    writer.multiPut(A, java.util.Collections.singletonList(null));
    writer.commit(2L);
    MapSemanticsParityTest.HashBacking<Object> copy = new MapSemanticsParityTest.HashBacking<>();
    copy.cells.putAll(cells.cells);

    // Replaying batch 2 through EpochalTrident, and through Storm's map over a copy of the cells.
    MapState<List<Object>, Object> map = epochal(kind, cells);
    org.apache.storm.trident.state.map.MapState<Object> storm = storm(kind, copy);
    map.begin(Epoch.of("test", new BatchAttempt(2, 1)));
    storm.beginCommit(2L);
    assertEquals(storm.multiGet(A), view(map, 2).multiGet(A), kind + " replay read");
    assertEquals(storm.multiUpdate(A, plus(5)), view(map, 2).multiUpdate(A, plus(5)), kind + " replay update");
    map.end();
    storm.commit(2L);
    assertEquals(cells(copy), cells(cells), kind + " cells after the replay");
    if (kind == Kind.OPAQUE) {
      assertEquals(Arrays.asList(2L, 6L, 1L), cells(cells).get(A.get(0)));
    }

    // The next batch reads the removed key as absent and starts over from the update.
    MapSemanticsParityTest.HashBacking<Object> removed = new MapSemanticsParityTest.HashBacking<>();
    removed.cells.put(A.get(0), kind == Kind.OPAQUE ? new OpaqueValue<>(2L, null, 1L)
        : new TransactionalValue<>(2L, null));
    MapSemanticsParityTest.HashBacking<Object> removedCopy = new MapSemanticsParityTest.HashBacking<>();
    removedCopy.cells.putAll(removed.cells);
    MapState<List<Object>, Object> next = epochal(kind, removed);
    org.apache.storm.trident.state.map.MapState<Object> stormNext = storm(kind, removedCopy);
    next.begin(Epoch.of("test", new BatchAttempt(3, 1)));
    stormNext.beginCommit(3L);
    assertEquals(stormNext.multiGet(A), view(next, 3).multiGet(A));
    assertEquals(stormNext.multiUpdate(A, plus(4)), view(next, 3).multiUpdate(A, plus(4)));
    assertEquals(cells(removedCopy), cells(removed));
  }

  @Test
  void shouldSkipAReplayedTransactionalRemovalAsStormDoes() {
    MapSemanticsParityTest.HashBacking<Object> cells = new MapSemanticsParityTest.HashBacking<>();
    cells.cells.put(A.get(0), new TransactionalValue<>(2L, null));
    MapSemanticsParityTest.HashBacking<Object> copy = new MapSemanticsParityTest.HashBacking<>();
    copy.cells.putAll(cells.cells);
    MapState<List<Object>, Object> map = epochal(Kind.TRANSACTIONAL, cells);
    org.apache.storm.trident.state.map.MapState<Object> storm = storm(Kind.TRANSACTIONAL, copy);
    map.begin(Epoch.of("test", new BatchAttempt(2, 1)));
    storm.beginCommit(2L);
    assertEquals(java.util.Collections.singletonList(null), storm.multiUpdate(A, plus(3)));
    assertEquals(storm.multiUpdate(A, plus(3)), view(map, 2).multiUpdate(A, plus(3)));
    assertEquals(cells(copy), cells(cells));
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void shouldRefuseARemovalCellAheadOfTheBatch(Kind kind) {
    MapSemanticsParityTest.HashBacking<Object> cells = new MapSemanticsParityTest.HashBacking<>();
    Object ahead = kind == Kind.OPAQUE ? new OpaqueValue<>(5L, null, 4L) : new TransactionalValue<>(5L, null);
    cells.cells.put(A.get(0), ahead);
    MapState<List<Object>, Object> map = epochal(kind, cells);
    map.begin(Epoch.of("test", new BatchAttempt(3, 1)));
    StateAheadException read = assertThrows(StateAheadException.class, () -> map.multiGet(A));
    assertEquals(5, read.storedTxid());
    assertEquals(3, read.batchTxid());
    assertEquals("counts", read.context().table().orElseThrow());
    StateAheadException update = assertThrows(StateAheadException.class,
        () -> map.multiUpdate(Map.of(A.get(0), v -> 1L)));
    assertFalse(EpochalException.isRetryable(update));
    assertThrows(StateAheadException.class, () -> map.multiPut(Map.of(A.get(0), 1L)));
    assertEquals(cell(ahead), cells(cells).get(A.get(0)), "the cell ahead is not overwritten");
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void shouldRefuseANullTxidAsCorruptAndNotRetryable(Kind kind) {
    MapSemanticsParityTest.HashBacking<Object> cells = new MapSemanticsParityTest.HashBacking<>();
    cells.cells.put(A.get(0), kind == Kind.OPAQUE ? new OpaqueValue<>(null, 3L, null)
        : new TransactionalValue<>(null, 3L));
    MapState<List<Object>, Object> map = epochal(kind, cells);
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    StateCorruptedException e = assertThrows(StateCorruptedException.class, () -> map.multiGet(A));
    assertFalse(EpochalException.isRetryable(e));
    assertEquals("counts", e.context().table().orElseThrow());
    assertEquals("[a]", e.context().key().orElseThrow());
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  @SuppressWarnings({"rawtypes", "unchecked"})
  void shouldMatchStormsMapsOnRandomSchedulesWithRemovals(Kind kind) {
    for (int seed = 0; seed < 300; seed++) {
      Random r = new Random(seed);
      MapSemanticsParityTest.HashBacking<Object> stormCells = new MapSemanticsParityTest.HashBacking<>();
      MapSemanticsParityTest.HashBacking<Object> epochalCells = new MapSemanticsParityTest.HashBacking<>();
      org.apache.storm.trident.state.map.MapState<Object> storm = storm(kind, stormCells);
      MapState<List<Object>, Object> map = epochal(kind, epochalCells);
      long txid = 1;
      for (int step = 0; step < 25; step++) {
        String where = kind + " seed " + seed + " step " + step + " txid " + txid;
        storm.beginCommit(txid);
        map.begin(Epoch.of("test", new BatchAttempt(txid, 1)));
        org.apache.storm.trident.state.map.MapState<Object> view = view(map, txid);
        int calls = 1 + r.nextInt(3);
        for (int c = 0; c < calls; c++) {
          List<List<Object>> keys = someKeys(r);
          switch (r.nextInt(5)) {
            case 0:
              assertEquals(storm.multiGet(keys), view.multiGet(keys), where + " multiGet " + keys);
              break;
            case 1: {
              List<Object> vals = new ArrayList<>();
              keys.forEach(k -> vals.add((long) r.nextInt(100)));
              storm.multiPut(keys, vals);
              view.multiPut(keys, vals);
              break;
            }
            case 2: // MemoryMapState.multiRemove: a multiPut of nulls through Storm's map
              storm.multiPut(keys, Arrays.asList(new Object[keys.size()]));
              ((RemovableMapState<Object>) view).multiRemove(keys);
              break;
            default: {
              List<ValueUpdater> updaters = new ArrayList<>();
              keys.forEach(k -> updaters.add(new CombinerValueUpdater(new Sum(), (long) (1 + r.nextInt(5)))));
              assertEquals(storm.multiUpdate(keys, updaters), view.multiUpdate(keys, updaters),
                  where + " multiUpdate " + keys);
            }
          }
        }
        if (r.nextInt(10) < 3) {
          continue; // the attempt fails: the same txid is begun again
        }
        storm.commit(txid);
        map.end();
        txid++;
        assertEquals(cells(stormCells), cells(epochalCells), where);
      }
    }
  }

  private static List<List<Object>> someKeys(Random r) {
    List<List<Object>> keys = new ArrayList<>();
    for (int k = 0; k < 5; k++) {
      if (r.nextInt(3) == 0) {
        keys.add(List.of("k" + k));
      }
    }
    if (keys.isEmpty()) {
      keys.add(List.of("k" + r.nextInt(5)));
    }
    return keys;
  }

  /** A Trident updater: "add" counts the word, "del" removes it (as a MemoryMapState user would). */
  static final class AddOrRemove extends BaseStateUpdater<org.apache.storm.trident.state.map.MapState<Object>> {
    private final String failures;

    AddOrRemove(String failures) {
      this.failures = failures;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void updateState(org.apache.storm.trident.state.map.MapState<Object> state, List<TridentTuple> tuples,
        TridentCollector collector) {
      for (TridentTuple t : tuples) {
        List<List<Object>> key = List.of(List.of(t.getString(0)));
        if (t.getString(1).equals("del")) {
          ((RemovableMapState<Object>) state).multiRemove(key);
        } else {
          state.multiUpdate(key, plus(1));
        }
      }
      if (failures != null) {
        Flaky.check(failures, 2); // every other call fails after writing: the batch is replayed
      }
    }
  }

  @Test
  @SuppressWarnings({"rawtypes", "unchecked"})
  void shouldRemoveKeysFromATridentUpdaterOnTheEngineAsMemoryMapStateDoes() {
    List<List<List<Object>>> batches = List.of( // three operations per batch, as FixedBatchSpout cuts them below
        List.of(List.of("a", "add"), List.of("b", "add"), List.of("a", "add")),
        List.of(List.of("a", "del"), List.of("b", "add"), List.of("b", "add")),
        List.of(List.of("a", "add"), List.of("c", "add"), List.of("b", "del")),
        List.of(List.of("c", "del"), List.of("c", "add"), List.of("a", "add")));
    Fields fields = new Fields("word", "op");
    // Storm's answer: the same updater on Storm's OpaqueMap removing as MemoryMapState does (a multiPut of nulls; we
    // leave out MemoryMapState's physical deletion at the next batch, which also drops a key re-added in the batch
    // that removed it), every batch attempted twice (the first attempt is not committed).
    MapSemanticsParityTest.HashBacking<Object> stormCells = new MapSemanticsParityTest.HashBacking<>();
    StormRemovable memory = new StormRemovable(stormCells);
    AddOrRemove reference = new AddOrRemove(null);
    long txid = 1;
    for (List<List<Object>> batch : batches) {
      List<TridentTuple> tuples = new ArrayList<>();
      batch.forEach(v -> tuples.add(EpochalTrident.tuple(fields, v)));
      memory.beginCommit(txid);
      reference.updateState(memory, tuples, null);
      memory.beginCommit(txid);
      reference.updateState(memory, tuples, null);
      memory.commit(txid);
      txid++;
    }

    MapSemanticsParityTest.HashBacking<Object> cells = new MapSemanticsParityTest.HashBacking<>();
    FixedBatchSpout spout = new FixedBatchSpout(fields, 3, batches.stream().flatMap(List::stream)
        .toArray(List[]::new));
    PipelineBuilder b = Pipeline.newBuilder("removals-" + System.nanoTime()).partitions(1)
        .retryPolicy(RetryPolicy.immediate(10));
    String failures = "removals-" + System.nanoTime();
    EpochalTrident.newStream(b, EpochalTrident.spout("ops", spout)).groupBy(EpochalTrident.key(new Fields("word")))
        .partitionPersist("counts", EpochalTrident.opaqueState((MapSemanticsParityTest.HashBacking) cells),
            EpochalTrident.updater(fields, new AddOrRemove(failures)));
    try (Pipeline p = b.build()) {
      assertTrue(p.runUntilIdle().failedAttempts() > 0);
    }
    assertTrue(Flaky.failures(failures) > 0);
    assertEquals(cells(stormCells), cells(cells));
    assertEquals(Arrays.asList(4L, 1L, 1L), cells(cells).get(List.of("c")), "c removed, then counted again in txid 4");
  }

  /** Storm's OpaqueMap with MemoryMapState's removal: a multiPut of nulls. */
  static final class StormRemovable implements org.apache.storm.trident.state.map.MapState<Object>,
      RemovableMapState<Object> {
    private final org.apache.storm.trident.state.map.MapState<Object> map;

    @SuppressWarnings({"rawtypes", "unchecked"})
    StormRemovable(MapSemanticsParityTest.HashBacking<Object> cells) {
      this.map = org.apache.storm.trident.state.map.OpaqueMap.build((MapSemanticsParityTest.HashBacking) cells);
    }

    @Override
    public void multiRemove(List<List<Object>> keys) {
      map.multiPut(keys, Arrays.asList(new Object[keys.size()]));
    }

    @Override
    @SuppressWarnings("rawtypes")
    public List<Object> multiUpdate(List<List<Object>> keys, List<ValueUpdater> updaters) {
      return map.multiUpdate(keys, updaters);
    }

    @Override
    public void multiPut(List<List<Object>> keys, List<Object> vals) {
      map.multiPut(keys, vals);
    }

    @Override
    public List<Object> multiGet(List<List<Object>> keys) {
      return map.multiGet(keys);
    }

    @Override
    public void beginCommit(Long txid) {
      map.beginCommit(txid);
    }

    @Override
    public void commit(Long txid) {
      map.commit(txid);
    }
  }

  @Test
  void shouldNotOfferRemovalOnMapsThatCannotHoldIt() {
    MapState<List<Object>, Object> plain = io.epochal.state.opaque.OpaqueMap.over(
        new io.epochal.state.InMemoryBackingMap<>("plain"), "plain");
    assertFalse(Operations.tridentView(plain, 1, "test") instanceof RemovableMapState);
    assertTrue(Operations.tridentView(epochal(Kind.OPAQUE, new MapSemanticsParityTest.HashBacking<>()), 1, "test")
        instanceof RemovableMapState);
    @SuppressWarnings({"rawtypes", "unchecked"})
    MapState<List<Object>, Object> shifted = (MapState<List<Object>, Object>) EpochalTrident.continueAfter(7,
        EpochalTrident.opaqueState((MapSemanticsParityTest.HashBacking) new MapSemanticsParityTest.HashBacking<>()))
        .makeState(new StateContext("p", "counts", 0, 1));
    assertTrue(Operations.tridentView(shifted, 1, "test") instanceof RemovableMapState);
  }
}
