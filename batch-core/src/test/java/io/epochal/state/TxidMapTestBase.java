package io.epochal.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.EpochalException;
import io.epochal.errors.InvalidRecordException;
import io.epochal.errors.StateAheadException;
import io.epochal.spout.BatchAttempt;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The tests that {@code TransactionalMapTest} and {@code OpaqueMapTest} share, because both maps behave the same
 * there whatever their txid rule: the per-attempt cache's lifecycle where no stored txid is involved, the number of
 * store calls, results, nulls and arguments, the wrapped store and table, and the factories. A subclass adds the
 * tests of its own rule and gives the base, through its constructor, the map class's methods and its first cell.
 * Shared through the batch-core test-jar.
 *
 * @param <C> the stored cell type
 * @param <M> the map type
 */
public abstract class TxidMapTestBase<C, M extends MapState<String, Long>> {
  protected static final String TABLE = "counts";

  /** Makes the cell that the first write of {@code value} to a key stores for batch {@code txid}. */
  @FunctionalInterface
  protected interface FirstCell<C> {
    C of(long value, long txid);
  }

  private final String mapName;
  private final StateKind kind;
  private final BiFunction<IBackingMap<String, C>, String, M> over;
  private final Function<M, IBackingMap<String, C>> wrapped;
  private final Function<M, String> tableName;
  private final Function<IBackingMap<String, C>, StateFactory<MapState<String, Long>>> factory;
  private final Function<Function<StateContext, IBackingMap<String, C>>, StateFactory<MapState<String, Long>>>
      factoryPerPartition;
  private final FirstCell<C> firstCell;

  protected final RecordingBackingMap<String, C> store = new RecordingBackingMap<>();
  protected final M map;

  /**
   * @param mapName the map's class name, which starts its {@code toString()} and its factories' descriptions
   * @param kind the kind its factories declare
   * @param over the map class's {@code over(backing, tableName)}
   * @param wrapped the map's {@code wrapped()}
   * @param tableName the map's {@code tableName()}
   * @param factory the map class's {@code factory(IBackingMap)}
   * @param factoryPerPartition the map class's {@code factory(Function)}
   * @param firstCell the cell a first write stores
   */
  protected TxidMapTestBase(String mapName, StateKind kind, BiFunction<IBackingMap<String, C>, String, M> over,
      Function<M, IBackingMap<String, C>> wrapped, Function<M, String> tableName,
      Function<IBackingMap<String, C>, StateFactory<MapState<String, Long>>> factory,
      Function<Function<StateContext, IBackingMap<String, C>>, StateFactory<MapState<String, Long>>>
          factoryPerPartition,
      FirstCell<C> firstCell) {
    this.mapName = mapName;
    this.kind = kind;
    this.over = over;
    this.wrapped = wrapped;
    this.tableName = tableName;
    this.factory = factory;
    this.factoryPerPartition = factoryPerPartition;
    this.firstCell = firstCell;
    this.map = over.apply(store, TABLE);
  }

  protected static ValueUpdater<Long> plus(long n) {
    return stored -> stored.orElse(0L) + n;
  }

  protected static void assertAhead(StateAheadException e, String key, long stored, long batch) {
    assertEquals(TABLE, e.table());
    assertEquals(key, e.key());
    assertEquals(stored, e.storedTxid());
    assertEquals(batch, e.batchTxid());
    assertFalse(e.retryable(), "a stored txid ahead of the batch is not fixed by a retry");
  }

  /** A map iterating in the given order (so "the key before the ahead key" is well defined). */
  protected static <V> Map<String, V> ordered(String k1, V v1, String k2, V v2) {
    Map<String, V> map = new LinkedHashMap<>();
    map.put(k1, v1);
    map.put(k2, v2);
    return map;
  }

  protected static <V> Map<String, V> ordered(String k1, V v1, String k2, V v2, String k3, V v3) {
    Map<String, V> map = ordered(k1, v1, k2, v2);
    map.put(k3, v3);
    return map;
  }

