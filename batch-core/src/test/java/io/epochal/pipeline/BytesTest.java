package io.epochal.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link Bytes}: the value key offered instead of {@code byte[]} (issue 10, finding 6). */
class BytesTest {

  @Test
  void shouldHaveValueEqualityUnlikeAnArray() {
    byte[] a = {1, 2, 3};
    byte[] b = {1, 2, 3};
    Map<Object, Integer> byArray = new HashMap<>();
    byArray.merge(a, 1, Integer::sum);
    byArray.merge(b, 1, Integer::sum);
    assertEquals(2, byArray.size(), "the trap: two cells for one key");
    Map<Bytes, Integer> byBytes = new HashMap<>();
    byBytes.merge(Bytes.of(a), 1, Integer::sum);
    byBytes.merge(Bytes.of(b), 1, Integer::sum);
    assertEquals(Map.of(Bytes.of(a), 2), byBytes);
    assertEquals(Bytes.of(a).hashCode(), Bytes.of(b).hashCode());
    assertNotEquals(Bytes.of(a), Bytes.of(new byte[] {1, 2}));
  }

  @Test
  void shouldBeImmutableOrderedAndPrintable() {
    byte[] raw = {(byte) 0xff, 0};
    Bytes bytes = Bytes.of(raw);
    raw[0] = 1;
    assertEquals((byte) 0xff, bytes.get(0), "copied on the way in");
    bytes.toByteArray()[0] = 2;
    assertArrayEquals(new byte[] {(byte) 0xff, 0}, bytes.toByteArray(), "copied on the way out");
    assertEquals("0xff00", bytes.toString());
    assertEquals("0x", Bytes.empty().toString());
    assertTrue(Bytes.of(new byte[] {1}).compareTo(bytes) < 0, "unsigned order: 0x01 < 0xff");
    assertTrue(Bytes.of(new byte[] {1}).compareTo(Bytes.of(new byte[] {1, 0})) < 0, "a prefix first");
    assertEquals(Bytes.of(new byte[] {2, 3}), Bytes.of(new byte[] {1, 2, 3, 4}, 1, 2));
    assertThrows(IndexOutOfBoundsException.class, () -> Bytes.of(new byte[] {1}, 1, 1));
    assertThrows(IndexOutOfBoundsException.class, () -> bytes.get(2));
    assertThrows(NullPointerException.class, () -> Bytes.of(null));
  }
}
