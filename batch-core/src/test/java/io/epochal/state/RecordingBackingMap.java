package io.epochal.state;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A test double store: a map of cells that records every call, and can fail the next {@code multiPut} after writing
 * only its first {@code n} cells (in the iteration order of the map it is given), like a store without multi-key
 * atomicity that crashes mid-write. Shared by the map-state modules' tests through the batch-core test-jar.
 */
public final class RecordingBackingMap<K, C> implements IBackingMap<K, C> {
  /** Thrown by a {@code multiPut} told to fail. */
  public static final class InjectedFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public InjectedFailure(String message) {
      super(message);
    }
  }

  private final Map<K, C> cells = new LinkedHashMap<>();
  private final List<List<K>> gets = new ArrayList<>();
  private final List<Map<K, C>> puts = new ArrayList<>();
  private int failNextPutAfter = -1;

  /** Stores a cell directly, without recording a call. */
  public RecordingBackingMap<K, C> seed(K key, C cell) {
    cells.put(key, cell);
    return this;
  }

  /** The next {@code multiPut} writes its first {@code n} cells and then throws {@link InjectedFailure}. */
  public void failNextPutAfter(int n) {
    failNextPutAfter = n;
  }

  /** Disarms {@link #failNextPutAfter}. */
  public void cancelFailure() {
    failNextPutAfter = -1;
  }

  @Override
  public Map<K, C> multiGet(Collection<? extends K> keys) {
    gets.add(List.copyOf(keys));
    Map<K, C> found = new HashMap<>();
    for (K key : keys) {
      C cell = cells.get(Objects.requireNonNull(key, "key"));
      if (cell != null) {
        found.put(key, cell);
      }
    }
    return Collections.unmodifiableMap(found);
  }

  @Override
  public void multiPut(Map<K, C> newCells) {
    puts.add(Map.copyOf(newCells));
    int limit = failNextPutAfter;
    failNextPutAfter = -1;
    int written = 0;
    for (Map.Entry<K, C> entry : newCells.entrySet()) {
      if (limit >= 0 && written == limit) {
        break;
      }
      cells.put(Objects.requireNonNull(entry.getKey(), "key"), Objects.requireNonNull(entry.getValue(), "cell"));
      written++;
    }
    if (limit >= 0) {
      throw new InjectedFailure("injected failure after " + written + " of " + newCells.size() + " cells");
    }
  }

  @Override
  public String describe() {
    return "recording-store";
  }

  public C cell(K key) {
    return cells.get(key);
  }

  public Map<K, C> cells() {
    return Map.copyOf(cells);
  }

  /** The key lists of every {@code multiGet}, in call order. */
  public List<List<K>> gets() {
    return List.copyOf(gets);
  }

  /** The cells of every {@code multiPut} (including failed ones), in call order. */
  public List<Map<K, C>> puts() {
    return List.copyOf(puts);
  }

  public void forgetCalls() {
    gets.clear();
    puts.clear();
  }
}
