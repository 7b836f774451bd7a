package io.epochal.spouts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.CodecException;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class RangeTest {

  @Test
  void shouldHoldAHalfOpenRange() {
    Range r = new Range(3, 7);
    assertEquals(4, r.length());
    assertTrue(new Range(5, 5).isEmpty());
    assertEquals("[3, 7)", r.toString());
  }

  @Test
  void shouldRejectBadBounds() {
    assertThrows(IllegalArgumentException.class, () -> new Range(-1, 2));
    assertThrows(IllegalArgumentException.class, () -> new Range(5, 4));
  }

  @Test
  void shouldRoundTripThroughItsCodec() {
    for (Range r : new Range[] {new Range(0, 0), new Range(1, 10), new Range(0, Long.MAX_VALUE)}) {
      assertEquals(r, Range.codec().decode(Range.codec().encode(r)));
    }
    assertEquals("range:v1", Range.codec().id());
  }

  @Test
  void shouldRejectBadEncodings() {
    assertThrows(CodecException.class, () -> Range.codec().decode(new byte[15]));
    assertThrows(CodecException.class, () -> Range.codec().decode(new byte[17]));
    byte[] inverted = ByteBuffer.allocate(16).putLong(5).putLong(4).array();
    assertThrows(CodecException.class, () -> Range.codec().decode(inverted));
    assertThrows(NullPointerException.class, () -> Range.codec().encode(null));
  }
}
