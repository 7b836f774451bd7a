package io.epochal.state.opaque;

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
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Replays of an opaque spout against a store that may fail in the middle of a {@code multiPut}: a failed attempt may
 * carry different increments, cut into different calls, than the successful attempt of the same txid, and a key may
 * be updated several times per attempt. After every batch the stored values equal a plain fold of the successful
 * attempts, and a reader of the batch's own txid sees the values from before it.
 *
 * <p>A failed attempt touches only keys the successful attempt writes: a key written only by a failed attempt keeps
 * that attempt's value (the documented limit of the per-key protocol, pinned by
 * {@code OpaqueMapTest#shouldKeepAFailedAttemptsValueForAKeyTheSuccessfulAttemptDoesNotWrite}).
 */
class OpaqueMapProperties {
  private static final String TABLE = "counts";
  private static final List<String> KEYS = List.of("a", "b", "c", "d", "e", "f", "g", "h");

  /** An attempt that fails: its calls, the call whose multiPut fails, how many cells it writes, who retries. */
  record FailedAttempt(List<Map<String, Long>> calls, int callSeed, int cellsSeed, boolean restart) {
  }

  /** One batch: the calls of its successful attempt, after its failed attempts. */
  record Batch(List<Map<String, Long>> calls, List<FailedAttempt> failures) {
  }

  @Property(tries = 200)
  void shouldEqualAFoldOfTheSuccessfulAttemptsWhateverFailsAndIsRecut(@ForAll("schedules") List<Batch> schedule) {
    RecordingBackingMap<String, OpaqueValue<Long>> store = new RecordingBackingMap<>();
    OpaqueMap<String, Long> map = OpaqueMap.over(store, TABLE);
    Map<String, Long> model = new HashMap<>();
    long txid = 0;
    for (Batch batch : schedule) {
      txid++;
      int attempt = 0;
      for (FailedAttempt failure : batch.failures()) {
        map.begin(Epoch.of("test", new BatchAttempt(txid, ++attempt)));
        int failingCall = failure.callSeed() % failure.calls().size();
        for (int i = 0; i < failingCall; i++) {
          map.multiUpdate(updaters(failure.calls().get(i)));
        }
        Map<String, Long> failing = failure.calls().get(failingCall);
        store.failNextPutAfter(failure.cellsSeed() % (failing.size() + 1));
        try {
          map.multiUpdate(updaters(failing));
          throw new AssertionError("an opaque update writes every key, so the armed multiPut must fail");
        } catch (InjectedFailure expected) {
          // the attempt failed in the middle of its multiPut
        }
        if (failure.restart()) {
          map = OpaqueMap.over(store, TABLE);
        } else {
          map.abort();
        }
      }
      Map<String, Long> before = Map.copyOf(model);
      map.begin(Epoch.of("test", new BatchAttempt(txid, ++attempt)));
      for (Map<String, Long> call : batch.calls()) {
        Map<String, Long> expected = new HashMap<>();
        call.forEach((key, increment) -> expected.put(key, model.getOrDefault(key, 0L) + increment));
        assertEquals(expected, map.multiUpdate(updaters(call)));
        model.putAll(expected);
      }
      assertEquals(model, map.multiGet(KEYS), "read of batch " + txid + " in its epoch");
      map.end();

      assertEquals(model, read(OpaqueMap.over(store, TABLE), Epoch.readAfter("test", txid)),
          "store after batch " + txid);
      assertEquals(before, read(OpaqueMap.over(store, TABLE), Epoch.of("test", new BatchAttempt(txid, attempt + 1))),
          "a replay of batch " + txid);
      for (OpaqueValue<Long> cell : store.cells().values()) {
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
    Arbitrary<Map<String, Long>> call =
        Arbitraries.maps(Arbitraries.of(KEYS), increments()).ofMinSize(1).ofMaxSize(5);
    Arbitrary<Batch> batch = call.list().ofMinSize(1).ofMaxSize(3).flatMap(calls -> {
      List<String> touched = new ArrayList<>(new TreeSet<>(calls.stream().flatMap(c -> c.keySet().stream()).toList()));
      Arbitrary<Map<String, Long>> recutCall =
          Arbitraries.maps(Arbitraries.of(touched), increments()).ofMinSize(1).ofMaxSize(touched.size());
      Arbitrary<List<Map<String, Long>>> failedCalls =
          Arbitraries.oneOf(Arbitraries.just(calls), recutCall.list().ofMinSize(1).ofMaxSize(3));
      Arbitrary<FailedAttempt> failed = Combinators.combine(failedCalls, Arbitraries.integers().between(0, 100),
          Arbitraries.integers().between(0, 100), Arbitraries.of(true, false)).as(FailedAttempt::new);
      return failed.list().ofMaxSize(3).map(failures -> new Batch(calls, failures));
    });
    return batch.list().ofMinSize(1).ofMaxSize(8);
  }

  private static Arbitrary<Long> increments() {
    return Arbitraries.longs().between(-3, 10);
  }

  private static Map<String, ValueUpdater<Long>> updaters(Map<String, Long> increments) {
    Map<String, ValueUpdater<Long>> updaters = new LinkedHashMap<>();
    increments.forEach((key, increment) -> updaters.put(key, stored -> stored.orElse(0L) + increment));
    return updaters;
  }
}
