package io.epochal.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link IBackingMap#multiGetOrdered}: the stored cell of each key by position, null where none is stored; the
 * default (through {@code multiGet}) and the in-memory store's own give the same list.
 */
class MultiGetOrderedTest {
  private static final List<String> KEYS = Arrays.asList("b", "x", "a", "b", "y");
  private static final List<String> EXPECTED = Arrays.asList("B", null, "A", "B", null);

  /** A store with only multiGet and multiPut: the default positional read. */
  private static final class MapOnly implements IBackingMap<String, String> {
    final Map<String, String> cells = new HashMap<>();
    int gets;

    @Override
    public Map<String, String> multiGet(Collection<? extends String> keys) {
      gets++;
      Map<String, String> found = new HashMap<>();
      for (String k : keys) {
        if (cells.containsKey(k)) {
          found.put(k, cells.get(k));
        }
      }
      return found;
    }

    @Override
    public void multiPut(Map<String, String> newCells) {
      cells.putAll(newCells);
    }
  }

  @Test
  void theDefaultReadsOnceThroughMultiGet() {
    MapOnly store = new MapOnly();
    store.multiPut(Map.of("a", "A", "b", "B"));
    List<String> cells = store.multiGetOrdered(KEYS);
    assertEquals(EXPECTED, cells);
    assertEquals(1, store.gets);
    assertThrows(UnsupportedOperationException.class, () -> cells.set(0, "C"));
  }

  @Test
  void theInMemoryStoreReadsByPosition() {
    InMemoryBackingMap<String, String> store = new InMemoryBackingMap<>();
    store.multiPut(Map.of("a", "A", "b", "B"));
    List<String> cells = store.multiGetOrdered(KEYS);
    assertEquals(EXPECTED, cells);
    assertThrows(UnsupportedOperationException.class, () -> cells.set(0, "C"));
    assertEquals(List.of(), store.multiGetOrdered(List.of()));
    assertThrows(NullPointerException.class, () -> store.multiGetOrdered(Arrays.asList("a", null)));
  }
}
