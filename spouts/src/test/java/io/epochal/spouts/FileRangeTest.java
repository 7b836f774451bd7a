package io.epochal.spouts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.epochal.codec.CodecException;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class FileRangeTest {

  @Test
  void shouldRoundTripThroughItsCodec() {
    FileRange r = new FileRange(10, 42, 0xFFFF_FFFFL);
    assertEquals(r, FileRange.codec().decode(FileRange.codec().encode(r)));
    assertEquals(32, r.length());
    assertEquals("file-range:v1", FileRange.codec().id());
    assertEquals("bytes [10, 42) crc32 ffffffff", r.toString());
  }

  @Test
  void shouldRejectBadValues() {
    assertThrows(IllegalArgumentException.class, () -> new FileRange(-1, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> new FileRange(2, 1, 0));
    assertThrows(IllegalArgumentException.class, () -> new FileRange(0, 1, 1L << 32));
    assertThrows(IllegalArgumentException.class, () -> new FileRange(0, 1, -1));
  }

  @Test
  void shouldRejectBadEncodings() {
    assertThrows(CodecException.class, () -> FileRange.codec().decode(new byte[23]));
    byte[] badCrc = ByteBuffer.allocate(24).putLong(0).putLong(1).putLong(-1).array();
    assertThrows(CodecException.class, () -> FileRange.codec().decode(badCrc));
  }
}