  @Test
  public void shouldIterateUpdatedValuesInTheUpdatersOrderWhetherOrNotKeysWereSkipped() {
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    assertEquals(List.of("z", "a", "m"),
        new java.util.ArrayList<>(map.multiUpdate(ordered("z", plus(1), "a", plus(2), "m", plus(3))).keySet()));
    map.end();
    // a replay of txid 1: the transactional rule skips the cells it wrote, the opaque one recomputes them
    map.begin(Epoch.of("test", new BatchAttempt(1, 2)));
    Map<String, ValueUpdater<Long>> again = ordered("q", plus(1), "z", plus(1), "a", plus(2));
    again.put("m", plus(3));
    Map<String, Long> updated = map.multiUpdate(again);
    assertEquals(List.of("q", "z", "a", "m"), new java.util.ArrayList<>(updated.keySet()));
    assertEquals(List.of(1L, 1L, 2L, 3L), new java.util.ArrayList<>(updated.values()));
    assertEquals(Map.of("q", 1L, "z", 1L, "a", 2L, "m", 3L), updated);
    map.end();
  }

  // multiGet

  @Test
  public void shouldReportAbsentKeyAsMissingInMultiGet() {
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    assertEquals(Map.of(), map.multiGet(List.of("a")));
  }

  // the per-attempt cache's lifecycle

  @Test
  public void shouldDropCacheOnAbort() {
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    map.multiUpdate(Map.of("a", plus(1)));
    map.abort();
    assertThrows(IllegalStateException.class, () -> map.multiUpdate(Map.of("a", plus(1))), "no epoch after abort");
    map.begin(Epoch.of("test", new BatchAttempt(1, 2)));
    assertEquals(Map.of("a", 1L), map.multiUpdate(Map.of("a", plus(1))));
  }

  @Test
  public void shouldDropCacheOnBeginCommit() {
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    map.multiUpdate(Map.of("a", plus(1)));
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    assertEquals(Map.of("a", 1L), map.multiUpdate(Map.of("a", plus(1))));
  }

  @Test
  public void shouldMakeNoStoreReadWhenEveryKeyIsCached() {
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    map.multiUpdate(Map.of("a", plus(1)));
    store.forgetCalls();
    map.multiUpdate(Map.of("a", plus(1)));
    map.multiPut(Map.of("a", 1L));
    map.multiGet(List.of("a"));
    assertEquals(List.of(), store.gets());
  }

