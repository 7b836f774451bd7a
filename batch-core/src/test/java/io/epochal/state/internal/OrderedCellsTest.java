package io.epochal.state.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The written cells of a call, in call order, with lookups on demand. */
class OrderedCellsTest {

  private static OrderedCells<String, Integer> zam() {
    OrderedCells<String, Integer> cells = new OrderedCells<>(4);
    cells.add("z", 1);
    cells.add("a", 2);
    cells.add("m", 3);
    return cells;
  }

  @Test
  void iteratesInTheOrderCellsWereAdded() {
    OrderedCells<String, Integer> cells = zam();
    assertEquals(3, cells.size());
    assertEquals(List.of("z", "a", "m"), new ArrayList<>(cells.keySet()));
    assertEquals(List.of(1, 2, 3), new ArrayList<>(cells.values()));
    List<String> seen = new ArrayList<>();
    cells.forEach((k, v) -> seen.add(k + v));
    assertEquals(List.of("z1", "a2", "m3"), seen);
  }

  @Test
  void looksUpLikeAMapOfTheSameCells() {
    OrderedCells<String, Integer> cells = zam();
    assertEquals(2, cells.get("a"));
    assertNull(cells.get("b"));
    assertTrue(cells.containsKey("m"));
    assertFalse(cells.containsKey("q"));
    assertEquals(Map.of("z", 1, "a", 2, "m", 3), cells);
    assertEquals(new HashMap<>(Map.of("z", 1, "a", 2, "m", 3)).hashCode(), cells.hashCode());
  }

  @Test
  void refusesChangesNullsAndCellsBeyondItsCapacity() {
    OrderedCells<String, Integer> cells = zam();
    assertThrows(UnsupportedOperationException.class, () -> cells.put("b", 4));
    assertThrows(UnsupportedOperationException.class, () -> cells.entrySet().iterator().next().setValue(9));
    assertThrows(NullPointerException.class, () -> cells.add(null, 4));
    assertThrows(NullPointerException.class, () -> cells.add("b", null));
    cells.add("b", 4);
    assertThrows(IndexOutOfBoundsException.class, () -> cells.add("c", 5));
    assertTrue(new OrderedCells<String, Integer>(0).isEmpty());
  }
}
