package io.epochal.state.transactional;

import io.epochal.state.Epoch;
import io.epochal.state.MapState;
import io.epochal.spout.BatchAttempt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.state.RecordingBackingMap.InjectedFailure;
import io.epochal.state.RecordingBackingMap;
import io.epochal.state.ValueUpdater;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Replays of a transactional spout (identical increments on every attempt) against a store that may fail in the
 * middle of a {@code multiPut}: after every batch the stored values equal a plain fold of the batches.
 */
class TransactionalMapProperties {
  private static final String TABLE = "counts";
  private static final List<String> KEYS = List.of("a", "b", "c", "d", "e", "f", "g", "h");

  /** Where an attempt fails: the call whose multiPut fails, how many of its cells get written, and who retries. */
  record Failure(int callSeed, int cellsSeed, boolean restart) {
  }

  /** One batch: its increments cut into calls with disjoint keys, and the failed attempts before the good one. */
  record Batch(List<Map<String, Long>> calls, List<Failure> failures) {
  }

  @Property(tries = 200)
  void shouldEqualAFoldOfTheBatchesWhateverFailsAndIsReplayed(@ForAll("schedules") List<Batch> schedule) {
    RecordingBackingMap<String, TransactionalValue<Long>> store = new RecordingBackingMap<>();
    TransactionalMap<String, Long> map = TransactionalMap.over(store, TABLE);
    Map<String, Long> model = new HashMap<>();
    long txid = 0;
    for (Batch batch : schedule) {
      txid++;
      int attempt = 0;
      for (Failure failure : batch.failures()) {
        map.begin(Epoch.of("test", new BatchAttempt(txid, ++attempt)));
        int failingCall = failure.callSeed() % batch.calls().size();
        for (int i = 0; i < failingCall; i++) {
          map.multiUpdate(updaters(batch.calls().get(i)));
        }
        Map<String, Long> failing = batch.calls().get(failingCall);
        store.failNextPutAfter(failure.cellsSeed() % (failing.size() + 1));
        int putsBefore = store.puts().size();
        try {
          map.multiUpdate(updaters(failing));
          // Every key was skipped, so nothing was written and nothing failed: let the attempt fail elsewhere.
          assertEquals(putsBefore, store.puts().size());
          store.cancelFailure();
        } catch (InjectedFailure expected) {
          // the attempt failed in the middle of its multiPut
        }
        if (failure.restart()) {
          map = TransactionalMap.over(store, TABLE);
        } else {
          map.abort();
        }
      }
      map.begin(Epoch.of("test", new BatchAttempt(txid, ++attempt)));
      for (Map<String, Long> call : batch.calls()) {
        Map<String, Long> expected = new HashMap<>();
        call.forEach((key, increment) -> expected.put(key, model.getOrDefault(key, 0L) + increment));
        assertEquals(expected, map.multiUpdate(updaters(call)));
        model.putAll(expected);
      }
      assertEquals(model, map.multiGet(KEYS), "read of batch " + txid + " in its epoch");
      map.end();

      assertEquals(model, read(TransactionalMap.over(store, TABLE), Epoch.readAfter("test", txid)),
          "store after batch " + txid);
      for (TransactionalValue<Long> cell : store.cells().values()) {
        assertTrue(cell.txid() <= txid, cell::toString);
      }
    }
  }

  /** Reads {@code KEYS} in {@code epoch}, begun and ended around the read. */
  private static Map<String, Long> read(MapState<String, Long> map, Epoch epoch) {
    map.begin(epoch);
    try {
      return map.multiGet(KEYS);
    } finally {
      map.end();
    }
  }

  @Provide
  Arbitrary<List<Batch>> schedules() {
    Arbitrary<Map<String, Long>> increments =
        Arbitraries.maps(Arbitraries.of(KEYS), Arbitraries.longs().between(-3, 10)).ofMinSize(1).ofMaxSize(6);
    Arbitrary<Failure> failure = Combinators.combine(Arbitraries.integers().between(0, 100),
        Arbitraries.integers().between(0, 100), Arbitraries.of(true, false)).as(Failure::new);
    Arbitrary<Batch> batch = Combinators.combine(increments, Arbitraries.integers().between(1, 3),
        failure.list().ofMaxSize(3)).as((incs, cuts, failures) -> new Batch(cut(incs, cuts), failures));
    return batch.list().ofMinSize(1).ofMaxSize(8);
  }

  /** Cuts increments into at most {@code n} calls with disjoint keys: a key is updated once per batch. */
  private static List<Map<String, Long>> cut(Map<String, Long> increments, int n) {
    List<Map<String, Long>> calls = new ArrayList<>();
    int i = 0;
    for (Map.Entry<String, Long> entry : new TreeMap<>(increments).entrySet()) {
      if (calls.size() < n && i % Math.max(1, increments.size() / n) == 0) {
        calls.add(new LinkedHashMap<>());
      }
      calls.get(calls.size() - 1).put(entry.getKey(), entry.getValue());
      i++;
    }
    return calls;
  }

  private static Map<String, ValueUpdater<Long>> updaters(Map<String, Long> increments) {
    Map<String, ValueUpdater<Long>> updaters = new LinkedHashMap<>();
    increments.forEach((key, increment) -> updaters.put(key, stored -> stored.orElse(0L) + increment));
    return updaters;
  }
}
