package io.epochal.state.opaque;

import io.epochal.state.Epoch;
import io.epochal.spout.BatchAttempt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.epochal.errors.StateAheadException;
import io.epochal.state.RecordingBackingMap.InjectedFailure;
import io.epochal.state.StateKind;
import io.epochal.state.TxidMapTestBase;
import io.epochal.state.ValueUpdater;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OpaqueMapTest extends TxidMapTestBase<OpaqueValue<Long>, OpaqueMap<String, Long>> {

  OpaqueMapTest() {
    super("OpaqueMap", StateKind.OPAQUE, OpaqueMap::over, OpaqueMap::wrapped, OpaqueMap::tableName, OpaqueMap::factory,
        OpaqueMap::factory, OpaqueValue::first);
  }

  private static ValueUpdater<Long> recordingPlus(long n, List<Optional<Long>> seen) {
    return stored -> {
      seen.add(stored);
      return stored.orElse(0L) + n;
    };
  }

  // multiGet, cell by cell

  @Test
  void shouldReadCurrWrittenInThisAttemptWithoutReadingTheStore() {
    store.seed("a", OpaqueValue.of(4L, 1L, 1));
    map.begin(Epoch.of("test", new BatchAttempt(2, 1)));
    map.multiUpdate(Map.of("a", plus(5)));
    store.forgetCalls();
    assertEquals(Map.of("a", 9L), map.multiGet(List.of("a")));
    assertEquals(List.of(), store.gets());
  }

  @Test
  void shouldReadCurrOfAnOlderCell() {
    store.seed("a", OpaqueValue.of(12L, 5L, 6));
    map.begin(Epoch.of("test", new BatchAttempt(7, 1)));
    assertEquals(Map.of("a", 12L), map.multiGet(List.of("a")));
  }

  @Test
  void shouldReadPrevOfACellWrittenByAnEarlierAttemptOfTheBatch() {
    store.seed("a", OpaqueValue.of(12L, 5L, 7));
    map.begin(Epoch.of("test", new BatchAttempt(7, 1)));
    assertEquals(Map.of("a", 5L), map.multiGet(List.of("a")));
  }

  @Test
  void shouldReportKeyFirstWrittenByAnEarlierAttemptAsMissing() {
    store.seed("a", OpaqueValue.first(12L, 7));
    map.begin(Epoch.of("test", new BatchAttempt(7, 1)));
    assertEquals(Map.of(), map.multiGet(List.of("a")));
  }

  @Test
  void shouldThrowWhenStoredTxidIsAheadInMultiGet() {
    store.seed("a", OpaqueValue.of(12L, 5L, 8));
    map.begin(Epoch.of("test", new BatchAttempt(7, 1)));
    StateAheadException e = assertThrows(StateAheadException.class, () -> map.multiGet(List.of("b", "a")));
    assertAhead(e, "a", 8, 7);
  }

  // multiUpdate, cell by cell

  @Test
  void shouldWriteAFirstCellForAnAbsentKey() {
    List<Optional<Long>> seen = new ArrayList<>();
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    assertEquals(Map.of("a", 3L), map.multiUpdate(Map.of("a", recordingPlus(3, seen))));
    assertEquals(List.of(Optional.empty()), seen);
    assertEquals(OpaqueValue.first(3L, 1), store.cell("a"));
  }

  @Test
  void shouldBuildOnCurrWrittenInThisAttemptAndKeepItsPrev() {
    store.seed("a", OpaqueValue.of(10L, 4L, 1));
    map.begin(Epoch.of("test", new BatchAttempt(2, 1)));
    assertEquals(Map.of("a", 11L), map.multiUpdate(Map.of("a", plus(1))));
    assertEquals(Map.of("a", 13L), map.multiUpdate(Map.of("a", plus(2))));
    assertEquals(OpaqueValue.of(13L, 10L, 2), store.cell("a"));
  }

  @Test
  void shouldBuildOnCurrWrittenInThisAttemptForAKeyWithoutPrev() {
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    map.multiUpdate(Map.of("a", plus(1)));
    assertEquals(Map.of("a", 3L), map.multiUpdate(Map.of("a", plus(2))));
    assertEquals(OpaqueValue.first(3L, 1), store.cell("a"));
  }

  @Test
  void shouldNotReadCachedKeysFromTheStore() {
    store.seed("b", OpaqueValue.first(4L, 1));
    map.begin(Epoch.of("test", new BatchAttempt(2, 1)));
    map.multiUpdate(Map.of("a", plus(1)));
    store.forgetCalls();
    map.multiUpdate(ordered("a", plus(1), "b", plus(1)));
    assertEquals(List.of(List.of("b")), store.gets());
  }

  @Test
  void shouldBuildOnCurrOfAnOlderCellAndMoveItToPrev() {
    List<Optional<Long>> seen = new ArrayList<>();
    store.seed("a", OpaqueValue.of(12L, 5L, 6));
    map.begin(Epoch.of("test", new BatchAttempt(7, 1)));
    assertEquals(Map.of("a", 14L), map.multiUpdate(Map.of("a", recordingPlus(2, seen))));
    assertEquals(List.of(Optional.of(12L)), seen);
    assertEquals(OpaqueValue.of(14L, 12L, 7), store.cell("a"));
  }

  @Test
  void shouldRecomputeFromPrevOnReplayAndWriteTheKey() {
    List<Optional<Long>> seen = new ArrayList<>();
    store.seed("a", OpaqueValue.of(12L, 5L, 7));
    map.begin(Epoch.of("test", new BatchAttempt(7, 1)));
    assertEquals(Map.of("a", 8L), map.multiUpdate(Map.of("a", recordingPlus(3, seen))));
    assertEquals(List.of(Optional.of(5L)), seen);
    assertEquals(List.of(Map.of("a", OpaqueValue.of(8L, 5L, 7))), store.puts());
  }

  @Test
  void shouldRecomputeFromNothingOnReplayOfAFirstWrite() {
    List<Optional<Long>> seen = new ArrayList<>();
    store.seed("a", OpaqueValue.first(12L, 7));
    map.begin(Epoch.of("test", new BatchAttempt(7, 1)));
    assertEquals(Map.of("a", 3L), map.multiUpdate(Map.of("a", recordingPlus(3, seen))));
    assertEquals(List.of(Optional.empty()), seen);
    assertEquals(OpaqueValue.first(3L, 7), store.cell("a"));
  }

  @Test
  void shouldWriteEveryGivenKey() {
    store.seed("a", OpaqueValue.of(1L, 0L, 1)).seed("b", OpaqueValue.of(1L, 0L, 2));
    map.begin(Epoch.of("test", new BatchAttempt(2, 1)));
    map.multiUpdate(ordered("a", plus(1), "b", plus(1), "c", plus(1)));
    assertEquals(1, store.puts().size());
    assertEquals(Set.of("a", "b", "c"), store.puts().get(0).keySet());
  }

  @Test
  void shouldThrowAndWriteNothingWhenStoredTxidIsAheadInMultiUpdate() {
    store.seed("a", OpaqueValue.of(12L, 5L, 8));
    map.begin(Epoch.of("test", new BatchAttempt(7, 1)));
    StateAheadException e = assertThrows(StateAheadException.class,
        () -> map.multiUpdate(ordered("b", plus(1), "a", plus(1))));
    assertAhead(e, "a", 8, 7);
    assertEquals(List.of(), store.puts());
    assertEquals(OpaqueValue.of(12L, 5L, 8), store.cell("a"));
  }

  // multiPut, cell by cell

  @Test
  void shouldPutAFirstCellForAnAbsentKey() {
    map.begin(Epoch.of("test", new BatchAttempt(2, 1)));
    map.multiPut(Map.of("a", 5L));
    assertEquals(OpaqueValue.first(5L, 2), store.cell("a"));
  }

  @Test
  void shouldPutOverCurrWrittenInThisAttemptKeepingItsPrevWithoutReadingTheStore() {
    store.seed("a", OpaqueValue.of(10L, 4L, 1));
    map.begin(Epoch.of("test", new BatchAttempt(2, 1)));
    map.multiUpdate(Map.of("a", plus(1)));
    store.forgetCalls();
    map.multiPut(Map.of("a", 5L));
    assertEquals(List.of(), store.gets());
    assertEquals(OpaqueValue.of(5L, 10L, 2), store.cell("a"));
    assertEquals(Map.of("a", 5L), map.multiGet(List.of("a")));
  }

  @Test
  void shouldPutOverAnOlderCellMovingCurrToPrev() {
    store.seed("a", OpaqueValue.of(12L, 5L, 6));
    map.begin(Epoch.of("test", new BatchAttempt(7, 1)));
    map.multiPut(Map.of("a", 1L));
    assertEquals(OpaqueValue.of(1L, 12L, 7), store.cell("a"));
  }

  @Test
  void shouldPutOverACellOfAnEarlierAttemptKeepingItsPrev() {
    store.seed("a", OpaqueValue.of(12L, 5L, 7)).seed("b", OpaqueValue.first(3L, 7));
    map.begin(Epoch.of("test", new BatchAttempt(7, 1)));
    map.multiPut(ordered("a", 1L, "b", 2L));
    assertEquals(OpaqueValue.of(1L, 5L, 7), store.cell("a"));
    assertEquals(OpaqueValue.first(2L, 7), store.cell("b"));
  }

  @Test
  void shouldThrowAndWriteNothingWhenStoredTxidIsAheadInMultiPut() {
    store.seed("a", OpaqueValue.of(12L, 5L, 8));
    map.begin(Epoch.of("test", new BatchAttempt(7, 1)));
    StateAheadException e = assertThrows(StateAheadException.class,
        () -> map.multiPut(ordered("b", 1L, "a", 1L)));
    assertAhead(e, "a", 8, 7);
    assertEquals(List.of(), store.puts());
  }

  // the per-attempt cache's lifecycle and replays

  @Test
  void shouldServeReadsOfTheSameEpochFromTheAttemptAndRefuseThemAfterEnd() {
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    map.multiUpdate(Map.of("a", plus(1)));
    store.forgetCalls();
    assertEquals(Map.of("a", 1L), map.multiGet(List.of("a")));
    assertEquals(List.of(), store.gets());
    map.end();
    assertThrows(IllegalStateException.class, () -> map.multiGet(List.of("a")));
    assertEquals(List.of(), store.gets());
  }

  @Test
  void shouldDropCacheOnAbortSoTheReplayRecomputesFromPrev() {
    store.seed("a", OpaqueValue.first(10L, 1));
    map.begin(Epoch.of("test", new BatchAttempt(2, 1)));
    map.multiUpdate(Map.of("a", plus(1)));
    map.multiUpdate(Map.of("a", plus(1)));
    map.abort();
    map.begin(Epoch.of("test", new BatchAttempt(2, 1)));
    assertEquals(Map.of("a", 10L), map.multiGet(List.of("a")));
    assertEquals(Map.of("a", 15L), map.multiUpdate(Map.of("a", plus(5))));
    assertEquals(OpaqueValue.of(15L, 10L, 2), store.cell("a"));
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
    assertEquals(OpaqueValue.of(2L, 1L, 2), store.cell("a"));
  }

  @Test
  void shouldNotCacheCellsOfAFailedPut() {
    store.seed("a", OpaqueValue.first(10L, 1));
    map.begin(Epoch.of("test", new BatchAttempt(2, 1)));
    store.failNextPutAfter(1);
    assertThrows(InjectedFailure.class, () -> map.multiUpdate(Map.of("a", plus(1))));
    store.forgetCalls();
    assertEquals(Map.of("a", 12L), map.multiUpdate(Map.of("a", plus(2))));
    assertEquals(List.of(List.of("a")), store.gets());
    assertEquals(OpaqueValue.of(12L, 10L, 2), store.cell("a"));
  }

  @Test
  void shouldKeepAFailedAttemptsValueForAKeyTheSuccessfulAttemptDoesNotWrite() {
    // The documented limit of the per-key protocol: a retry that skips a key cannot repair it.
    store.seed("a", OpaqueValue.first(10L, 1));
    map.begin(Epoch.of("test", new BatchAttempt(2, 1)));
    map.multiUpdate(Map.of("a", plus(1)));
    map.abort();
    map.begin(Epoch.of("test", new BatchAttempt(2, 2)));
    map.multiUpdate(Map.of("b", plus(1)));
    assertEquals(Map.of("a", 10L, "b", 1L), map.multiGet(List.of("a", "b")));
    map.end();
    map.begin(Epoch.readAfter("test", 2));
    assertEquals(Map.of("a", 11L, "b", 1L), map.multiGet(List.of("a", "b")));
    map.end();
  }

  @Test
  void shouldMakeOneStoreReadAndOneStoreWritePerCall() {
    store.seed("b", OpaqueValue.first(1L, 1)).seed("c", OpaqueValue.of(1L, 0L, 2));
    map.begin(Epoch.of("test", new BatchAttempt(2, 1)));
    map.multiUpdate(ordered("a", plus(1), "b", plus(1), "c", plus(1)));
    assertEquals(1, store.gets().size());
    assertEquals(Set.of("a", "b", "c"), Set.copyOf(store.gets().get(0)));
    assertEquals(List.of(Map.of("a", OpaqueValue.first(1L, 2), "b", OpaqueValue.of(2L, 1L, 2),
        "c", OpaqueValue.of(1L, 0L, 2))), store.puts());
  }

}