  @Test
  public void shouldRefuseEveryCallOutsideBeginAndEndBeforeTouchingTheStore() {
    for (int round = 0; round < 2; round++) {
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> map.multiGet(List.of("a")));
      assertTrue(e.getMessage().contains("outside begin(epoch)..end()"), e.getMessage());
      assertThrows(IllegalStateException.class, () -> map.multiUpdate(Map.of("a", plus(1))));
      assertThrows(IllegalStateException.class, () -> map.multiPut(Map.of("a", 1L)));
      map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
      map.end();
    }
    assertEquals(List.of(), store.gets());
    assertEquals(List.of(), store.puts());
  }

  @Test
  public void shouldReadCommittedValuesInAReadOnlyEpochAndRefuseWritesThere() {
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    map.multiUpdate(Map.of("a", plus(2)));
    map.end();
    map.begin(Epoch.readAfter("test", 1));
    assertEquals(Map.of("a", 2L), map.multiGet(List.of("a")));
    store.forgetCalls();
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> map.multiUpdate(Map.of("a", plus(1))));
    assertTrue(e.getMessage().contains("read-only"), e.getMessage());
    assertThrows(IllegalStateException.class, () -> map.multiPut(Map.of("a", 1L)));
    map.end();
    assertEquals(List.of(), store.puts());
  }

  // results, nulls and arguments

  @Test
  public void shouldReturnUnmodifiableMaps() {
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    Map<String, Long> updated = map.multiUpdate(Map.of("a", plus(1)));
    Map<String, Long> read = map.multiGet(List.of("a"));
    assertThrows(UnsupportedOperationException.class, () -> updated.put("x", 1L));
    assertThrows(UnsupportedOperationException.class, () -> read.put("x", 1L));
  }

  @Test
  public void shouldRejectNullArguments() {
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    assertEquals("keys", assertThrows(NullPointerException.class, () -> map.multiGet(null)).getMessage());
    assertEquals("updaters", assertThrows(NullPointerException.class, () -> map.multiUpdate(null)).getMessage());
    assertEquals("values", assertThrows(NullPointerException.class, () -> map.multiPut(null)).getMessage());
  }

  /** Null keys are bad records (finding 5/11: not an NPE, which the engine would retry). */
  @Test
  public void shouldRejectNullKeysBeforeTouchingTheStore() {
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    Map<String, ValueUpdater<Long>> updaters = new HashMap<>();
    updaters.put(null, plus(1));
    Map<String, Long> values = new HashMap<>();
    values.put(null, 1L);
    for (InvalidRecordException e : List.of(
        assertThrows(InvalidRecordException.class, () -> map.multiGet(Arrays.asList("a", null))),
        assertThrows(InvalidRecordException.class, () -> map.multiUpdate(updaters)),
        assertThrows(InvalidRecordException.class, () -> map.multiPut(values)))) {
      assertTrue(e.getMessage().contains("null key"), e.getMessage());
      assertEquals(Optional.of(TABLE), e.context().table());
      assertFalse(EpochalException.isRetryable(e));
    }
    assertEquals(List.of(), store.gets());
    assertEquals(List.of(), store.puts());
  }

  /** Finding 6: a key compared by identity would make equal-looking keys two cells. */
  @Test
  public void shouldRejectKeysWithoutValueEqualityBeforeTouchingTheStore() {
    @SuppressWarnings({"unchecked", "rawtypes"})
    MapState<Object, Long> raw = (MapState) map;
    raw.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    for (Object key : new Object[] {new byte[] {1}, new StringBuilder("a"), List.of("a", new byte[] {1})}) {
      InvalidRecordException e = assertThrows(InvalidRecordException.class,
          () -> raw.multiUpdate(Map.of(key, stored -> 1L)));
      assertTrue(e.getMessage().contains("identity"), e.getMessage());
      assertEquals(Optional.of(TABLE), e.context().table());
      assertThrows(InvalidRecordException.class, () -> raw.multiGet(List.of(key)));
      assertThrows(InvalidRecordException.class, () -> raw.multiPut(Map.of(key, 1L)));
    }
    assertEquals(List.of(), store.gets());
    assertEquals(List.of(), store.puts());
  }

  @Test
  public void shouldRejectNullUpdaterAndNullValueWritingNothing() {
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    Map<String, ValueUpdater<Long>> updaters = new HashMap<>();
    updaters.put("a", null);
    Map<String, Long> values = new HashMap<>();
    values.put("a", null);
    assertEquals("updater", assertThrows(NullPointerException.class, () -> map.multiUpdate(updaters)).getMessage());
    InvalidRecordException e = assertThrows(InvalidRecordException.class, () -> map.multiPut(values));
    assertEquals(Optional.of("counts"), e.context().table());
    assertEquals(Optional.of("a"), e.context().key());
    assertEquals(OptionalLong.of(1), e.context().txid());
    assertFalse(e.retryable());
    assertEquals(List.of(), store.puts());
  }

  /** Finding 5: an updater's null was a (retried) NullPointerException; it is a fatal error naming table, key, txid. */
  @Test
  public void shouldRejectUpdaterReturningNullNamingKeyTableAndTxid() {
    map.begin(Epoch.of("test", new BatchAttempt(3, 1)));
    InvalidRecordException e = assertThrows(InvalidRecordException.class,
        () -> map.multiUpdate(Map.of("a", stored -> null)));
    assertTrue(e.getMessage().startsWith("updater returned null for key 'a' of table 'counts' (txid 3)"),
        e.getMessage());
    assertEquals(Optional.of(TABLE), e.context().table());
    assertEquals(Optional.of("a"), e.context().key());
    assertEquals(OptionalLong.of(3), e.context().txid());
    assertFalse(e.retryable());
    assertEquals(List.of(), store.puts());
  }

  /** The txid is checked once, where the epoch is made; the map trusts its epoch. */
  @Test
  public void shouldRejectTxidBelowOneWhereTheEpochIsMade() {
    assertThrows(IllegalArgumentException.class, () -> new BatchAttempt(0, 1));
    assertThrows(IllegalArgumentException.class, () -> Epoch.readAfter("test", -1));
    assertThrows(NullPointerException.class, () -> map.begin(null));
  }

  @Test
  public void shouldRejectNullStoreOrTableName() {
    assertThrows(NullPointerException.class, () -> over.apply(null, TABLE));
    assertThrows(NullPointerException.class, () -> over.apply(store, null));
  }

  @Test
  public void shouldExposeWrappedStoreAndTable() {
    assertSame(store, wrapped.apply(map));
    assertEquals(TABLE, tableName.apply(map));
    assertEquals(mapName + "[counts over recording-store]", map.toString());
  }

  // factories

  @Test
  public void shouldMakeMapsOverOneStoreNamedAfterTheState() {
    StateFactory<MapState<String, Long>> factory = this.factory.apply(store);
    assertEquals(kind, factory.kind());
    assertEquals(mapName + " over recording-store", factory.describe());
    MapState<String, Long> p0 = factory.makeState(new StateContext("wc", "word-counts", 0, 2));
    MapState<String, Long> p1 = factory.makeState(new StateContext("wc", "word-counts", 1, 2));
    p0.begin(Epoch.of("wc", new BatchAttempt(1, 1)));
    p1.begin(Epoch.of("wc", new BatchAttempt(1, 1)));
    p0.multiUpdate(Map.of("a", plus(1)));
    p1.multiUpdate(Map.of("b", plus(1)));
    assertEquals(Set.of("a", "b"), store.cells().keySet());
    store.seed("c", firstCell.of(1, 5));
    StateAheadException e = assertThrows(StateAheadException.class, () -> p1.multiGet(List.of("c")));
    assertEquals("word-counts", e.table());
  }

  @Test
  public void shouldMakeOneMapPerPartitionOverTheStoreTheFunctionGives() {
    List<RecordingBackingMap<String, C>> stores = List.of(new RecordingBackingMap<>(), new RecordingBackingMap<>());
    StateFactory<MapState<String, Long>> factory =
        factoryPerPartition.apply(context -> stores.get(context.partitionIndex()));
    assertEquals(kind, factory.kind());
    assertTrue(factory.describe().startsWith(mapName + " over"), factory.describe());
    MapState<String, Long> p1 = factory.makeState(new StateContext("wc", "words", 1, 2));
    p1.begin(Epoch.of("wc", new BatchAttempt(1, 1)));
    p1.multiUpdate(Map.of("a", plus(1)));
    assertEquals(Map.of(), stores.get(0).cells());
    assertEquals(Map.of("a", firstCell.of(1, 1)), stores.get(1).cells());
  }

  @Test
  public void shouldRejectNullFromTheStoreFunction() {
    StateFactory<MapState<String, Long>> factory = factoryPerPartition.apply(context -> null);
    NullPointerException e = assertThrows(NullPointerException.class,
        () -> factory.makeState(new StateContext("wc", "words", 0, 1)));
    assertTrue(e.getMessage().contains("words"), e.getMessage());
    assertThrows(NullPointerException.class, () -> this.factory.apply(null));
  }

  /** A removed key reads absent in the same attempt (the attempt's cache drops it) and is gone from the store. */
  @Test
  void multiRemoveDeletesFromTheStoreAndTheAttemptsCache() {
    InMemoryBackingMap<String, C> memory = new InMemoryBackingMap<>();
    M removable = over.apply(memory, TABLE);
    removable.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    removable.multiPut(Map.of("a", 1L, "b", 2L));
    ((RemovableMapState<String, Long>) removable).multiRemove(List.of("a"));
    assertEquals(Map.of("b", 2L), removable.multiGet(List.of("a", "b")));
    assertEquals(Map.of("a", 5L), removable.multiUpdate(Map.of("a", plus(5))),
        "an update after removal builds on empty");
    ((RemovableMapState<String, Long>) removable).multiRemove(List.of("a"));
    removable.end();
    assertEquals(Set.of("b"), memory.snapshot().keySet());
    assertTrue(((RemovableMapState<String, Long>) removable).canRemove());
  }

  /** Over a store without removal the map says so and refuses, naming the map. */
  @Test
  void multiRemoveIsRefusedOverAStoreThatCannotDelete() {
    RemovableMapState<String, Long> r = (RemovableMapState<String, Long>) map;
    assertFalse(r.canRemove());
    map.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
        () -> r.multiRemove(List.of("a")));
    assertTrue(e.getMessage().contains(mapName), e.getMessage());
    map.end();
  }

  /** Over a CachedMap the removed key leaves the cache, so a later batch does not read it from there. */
  @Test
  void multiRemoveThroughACachedMapDropsTheCachedCell() {
    InMemoryBackingMap<String, C> memory = new InMemoryBackingMap<>();
    M cached = over.apply(new CachedMap<>(memory, 10), TABLE);
    cached.begin(Epoch.of("test", new BatchAttempt(1, 1)));
    cached.multiPut(Map.of("a", 1L));
    cached.end();
    cached.begin(Epoch.of("test", new BatchAttempt(2, 1)));
    assertEquals(Map.of("a", 1L), cached.multiGet(List.of("a")));
    ((RemovableMapState<String, Long>) cached).multiRemove(List.of("a"));
    cached.end();
    cached.begin(Epoch.of("test", new BatchAttempt(3, 1)));
    assertEquals(Map.of(), cached.multiGet(List.of("a")));
    cached.end();
    assertEquals(Map.of(), memory.snapshot());
  }
}
