package io.epochal.trident;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.EpochalException;
import io.epochal.errors.StateAheadException;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.opaque.OpaqueMap;
import io.epochal.state.opaque.OpaqueValue;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalValue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.storm.trident.state.CombinerValueUpdater;
import org.apache.storm.trident.state.ValueUpdater;
import org.apache.storm.trident.state.map.IBackingMap;
import org.apache.storm.trident.state.map.MapState;
import org.apache.storm.trident.operation.builtin.Sum;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/**
 * trident-api.md §3, cell by cell: Epochal's maps seen through the Trident {@code MapState} view must behave exactly
 * as Storm's {@code OpaqueMap} / {@code TransactionalMap} on any schedule of batches, replays (a failed attempt
 * followed by a new {@code beginCommit} of the same txid), reads during and outside commits, updates and puts; the
 * returned values and the stored cells must match. The documented differences are tested on their own below.
 */
class MapSemanticsParityTest {
  enum Kind { OPAQUE, TRANSACTIONAL }

  /** A plain HashMap store for Storm's maps. */
  static final class HashBacking<T> implements IBackingMap<T> {
    final Map<List<Object>, T> cells = new HashMap<>();

    @Override
    public List<T> multiGet(List<List<Object>> keys) {
      List<T> out = new ArrayList<>();
      for (List<Object> k : keys) {
        out.add(cells.get(k));
      }
      return out;
    }

    @Override
    public void multiPut(List<List<Object>> keys, List<T> vals) {
      for (int i = 0; i < keys.size(); i++) {
        cells.put(new ArrayList<>(keys.get(i)), vals.get(i));
      }
    }
  }

  private static final class Pair {
    final MapState<Object> storm;
    final EpochalMapView epochal;
    final HashBacking<Object> stormCells = new HashBacking<>();
    final InMemoryBackingMap<List<Object>, Object> epochalCells = new InMemoryBackingMap<>("parity");
    final Kind kind;

    @SuppressWarnings({"rawtypes", "unchecked"})
    Pair(Kind kind) {
      this.kind = kind;
      if (kind == Kind.OPAQUE) {
        storm = org.apache.storm.trident.state.map.OpaqueMap.build((IBackingMap) stormCells);
        epochal = new EpochalMapView((io.epochal.state.MapState) OpaqueMap.over((InMemoryBackingMap) epochalCells,
            "parity"), true);
      } else {
        storm = org.apache.storm.trident.state.map.TransactionalMap.build((IBackingMap) stormCells);
        epochal = new EpochalMapView((io.epochal.state.MapState) TransactionalMap.over(
            (InMemoryBackingMap) epochalCells, "parity"), true);
      }
    }

    @SuppressWarnings("rawtypes")
    void assertSameCells(String where) {
      Map<List<Object>, List<Object>> expected = new HashMap<>();
      stormCells.cells.forEach((k, v) -> {
        if (v instanceof org.apache.storm.trident.state.OpaqueValue o) {
          expected.put(k, java.util.Arrays.asList(o.getCurrTxid(), o.getCurr(), o.getPrev()));
        } else {
          org.apache.storm.trident.state.TransactionalValue t = (org.apache.storm.trident.state.TransactionalValue) v;
          expected.put(k, java.util.Arrays.asList(t.getTxid(), t.getVal()));
        }
      });
      Map<List<Object>, List<Object>> actual = new HashMap<>();
      epochalCells.snapshot().forEach((k, v) -> {
        if (v instanceof OpaqueValue<?> o) {
          actual.put(k, java.util.Arrays.asList(o.txid(), o.curr(), o.prev().orElse(null)));
        } else {
          TransactionalValue<?> t = (TransactionalValue<?>) v;
          actual.put(k, java.util.Arrays.asList(t.txid(), t.value()));
        }
      });
      assertEquals(expected, actual, where);
    }
  }

