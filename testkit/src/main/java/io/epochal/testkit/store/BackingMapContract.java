package io.epochal.testkit.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.epochal.api.Evolving;
import io.epochal.errors.EpochalException;
import io.epochal.state.IBackingMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The {@link IBackingMap} contract as a JUnit 5 suite: subclass it, give it a fresh empty map ({@link #createMap()})
 * and distinct keys and cells ({@link #key(int)}, {@link #cell(int)}), and every case runs against your map. What it
 * checks: a {@code multiGet} of missing keys is empty (never a null or placeholder cell); {@code multiPut} then
 * {@code multiGet} returns every cell under its own key, whatever the order, subset or repetition of the keys asked
 * for; a later put overwrites only its keys; an empty put changes nothing; the returned map is a snapshot the caller
 * cannot use to change the store, and a put does not keep the caller's map; nulls (the key collection, a key, the cell
 * map, a cell) are refused loudly ({@link NullPointerException}, or a non-retryable {@link EpochalException} such as
 * {@code InvalidRecordException}), and a refused put of a single null cell writes nothing.
 *
 * <p>Override {@link #assertCellEquals} for cells without value equality (arrays). Not thread-safe: JUnit creates one
 * instance per case.
 *
 * @param <K> the key type
 * @param <C> the cell type
 * @since 0.1.0
 */
@Evolving
public abstract class BackingMapContract<K, C> {

  /** @return a new, empty map (each case calls it once, or twice for independence checks) */
  protected abstract IBackingMap<K, C> createMap();

  /**
   * Makes the keys of the cases.
   *
   * @param i the key's number, at least 0
   * @return key number {@code i}; distinct {@code i} give distinct (non-equal) keys
   */
  protected abstract K key(int i);

  /**
   * Makes the cells of the cases.
   *
   * @param i the cell's number, at least 0
   * @return cell number {@code i}; distinct {@code i} give distinct cells
   */
  protected abstract C cell(int i);

  /**
   * Asserts that {@code actual} is the cell {@code expected}; the default uses {@code equals}.
   *
   * @param expected the cell that was put
   * @param actual the cell the map returned, possibly null
   * @param message what the case checks, for the failure message
   */
  protected void assertCellEquals(C expected, C actual, String message) {
    assertEquals(expected, actual, message);
  }

  private List<K> keys(int from, int to) {
    List<K> keys = new ArrayList<>();
    for (int i = from; i < to; i++) {
      keys.add(key(i));
    }
    return keys;
  }

  private Map<K, C> cells(int from, int to, int cellOffset) {
    Map<K, C> cells = new LinkedHashMap<>();
    for (int i = from; i < to; i++) {
      cells.put(key(i), cell(i + cellOffset));
    }
    return cells;
  }

  /** Asserts that {@code found} holds exactly {@code expected}, each cell under its own key. */
  private void assertCells(Map<K, C> expected, Map<K, C> found, String what) {
    assertNotNull(found, what + ": multiGet returned null");
    assertThrows(UnsupportedOperationException.class, () -> found.clear(),
        what + ": multiGet must return an unmodifiable map (a layer above may hand it on)");
    assertEquals(expected.keySet(), found.keySet(), what + ": the keys found");
    for (Map.Entry<K, C> e : expected.entrySet()) {
      assertCellEquals(e.getValue(), found.get(e.getKey()), what + ": the cell of key " + e.getKey());
    }
  }

  /** Runs {@code call}, which must refuse its input: an NPE or a non-retryable Epochal error. */
  private static void assertRefused(Runnable call, String what) {
    try {
      call.run();
    } catch (NullPointerException expected) {
      return;
    } catch (EpochalException e) {
      assertFalse(e.retryable(), () -> what + ": refused with a retryable error, which a retry cannot fix: " + e);
      return;
    }
    fail(what + " was accepted");
  }

  @Test
  void theKeysAndCellsOfTheSubclassAreDistinct() {
    assertNotEquals(key(0), key(1), "key(0) and key(1) must differ");
    assertNotNull(cell(0), "cell(0)");
    assertNotNull(createMap().describe(), "describe()");
    assertFalse(createMap().describe().isBlank(), "describe() is shown in error messages");
  }

  @Test
  void aMultiGetOfMissingKeysFindsNothing() {
    IBackingMap<K, C> map = createMap();
    assertCells(Map.of(), map.multiGet(List.of()), "no keys");
    assertCells(Map.of(), map.multiGet(keys(0, 10)), "missing keys of an empty map");
    map.multiPut(cells(0, 3, 0));
    assertCells(cells(0, 3, 0), map.multiGet(keys(0, 10)), "only the stored keys of a mixed request");
    assertCells(Map.of(), map.multiGet(keys(3, 10)), "only missing keys");
  }

  @Test
  void aMultiPutIsReadBackByMultiGet() {
    IBackingMap<K, C> map = createMap();
    Map<K, C> cells = cells(0, 100, 0);
    map.multiPut(cells);
    assertCells(cells, map.multiGet(keys(0, 100)), "100 cells put in one call");
    map.multiPut(Map.of(key(100), cell(100)));
    assertCells(Map.of(key(100), cell(100)), map.multiGet(List.of(key(100))), "a put of one cell");
  }

  @Test
  void everyKeyGetsItsOwnCellWhateverTheOrderOfTheKeysAskedFor() {
    IBackingMap<K, C> map = createMap();
    int n = 300;
    Map<K, C> cells = cells(0, n, 0);
    map.multiPut(cells);
    List<K> reversed = keys(0, n);
    Collections.reverse(reversed);
    assertCells(cells, map.multiGet(reversed), "keys in reverse order");
    List<K> shuffled = keys(0, n + 50); // with 50 missing keys among them
    Collections.shuffle(shuffled, new Random(n));
    assertCells(cells, map.multiGet(shuffled), "shuffled keys, some missing");
    Map<K, C> odd = new HashMap<>();
    List<K> oddKeys = new ArrayList<>();
    for (int i = n - 1; i >= 0; i -= 2) {
      odd.put(key(i), cell(i));
      oddKeys.add(key(i));
    }
    assertCells(odd, map.multiGet(oddKeys), "a subset, descending");
  }

  @Test
  void aMultiPutInAnyOrderStoresEachCellUnderItsKey() {
    IBackingMap<K, C> map = createMap();
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      order.add(i);
    }
    Collections.shuffle(order, new Random(7));
    Map<K, C> cells = new LinkedHashMap<>();
    for (int i : order) {
      cells.put(key(i), cell(i));
    }
    map.multiPut(cells);
    assertCells(cells(0, 200, 0), map.multiGet(keys(0, 200)), "cells put in shuffled order");
  }

  @Test
  void aPositionalReadFindsEachKeysCellAtItsPlace() {
    IBackingMap<K, C> map = createMap();
    map.multiPut(cells(0, 50, 0));
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < 80; i++) {
      order.add(i); // 30 missing keys among them
    }
    Collections.shuffle(order, new Random(11));
    order.add(order.get(0)); // and a repeated key
    List<K> asked = new ArrayList<>();
    for (int i : order) {
      asked.add(key(i));
    }
    List<C> found = map.multiGetOrdered(asked);
    assertEquals(asked.size(), found.size(), "multiGetOrdered returns one element per key asked for");
    for (int at = 0; at < order.size(); at++) {
      int i = order.get(at);
      if (i < 50) {
        assertCellEquals(cell(i), found.get(at), "multiGetOrdered: the cell of key " + key(i) + " at " + at);
      } else {
        assertNull(found.get(at), "multiGetOrdered: missing key " + key(i) + " at " + at + " reads as null");
      }
    }
    assertThrows(UnsupportedOperationException.class, () -> found.clear(),
        "multiGetOrdered must return an unmodifiable list");
    assertEquals(List.of(), map.multiGetOrdered(List.of()), "no keys");
  }

  @Test
  void aMultiGetOfRepeatedKeysFindsEachOnce() {
    IBackingMap<K, C> map = createMap();
    map.multiPut(cells(0, 2, 0));
    List<K> repeated = List.of(key(0), key(0), key(1), key(5), key(1), key(5), key(0));
    assertCells(cells(0, 2, 0), map.multiGet(repeated), "repeated keys, some missing");
  }

  @Test
  void aLaterMultiPutOverwritesOnlyItsKeys() {
    IBackingMap<K, C> map = createMap();
    map.multiPut(cells(0, 10, 0));
    map.multiPut(cells(5, 15, 1000));
    Map<K, C> expected = new LinkedHashMap<>(cells(0, 5, 0));
    expected.putAll(cells(5, 15, 1000));
    assertCells(expected, map.multiGet(keys(0, 20)), "keys 5..9 overwritten, 10..14 added, 0..4 kept");
  }

  @Test
  void anEmptyMultiPutChangesNothing() {
    IBackingMap<K, C> map = createMap();
    map.multiPut(cells(0, 3, 0));
    map.multiPut(Map.of());
    map.multiPut(new HashMap<>());
    assertCells(cells(0, 3, 0), map.multiGet(keys(0, 5)), "after empty puts");
  }

  @Test
  void twoMapsAreIndependent() {
    IBackingMap<K, C> first = createMap();
    IBackingMap<K, C> second = createMap();
    first.multiPut(cells(0, 3, 0));
    assertCells(Map.of(), second.multiGet(keys(0, 3)), "a second fresh map sees nothing of the first");
  }

  @Test
  void theCallersMapsCannotChangeTheStore() {
    IBackingMap<K, C> map = createMap();
    Map<K, C> put = cells(0, 3, 0);
    map.multiPut(put);
    put.put(key(0), cell(99)); // the caller reuses its map: the store kept its own copy
    put.put(key(7), cell(7));
    Map<K, C> found = map.multiGet(keys(0, 3));
    try {
      found.put(key(1), cell(98));
      found.remove(key(2));
      found.put(key(8), cell(8));
    } catch (UnsupportedOperationException unmodifiable) {
      // the documented answer: an unmodifiable map
    }
    assertCells(cells(0, 3, 0), map.multiGet(keys(0, 10)), "after the caller changed its maps");
  }

  @Test
  void aResultIsASnapshot() {
    IBackingMap<K, C> map = createMap();
    map.multiPut(cells(0, 3, 0));
    Map<K, C> before = map.multiGet(keys(0, 5));
    map.multiPut(cells(0, 5, 100));
    assertCells(cells(0, 3, 0), before, "a result read before a put");
    assertCells(cells(0, 5, 100), map.multiGet(keys(0, 5)), "a result read after it");
  }

  @Test
  void nullsAreRefused() {
    IBackingMap<K, C> map = createMap();
    map.multiPut(cells(0, 2, 0));
    assertRefused(() -> map.multiGet(null), "multiGet(null)");
    assertRefused(() -> map.multiGet(Arrays.asList(key(0), null)), "multiGet of a null key");
    assertRefused(() -> map.multiPut(null), "multiPut(null)");
    Map<K, C> nullCell = new HashMap<>();
    nullCell.put(key(5), null);
    assertRefused(() -> map.multiPut(nullCell), "multiPut of a null cell");
    assertCells(Map.of(), map.multiGet(List.of(key(5))), "the refused null cell was not written");
    Map<K, C> nullKey = new HashMap<>();
    nullKey.put(null, cell(6));
    assertRefused(() -> map.multiPut(nullKey), "multiPut under a null key");
    assertCells(cells(0, 2, 0), map.multiGet(keys(0, 10)), "the refusals changed nothing stored");
  }

  @Test
  void aLargeCallIsServedWhole() {
    IBackingMap<K, C> map = createMap();
    Map<K, C> cells = cells(0, 2_000, 0);
    map.multiPut(cells);
    Map<K, C> found = map.multiGet(keys(0, 2_100));
    assertEquals(2_000, found.size(), "2,000 stored keys among 2,100 asked for");
    assertCells(cells, found, "2,000 cells");
    assertTrue(found.keySet().containsAll(cells.keySet()));
  }
}
