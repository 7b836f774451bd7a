package io.epochal.state.transactional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.StateAheadException;
import io.epochal.state.MapState;
import io.epochal.state.StateContext;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;
import io.epochal.state.ValueUpdater;
import io.epochal.state.transactional.RecordingBackingMap.InjectedFailure;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TransactionalMapTest {
  private static final String TABLE = "counts";

  private final RecordingBackingMap<String, TransactionalValue<Long>> store = new RecordingBackingMap<>();
  private final TransactionalMap<String, Long> map = TransactionalMap.over(store, TABLE);

  private static ValueUpdater<Long> plus(long n) {
    return stored -> stored.orElse(0L) + n;
  }

  private static TransactionalValue<Long> cell(long value, long txid) {
    return new TransactionalValue<>(value, txid);
  }

  private static void assertAhead(StateAheadException e, String key, long stored, long batch) {
    assertEquals(TABLE, e.table());
    assertEquals(key, e.key());
    assertEquals(stored, e.storedTxid());
    assertEquals(batch, e.batchTxid());
    assertTrue(e.getMessage().contains("'" + TABLE + "'") && e.getMessage().contains("'" + key + "'")
        && e.getMessage().contains("txid " + stored) && e.getMessage().contains("txid " + batch), e.getMessage());
  }

  // multiGet, cell by cell

  @Test
  void shouldReportAbsentKeyAsMissingInMultiGet() {
    map.beginCommit(1);
    assertEquals(Map.of(), map.multiGet(1, List.of("a")));
  }

  @Test
  void shouldReadValueWrittenInThisAttemptWithoutReadingTheStore() {
    map.beginCommit(2);
    map.multiUpdate(2, Map.of("a", plus(5)));
    store.forgetCalls();
    assertEquals(Map.of("a", 5L), map.multiGet(2, List.of("a")));
    assertEquals(List.of(), store.gets());
  }

  @Test
  void shouldReadOlderStoredValueInMultiGet() {
    store.seed("a", cell(7, 3));
    map.beginCommit(4);
    assertEquals(Map.of("a", 7L), map.multiGet(4, List.of("a")));
  }

  @Test
  void shouldReadStoredValueOfTheSameBatchInMultiGet() {
    store.seed("a", cell(7, 4));
    map.beginCommit(4);
    assertEquals(Map.of("a", 7L), map.multiGet(4, List.of("a")));
  }

  @Test
  void shouldThrowWhenStoredTxidIsAheadInMultiGet() {
    store.seed("a", cell(7, 9));
    map.beginCommit(4);
    StateAheadException e = assertThrows(StateAheadException.class, () -> map.multiGet(4, List.of("b", "a")));
    assertAhead(e, "a", 9, 4);
  }

  // multiUpdate, cell by cell

  @Test
  void shouldWriteUpdateOfEmptyForAbsentKey() {
    List<Optional<Long>> seen = new ArrayList<>();
    map.beginCommit(1);
    Map<String, Long> result = map.multiUpdate(1, Map.of("a", stored -> {
      seen.add(stored);
      return 10L;
    }));
    assertEquals(List.of(Optional.empty()), seen);
    assertEquals(Map.of("a", 10L), result);
    assertEquals(cell(10, 1), store.cell("a"));
  }

  @Test
  void shouldBuildOnValueWrittenEarlierInThisAttempt() {
    map.beginCommit(1);
    assertEquals(Map.of("a", 1L), map.multiUpdate(1, Map.of("a", plus(1))));
    assertEquals(Map.of("a", 3L), map.multiUpdate(1, Map.of("a", plus(2))));
    assertEquals(cell(3, 1), store.cell("a"));
    assertEquals(List.of(Map.of("a", cell(1, 1)), Map.of("a", cell(3, 1))), store.puts());
  }

  @Test
  void shouldNotReadCachedKeysFromTheStore() {
    store.seed("b", cell(4, 1));
    map.beginCommit(2);
    map.multiUpdate(2, Map.of("a", plus(1)));
    store.forgetCalls();
    map.multiUpdate(2, ordered("a", plus(1), "b", plus(1)));
    assertEquals(List.of(List.of("b")), store.gets());
  }

  @Test
  void shouldApplyToOlderStoredValue() {
    store.seed("a", cell(7, 3));
    map.beginCommit(4);
    assertEquals(Map.of("a", 9L), map.multiUpdate(4, Map.of("a", plus(2))));
    assertEquals(cell(9, 4), store.cell("a"));
  }

  @Test
  void shouldSkipKeyStoredByTheSameBatchAndNotWriteIt() {
    store.seed("a", cell(7, 4)).seed("b", cell(1, 3));
    map.beginCommit(4);
    Map<String, Long> result = map.multiUpdate(4, ordered("a", plus(2), "b", plus(2)));
    assertEquals(Map.of("a", 7L, "b", 3L), result);
    assertEquals(List.of(Map.of("b", cell(3, 4))), store.puts());
    assertEquals(cell(7, 4), store.cell("a"));
  }

  @Test
  void shouldNotCallUpdaterOfASkippedKey() {
    store.seed("a", cell(7, 4));
    map.beginCommit(4);
    map.multiUpdate(4, Map.of("a", stored -> {
      throw new AssertionError("a skipped key's updater ran");
    }));
  }

  @Test
  void shouldMakeNoStoreWriteWhenEveryKeyIsSkipped() {
    store.seed("a", cell(7, 4));
    map.beginCommit(4);
    map.multiUpdate(4, Map.of("a", plus(1)));
    assertEquals(List.of(), store.puts());
  }

  @Test
  void shouldThrowAndWriteNothingWhenStoredTxidIsAheadInMultiUpdate() {
    store.seed("a", cell(7, 9));
    map.beginCommit(4);
    StateAheadException e = assertThrows(StateAheadException.class,
        () -> map.multiUpdate(4, ordered("b", plus(1), "a", plus(1))));
    assertAhead(e, "a", 9, 4);
    assertEquals(List.of(), store.puts());
    assertEquals(cell(7, 9), store.cell("a"));
  }

  // multiPut, cell by cell

  @Test
  void shouldPutAbsentKey() {
    map.beginCommit(2);
    map.multiPut(2, Map.of("a", 5L));
    assertEquals(cell(5, 2), store.cell("a"));
  }

  @Test
  void shouldPutOverValueWrittenInThisAttemptWithoutReadingTheStore() {
    map.beginCommit(2);
    map.multiUpdate(2, Map.of("a", plus(1)));
    store.forgetCalls();
    map.multiPut(2, Map.of("a", 5L));
    assertEquals(List.of(), store.gets());
    assertEquals(cell(5, 2), store.cell("a"));
    assertEquals(Map.of("a", 5L), map.multiGet(2, List.of("a")));
  }

  @Test
  void shouldPutOverOlderStoredValue() {
    store.seed("a", cell(7, 1));
    map.beginCommit(2);
    map.multiPut(2, Map.of("a", 5L));
    assertEquals(cell(5, 2), store.cell("a"));
  }

  @Test
  void shouldPutOverStoredValueOfTheSameBatchWithoutSkipping() {
    store.seed("a", cell(7, 2));
    map.beginCommit(2);
    map.multiPut(2, Map.of("a", 5L));
    assertEquals(cell(5, 2), store.cell("a"));
  }

  @Test
  void shouldThrowAndWriteNothingWhenStoredTxidIsAheadInMultiPut() {
    store.seed("a", cell(7, 3));
    map.beginCommit(2);
    StateAheadException e = assertThrows(StateAheadException.class,
        () -> map.multiPut(2, ordered("b", 1L, "a", 1L)));
    assertAhead(e, "a", 3, 2);
    assertEquals(List.of(), store.puts());
  }

  // the per-attempt cache's lifecycle

  @Test
  void shouldKeepCacheAfterCommitSoReadsOfTheSameBatchSeeTheAttempt() {
    map.beginCommit(1);
    map.multiUpdate(1, Map.of("a", plus(1)));
    map.commit(1);
    store.forgetCalls();
    assertEquals(Map.of("a", 1L), map.multiGet(1, List.of("a")));
    assertEquals(List.of(), store.gets());
    assertEquals(Map.of("a", 3L), map.multiUpdate(1, Map.of("a", plus(2))));
  }

  @Test
  void shouldDropCacheOnAbortSoTheReplaySkipsWhatTheFailedAttemptWrote() {
    map.beginCommit(1);
    map.multiUpdate(1, Map.of("a", plus(1)));
    map.abort(1);
    map.beginCommit(1);
    assertEquals(Map.of("a", 1L), map.multiUpdate(1, Map.of("a", plus(1))));
    assertEquals(cell(1, 1), store.cell("a"));
  }

  @Test
  void shouldSkipOnReplayEveryUpdateOfAKeyThatAFailedAttemptWrote() {
    // The documented limit of the per-key skip: update a key at most once per batch.
    map.beginCommit(1);
    map.multiUpdate(1, Map.of("a", plus(1)));
    map.abort(1);
    map.beginCommit(1);
    assertEquals(Map.of("a", 1L), map.multiUpdate(1, Map.of("a", plus(1))));
    assertEquals(Map.of("a", 1L), map.multiUpdate(1, Map.of("a", plus(2))));
  }

  @Test
  void shouldDropCacheOnAbortEvenWithoutANewBeginCommit() {
    map.beginCommit(1);
    map.multiUpdate(1, Map.of("a", plus(1)));
    map.abort(1);
    assertEquals(Map.of("a", 1L), map.multiUpdate(1, Map.of("a", plus(1))));
  }

  @Test
  void shouldDropCacheOnBeginCommit() {
    map.beginCommit(1);
    map.multiUpdate(1, Map.of("a", plus(1)));
    map.beginCommit(1);
    assertEquals(Map.of("a", 1L), map.multiUpdate(1, Map.of("a", plus(1))));
  }

  @Test
  void shouldNotServeCacheToACallForAnotherTxid() {
    map.beginCommit(1);
    map.multiUpdate(1, Map.of("a", plus(1)));
    store.forgetCalls();
    assertEquals(Map.of("a", 2L), map.multiUpdate(2, Map.of("a", plus(1))));
    assertEquals(List.of(List.of("a")), store.gets());
    assertEquals(cell(2, 2), store.cell("a"));
  }

  @Test
  void shouldNotCacheCellsOfAFailedPut() {
    map.beginCommit(1);
    store.failNextPutAfter(1);
    assertThrows(InjectedFailure.class, () -> map.multiUpdate(1, Map.of("a", plus(1))));
    store.forgetCalls();
    assertEquals(Map.of("a", 1L), map.multiUpdate(1, Map.of("a", plus(1))));
    assertEquals(List.of(List.of("a")), store.gets());
    assertEquals(List.of(), store.puts());
  }

  @Test
  void shouldMakeOneStoreReadAndOneStoreWritePerCall() {
    store.seed("b", cell(1, 1)).seed("c", cell(1, 2));
    map.beginCommit(2);
    map.multiUpdate(2, ordered("a", plus(1), "b", plus(1), "c", plus(1)));
    assertEquals(1, store.gets().size());
    assertEquals(Set.of("a", "b", "c"), Set.copyOf(store.gets().get(0)));
    assertEquals(List.of(Map.of("a", cell(1, 2), "b", cell(2, 2))), store.puts());
  }

  @Test
  void shouldMakeNoStoreReadWhenEveryKeyIsCached() {
    map.beginCommit(1);
    map.multiUpdate(1, Map.of("a", plus(1)));
    store.forgetCalls();
    map.multiUpdate(1, Map.of("a", plus(1)));
    map.multiPut(1, Map.of("a", 1L));
    map.multiGet(1, List.of("a"));
    assertEquals(List.of(), store.gets());
  }

  @Test
  void shouldWorkWithoutBeginCommit() {
    assertEquals(Map.of("a", 1L), map.multiUpdate(1, Map.of("a", plus(1))));
    assertEquals(Map.of("a", 3L), map.multiUpdate(1, Map.of("a", plus(2))));
  }

  // results, nulls and arguments

  @Test
  void shouldReturnUnmodifiableMaps() {
    map.beginCommit(1);
    Map<String, Long> updated = map.multiUpdate(1, Map.of("a", plus(1)));
    Map<String, Long> read = map.multiGet(1, List.of("a"));
    assertThrows(UnsupportedOperationException.class, () -> updated.put("x", 1L));
    assertThrows(UnsupportedOperationException.class, () -> read.put("x", 1L));
  }

  @Test
  void shouldRejectNullArguments() {
    assertEquals("keys", assertThrows(NullPointerException.class, () -> map.multiGet(1, null)).getMessage());
    assertEquals("updaters", assertThrows(NullPointerException.class, () -> map.multiUpdate(1, null)).getMessage());
    assertEquals("values", assertThrows(NullPointerException.class, () -> map.multiPut(1, null)).getMessage());
  }

  @Test
  void shouldRejectNullKeysBeforeTouchingTheStore() {
    Map<String, ValueUpdater<Long>> updaters = new HashMap<>();
    updaters.put(null, plus(1));
    Map<String, Long> values = new HashMap<>();
    values.put(null, 1L);
    assertEquals("key", assertThrows(NullPointerException.class,
        () -> map.multiGet(1, Arrays.asList("a", null))).getMessage());
    assertEquals("key", assertThrows(NullPointerException.class, () -> map.multiUpdate(1, updaters)).getMessage());
    assertEquals("key", assertThrows(NullPointerException.class, () -> map.multiPut(1, values)).getMessage());
    assertEquals(List.of(), store.gets());
    assertEquals(List.of(), store.puts());
  }

  @Test
  void shouldRejectNullUpdaterAndNullValueWritingNothing() {
    Map<String, ValueUpdater<Long>> updaters = new HashMap<>();
    updaters.put("a", null);
    Map<String, Long> values = new HashMap<>();
    values.put("a", null);
    assertEquals("updater", assertThrows(NullPointerException.class, () -> map.multiUpdate(1, updaters)).getMessage());
    assertEquals("value", assertThrows(NullPointerException.class, () -> map.multiPut(1, values)).getMessage());
    assertEquals(List.of(), store.puts());
  }

  @Test
  void shouldRejectUpdaterReturningNullNamingKeyAndTable() {
    NullPointerException e = assertThrows(NullPointerException.class,
        () -> map.multiUpdate(1, Map.of("a", stored -> null)));
    assertEquals("updater returned null for key 'a' of table 'counts'", e.getMessage());
    assertEquals(List.of(), store.puts());
  }

  @Test
  void shouldRejectTxidBelowOne() {
    assertThrows(IllegalArgumentException.class, () -> map.beginCommit(0));
    assertThrows(IllegalArgumentException.class, () -> map.multiGet(0, List.of("a")));
    assertThrows(IllegalArgumentException.class, () -> map.multiUpdate(-1, Map.of("a", plus(1))));
    assertThrows(IllegalArgumentException.class, () -> map.multiPut(0, Map.of("a", 1L)));
  }

  @Test
  void shouldRejectNullStoreOrTableName() {
    assertThrows(NullPointerException.class, () -> TransactionalMap.over(null, TABLE));
    assertThrows(NullPointerException.class, () -> TransactionalMap.over(store, null));
  }

  @Test
  void shouldExposeWrappedStoreAndTable() {
    assertSame(store, map.wrapped());
    assertEquals(TABLE, map.tableName());
    assertEquals("TransactionalMap[counts over recording-store]", map.toString());
  }

  // factories

  @Test
  void shouldMakeTransactionalMapsOverOneStoreNamedAfterTheState() {
    StateFactory<MapState<String, Long>> factory = TransactionalMap.factory(store);
    assertEquals(StateKind.TRANSACTIONAL, factory.kind());
    assertEquals("TransactionalMap over recording-store", factory.describe());
    MapState<String, Long> p0 = factory.makeState(new StateContext("wc", "word-counts", 0, 2));
    MapState<String, Long> p1 = factory.makeState(new StateContext("wc", "word-counts", 1, 2));
    p0.multiUpdate(1, Map.of("a", plus(1)));
    p1.multiUpdate(1, Map.of("b", plus(1)));
    assertEquals(Set.of("a", "b"), store.cells().keySet());
    store.seed("c", cell(1, 5));
    StateAheadException e = assertThrows(StateAheadException.class, () -> p1.multiGet(2, List.of("c")));
    assertEquals("word-counts", e.table());
  }

  @Test
  void shouldMakeOneMapPerPartitionOverTheStoreTheFunctionGives() {
    List<RecordingBackingMap<String, TransactionalValue<Long>>> stores =
        List.of(new RecordingBackingMap<>(), new RecordingBackingMap<>());
    StateFactory<MapState<String, Long>> factory =
        TransactionalMap.factory(context -> stores.get(context.partitionIndex()));
    assertEquals(StateKind.TRANSACTIONAL, factory.kind());
    assertTrue(factory.describe().startsWith("TransactionalMap over"), factory.describe());
    factory.makeState(new StateContext("wc", "words", 1, 2)).multiUpdate(1, Map.of("a", plus(1)));
    assertEquals(Map.of(), stores.get(0).cells());
    assertEquals(Map.of("a", cell(1, 1)), stores.get(1).cells());
  }

  @Test
  void shouldRejectNullFromTheStoreFunction() {
    StateFactory<MapState<String, Long>> factory = TransactionalMap.factory(context -> null);
    NullPointerException e = assertThrows(NullPointerException.class,
        () -> factory.makeState(new StateContext("wc", "words", 0, 1)));
    assertTrue(e.getMessage().contains("words"), e.getMessage());
    assertThrows(NullPointerException.class,
        () -> TransactionalMap.factory((RecordingBackingMap<String, TransactionalValue<Long>>) null));
  }

  /** A map iterating in the given order (so "the key before the ahead key" is well defined). */
  private static <V> Map<String, V> ordered(String k1, V v1, String k2, V v2) {
    Map<String, V> map = new LinkedHashMap<>();
    map.put(k1, v1);
    map.put(k2, v2);
    return map;
  }

  private static <V> Map<String, V> ordered(String k1, V v1, String k2, V v2, String k3, V v3) {
    Map<String, V> map = ordered(k1, v1, k2, v2);
    map.put(k3, v3);
    return map;
  }
}