  private static List<List<Object>> someKeys(Random r) {
    List<List<Object>> keys = new ArrayList<>();
    for (int k = 0; k < 6; k++) {
      if (r.nextInt(3) == 0) {
        keys.add(List.of("k" + k));
      }
    }
    if (keys.isEmpty()) {
      keys.add(List.of("k" + r.nextInt(6)));
    }
    return keys;
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  @SuppressWarnings("rawtypes")
  void shouldMatchTridentOnRandomSchedules(Kind kind) {
    for (int seed = 0; seed < 300; seed++) {
      Random r = new Random(seed);
      Pair p = new Pair(kind);
      long txid = 1;
      for (int step = 0; step < 25; step++) {
        String where = kind + " seed " + seed + " step " + step + " txid " + txid;
        p.storm.beginCommit(txid);
        p.epochal.beginCommit(txid);
        int calls = 1 + r.nextInt(3);
        for (int c = 0; c < calls; c++) {
          List<List<Object>> keys = someKeys(r);
          switch (r.nextInt(4)) {
            case 0:
              assertEquals(p.storm.multiGet(keys), p.epochal.multiGet(keys), where + " multiGet " + keys);
              break;
            case 1: {
              List<Object> vals = new ArrayList<>();
              keys.forEach(k -> vals.add((long) r.nextInt(100)));
              p.storm.multiPut(keys, vals);
              p.epochal.multiPut(keys, vals);
              break;
            }
            default: {
              List<ValueUpdater> updaters = new ArrayList<>();
              keys.forEach(k -> updaters.add(new CombinerValueUpdater(new Sum(), (long) (1 + r.nextInt(5)))));
              assertEquals(p.storm.multiUpdate(keys, updaters), p.epochal.multiUpdate(keys, updaters),
                  where + " multiUpdate " + keys);
            }
          }
        }
        if (r.nextInt(10) < 3) {
          continue; // the attempt fails: no commit, the same txid is begun again
        }
        p.storm.commit(txid);
        p.epochal.commit(txid);
        txid++;
        if (r.nextBoolean()) {
          List<List<Object>> keys = someKeys(r);
          assertEquals(p.storm.multiGet(keys), p.epochal.multiGet(keys), where + " query " + keys);
        }
        p.assertSameCells(where);
      }
      p.assertSameCells(kind + " seed " + seed + " end");
    }
  }

  // ------------------------------------------------------------------ documented differences

  @Test
  @SuppressWarnings("rawtypes")
  void shouldRefuseATransactionalCellAheadOfTheBatchWhereTridentRebasesIt() {
    Pair p = new Pair(Kind.TRANSACTIONAL);
    List<List<Object>> k = List.of(List.of("k"));
    List<ValueUpdater> plusOne = List.of(new CombinerValueUpdater(new Sum(), 1L));
    for (long t : new long[] {5, 3}) {
      p.storm.beginCommit(t);
      p.epochal.beginCommit(t);
      if (t == 5) {
        p.storm.multiUpdate(k, plusOne);
        p.epochal.multiUpdate(k, plusOne);
      }
    }
    assertEquals(List.of(2L), p.storm.multiUpdate(k, plusOne)); // Trident: silently re-based to txid 3
    StateAheadException e = assertThrows(StateAheadException.class, () -> p.epochal.multiUpdate(k, plusOne));
    assertEquals(5, e.storedTxid());
    assertEquals(3, e.batchTxid());
  }

  @Test
  @SuppressWarnings("rawtypes")
  void shouldReportAnOpaqueCellAheadOfTheBatchAsATypedError() {
    Pair p = new Pair(Kind.OPAQUE);
    List<List<Object>> k = List.of(List.of("k"));
    p.storm.beginCommit(5L);
    p.epochal.beginCommit(5L);
    p.storm.multiUpdate(k, List.of(new CombinerValueUpdater(new Sum(), 1L)));
    p.epochal.multiUpdate(k, List.of(new CombinerValueUpdater(new Sum(), 1L)));
    p.storm.beginCommit(3L);
    p.epochal.beginCommit(3L);
    RuntimeException storm = assertThrows(RuntimeException.class, () -> p.storm.multiGet(k));
    assertTrue(storm.getMessage().contains("behind state's batch"), storm.getMessage());
    assertThrows(StateAheadException.class, () -> p.epochal.multiGet(k));
  }

  @Test
  @SuppressWarnings("rawtypes")
  void shouldApplyDuplicateKeysOfOneCallInOrder() {
    Pair p = new Pair(Kind.OPAQUE);
    List<List<Object>> k = List.of(List.of("k"), List.of("k"));
    List<ValueUpdater> updaters = List.of(new CombinerValueUpdater(new Sum(), 1L),
        new CombinerValueUpdater(new Sum(), 2L));
    p.storm.beginCommit(1L);
    p.epochal.beginCommit(1L);
    assertEquals(java.util.Arrays.asList(1L, 2L), p.storm.multiUpdate(k, updaters)); // both from the same base
    assertEquals(java.util.Arrays.asList(1L, 3L), p.epochal.multiUpdate(k, updaters)); // the second builds on the first
  }

  @Test
  @SuppressWarnings("rawtypes")
  void shouldRefuseUpdatesWithoutATxidAndNullValues() {
    Pair p = new Pair(Kind.OPAQUE);
    List<List<Object>> k = List.of(List.of("k"));
    EpochalException noTxid = assertThrows(EpochalException.class,
        () -> p.epochal.multiUpdate(k, List.of(new CombinerValueUpdater(new Sum(), 1L))));
    assertFalse(EpochalException.isRetryable(noTxid), "no retry gives the call a txid");
    p.epochal.beginCommit(1L);
    EpochalException nullValue = assertThrows(EpochalException.class,
        () -> p.epochal.multiPut(k, java.util.Collections.singletonList(null)));
    assertFalse(EpochalException.isRetryable(nullValue));
    p.epochal.multiPut(k, List.of(4L));
    p.epochal.commit(1L);
    assertEquals(java.util.Collections.singletonList(4L), p.epochal.multiGet(k)); // reads outside a commit: latest
    assertNull(p.epochal.get()); // the global key of a non-grouped aggregate has no value yet
  }
}
