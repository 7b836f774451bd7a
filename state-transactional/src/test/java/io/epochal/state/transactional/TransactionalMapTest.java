package io.epochal.state.transactional;

import io.epochal.state.Epoch;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.MapState;
import io.epochal.spout.BatchAttempt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.epochal.errors.StateAheadException;
import io.epochal.state.RecordingBackingMap.InjectedFailure;
import io.epochal.state.StateKind;
import io.epochal.state.TxidMapTestBase;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TransactionalMapTest extends TxidMapTestBase<TransactionalValue<Long>, TransactionalMap<String, Long>> {

  TransactionalMapTest() {
    super("TransactionalMap", StateKind.TRANSACTIONAL, TransactionalMap::over, TransactionalMap::wrapped,
        TransactionalMap::tableName, TransactionalMap::factory, TransactionalMap::factory, TransactionalValue::new);
  }

  private static TransactionalValue<Long> cell(long value, long txid) {
    return new TransactionalValue<>(value, txid);
  }

  // multiGet, cell by cell

  @Test
  void shouldReadValueWrittenInThisAttemptWithoutReadingTheStore() {
    map.begin(Epoch.of("test", new BatchAttempt(2, 1)));
    map.multiUpdate(Map.of("a", plus(5)));
    store.forgetCalls();
    assertEquals(Map.of("a", 5L), map.multiGet(List.of("a")));
    assertEquals(List.of(), store.gets());
  }

  @Test
  void shouldReadOlderStoredValueInMultiGet() {
    store.seed("a", cell(7, 3));
    map.begin(Epoch.of("test", new BatchAttempt(4, 1)));
    assertEquals(Map.of("a", 7L), map.multiGet(List.of("a")));
  }

  @Test
  void shouldReadStoredValueOfTheSameBatchInMultiGet() {
    store.seed("a", cell(7, 4));
    map.begin(Epoch.of("test", new BatchAttempt(4, 1)));
    assertEquals(Map.of("a", 7L), map.multiGet(List.of("a")));
  }

  @Test
  void shouldThrowWhenStoredTxidIsAheadInMultiGet() {
    store.seed("a", cell(7, 9));
    map.begin(Epoch.of("test", new BatchAttempt(4, 1)));
    StateAheadException e = assertThrows(StateAheadException.class, () -> map.multiGet(List.of("b", "a")));
    assertAhead(e, "a", 9, 4);
  }

  // multiUpdate, cell by cell

  @Test
  void shouldWriteUpdateOfEmptyForAbsentKey() {
    List<Optional<Long>> seen = new ArrayList<>();
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    Map<String, Long> result = map.multiUpdate(Map.of("a", stored -> {
      seen.add(stored);
      return 10L;
    }));
    assertEquals(List.of(Optional.empty()), seen);
    assertEquals(Map.of("a", 10L), result);
    assertEquals(cell(10, 1), store.cell("a"));
  }

  @Test
  void shouldBuildOnValueWrittenEarlierInThisAttempt() {
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    assertEquals(Map.of("a", 1L), map.multiUpdate(Map.of("a", plus(1))));
    assertEquals(Map.of("a", 3L), map.multiUpdate(Map.of("a", plus(2))));
    assertEquals(cell(3, 1), store.cell("a"));
    assertEquals(List.of(Map.of("a", cell(1, 1)), Map.of("a", cell(3, 1))), store.puts());
  }

  @Test
  void shouldNotReadCachedKeysFromTheStore() {
    store.seed("b", cell(4, 1));
    map.begin(Epoch.of("test", new BatchAttempt(2, 1)));
    map.multiUpdate(Map.of("a", plus(1)));
    store.forgetCalls();
    map.multiUpdate(ordered("a", plus(1), "b", plus(1)));
    assertEquals(List.of(List.of("b")), store.gets());
  }

  @Test
  void shouldApplyToOlderStoredValue() {
    store.seed("a", cell(7, 3));
    map.begin(Epoch.of("test", new BatchAttempt(4, 1)));
    assertEquals(Map.of("a", 9L), map.multiUpdate(Map.of("a", plus(2))));
    assertEquals(cell(9, 4), store.cell("a"));
  }

  @Test
  void shouldSkipKeyStoredByTheSameBatchAndNotWriteIt() {
    store.seed("a", cell(7, 4)).seed("b", cell(1, 3));
    map.begin(Epoch.of("test", new BatchAttempt(4, 1)));
    Map<String, Long> result = map.multiUpdate(ordered("a", plus(2), "b", plus(2)));
    assertEquals(Map.of("a", 7L, "b", 3L), result);
    assertEquals(List.of(Map.of("b", cell(3, 4))), store.puts());
    assertEquals(cell(7, 4), store.cell("a"));
  }

  @Test
  void shouldNotCallUpdaterOfASkippedKey() {
    store.seed("a", cell(7, 4));
    map.begin(Epoch.of("test", new BatchAttempt(4, 1)));
    map.multiUpdate(Map.of("a", stored -> {
      throw new AssertionError("a skipped key's updater ran");
    }));
  }

  @Test
  void shouldMakeNoStoreWriteWhenEveryKeyIsSkipped() {
    store.seed("a", cell(7, 4));
    map.begin(Epoch.of("test", new BatchAttempt(4, 1)));
    map.multiUpdate(Map.of("a", plus(1)));
    assertEquals(List.of(), store.puts());
  }

  @Test
  void shouldThrowAndWriteNothingWhenStoredTxidIsAheadInMultiUpdate() {
    store.seed("a", cell(7, 9));
    map.begin(Epoch.of("test", new BatchAttempt(4, 1)));
    StateAheadException e = assertThrows(StateAheadException.class,
        () -> map.multiUpdate(ordered("b", plus(1), "a", plus(1))));
    assertAhead(e, "a", 9, 4);
    assertEquals(List.of(), store.puts());
    assertEquals(cell(7, 9), store.cell("a"));
  }

  // multiPut, cell by cell

  @Test
  void shouldPutAbsentKey() {
    map.begin(Epoch.of("test", new BatchAttempt(2, 1)));
    map.multiPut(Map.of("a", 5L));
    assertEquals(cell(5, 2), store.cell("a"));
  }

  @Test
  void shouldPutOverValueWrittenInThisAttemptWithoutReadingTheStore() {
    map.begin(Epoch.of("test", new BatchAttempt(2, 1)));
    map.multiUpdate(Map.of("a", plus(1)));
    store.forgetCalls();
    map.multiPut(Map.of("a", 5L));
    assertEquals(List.of(), store.gets());
    assertEquals(cell(5, 2), store.cell("a"));
    assertEquals(Map.of("a", 5L), map.multiGet(List.of("a")));
  }

  @Test
  void shouldPutOverOlderStoredValue() {
    store.seed("a", cell(7, 1));
    map.begin(Epoch.of("test", new BatchAttempt(2, 1)));
    map.multiPut(Map.of("a", 5L));
    assertEquals(cell(5, 2), store.cell("a"));
  }

  @Test
  void shouldPutOverStoredValueOfTheSameBatchWithoutSkipping() {
    store.seed("a", cell(7, 2));
    map.begin(Epoch.of("test", new BatchAttempt(2, 1)));
    map.multiPut(Map.of("a", 5L));
    assertEquals(cell(5, 2), store.cell("a"));
  }

  @Test
  void shouldThrowAndWriteNothingWhenStoredTxidIsAheadInMultiPut() {
    store.seed("a", cell(7, 3));
    map.begin(Epoch.of("test", new BatchAttempt(2, 1)));
    StateAheadException e = assertThrows(StateAheadException.class,
        () -> map.multiPut(ordered("b", 1L, "a", 1L)));
    assertAhead(e, "a", 3, 2);
    assertEquals(List.of(), store.puts());
  }

  // the per-attempt cache's lifecycle

  @Test
  void shouldServeReadsOfTheSameEpochFromTheAttemptAndRefuseThemAfterEnd() {
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    map.multiUpdate(Map.of("a", plus(1)));
    store.forgetCalls();
    assertEquals(Map.of("a", 1L), map.multiGet(List.of("a")));
    assertEquals(List.of(), store.gets());
    assertEquals(Map.of("a", 3L), map.multiUpdate(Map.of("a", plus(2))));
    map.end();
    assertThrows(IllegalStateException.class, () -> map.multiGet(List.of("a")));
    assertEquals(List.of(), store.gets());
  }

  @Test
  void shouldDropCacheOnAbortSoTheReplaySkipsWhatTheFailedAttemptWrote() {
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    map.multiUpdate(Map.of("a", plus(1)));
    map.abort();
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    assertEquals(Map.of("a", 1L), map.multiUpdate(Map.of("a", plus(1))));
    assertEquals(cell(1, 1), store.cell("a"));
  }

  @Test
  void shouldSkipOnReplayEveryUpdateOfAKeyThatAFailedAttemptWrote() {
    // The documented limit of the per-key skip: update a key at most once per batch.
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    map.multiUpdate(Map.of("a", plus(1)));
    map.abort();
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    assertEquals(Map.of("a", 1L), map.multiUpdate(Map.of("a", plus(1))));
    assertEquals(Map.of("a", 1L), map.multiUpdate(Map.of("a", plus(2))));
  }

  @Test
  void shouldNotServeCacheToAnotherEpoch() {
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    map.multiUpdate(Map.of("a", plus(1)));
    map.end();
    map.begin(Epoch.of("test", new BatchAttempt(2, 1)));
    store.forgetCalls();
    assertEquals(Map.of("a", 2L), map.multiUpdate(Map.of("a", plus(1))));
    assertEquals(List.of(List.of("a")), store.gets());
    assertEquals(cell(2, 2), store.cell("a"));
  }

  @Test
  void shouldNotCacheCellsOfAFailedPut() {
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    store.failNextPutAfter(1);
    assertThrows(InjectedFailure.class, () -> map.multiUpdate(Map.of("a", plus(1))));
    store.forgetCalls();
    assertEquals(Map.of("a", 1L), map.multiUpdate(Map.of("a", plus(1))));
    assertEquals(List.of(List.of("a")), store.gets());
    assertEquals(List.of(), store.puts());
  }

  @Test
  void shouldMakeOneStoreReadAndOneStoreWritePerCall() {
    store.seed("b", cell(1, 1)).seed("c", cell(1, 2));
    map.begin(Epoch.of("test", new BatchAttempt(2, 1)));
    map.multiUpdate(ordered("a", plus(1), "b", plus(1), "c", plus(1)));
    assertEquals(1, store.gets().size());
    assertEquals(Set.of("a", "b", "c"), Set.copyOf(store.gets().get(0)));
    assertEquals(List.of(Map.of("a", cell(1, 2), "b", cell(2, 2))), store.puts());
  }


  /** The README's "state lifecycle" snippet, verbatim (examples' ReadmeSnippetsTest compares it). */
  @Test
  void theReadmeLifecycleSnippetRuns() {
    // README begin state-lifecycle
    MapState<String, Long> counts = TransactionalMap.over(new InMemoryBackingMap<>(), "counts");
    counts.begin(Epoch.of("wc", new BatchAttempt(1, 1)));           // what the engine does for txid 1, attempt 1
    counts.multiUpdate(Map.of("a", stored -> stored.orElse(0L) + 1));
    counts.end();                                                    // applied; durable only with the epoch's commit
    counts.begin(Epoch.readAfter("wc", 1));                          // read-only: what is committed up to txid 1
    assertEquals(Map.of("a", 1L), counts.multiGet(List.of("a")));
    counts.end();
    // README end state-lifecycle
  }
}
