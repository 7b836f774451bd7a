package io.epochal.store.ytsaurus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.CodecException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The queue spout's values: ranges and their codec, rows and their typed accessors, the config builder's checks. */
class YtQueueValuesTest {

  @Test
  void rangesRoundTripAndTheCodecRefusesAnythingElse() {
    YtQueueRange r = new YtQueueRange(3, 17);
    assertEquals(r, YtQueueRange.codec().decode(YtQueueRange.codec().encode(r)));
    assertEquals(14, r.size());
    assertThrows(IllegalArgumentException.class, () -> new YtQueueRange(5, 4));
    assertThrows(IllegalArgumentException.class, () -> new YtQueueRange(-1, 4));
    assertThrows(CodecException.class, () -> YtQueueRange.codec().decode(new byte[16]));
    byte[] bad = YtQueueRange.codec().encode(r);
    bad[0] = 2;
    assertThrows(CodecException.class, () -> YtQueueRange.codec().decode(bad));
    byte[] backwards = java.nio.ByteBuffer.allocate(17).put((byte) 1).putLong(9).putLong(2).array();
    assertThrows(CodecException.class, () -> YtQueueRange.codec().decode(backwards));
  }

  @Test
  void rowsAnswerTypedAccessorsAndRefuseOtherTypes() {
    Map<String, Object> cols = new LinkedHashMap<>();
    cols.put("text", "héllo");
    cols.put("raw", new byte[] {(byte) 0xff});
    cols.put("n", 42);
    cols.put("d", 1.5);
    cols.put("flag", true);
    cols.put("meta", new YtQueueRow.Composite("{\"a\":1}"));
    cols.put("missing", null);
    YtQueueRow row = YtQueueRow.of(2, 9, OptionalLong.of(77), cols);
    assertEquals("héllo", row.string("text").orElseThrow());
    assertArrayEquals("héllo".getBytes(StandardCharsets.UTF_8), row.bytes("text").orElseThrow());
    assertThrows(IllegalArgumentException.class, () -> row.string("raw"), "not UTF-8");
    assertEquals(42, row.int64("n").getAsLong());
    assertEquals(42.0, row.float64("n").orElseThrow());
    assertEquals(1.5, row.float64("d").orElseThrow());
    assertTrue(row.bool("flag").orElseThrow());
    assertEquals("{\"a\":1}", row.json("meta").orElseThrow());
    assertTrue(row.isNull("missing"));
    assertTrue(row.string("missing").isEmpty());
    assertThrows(IllegalArgumentException.class, () -> row.int64("text"));
    assertThrows(IllegalArgumentException.class, () -> row.string("absent"));
    assertEquals(77, row.timestamp().getAsLong());
    byte[] copy = row.bytes("raw").orElseThrow();
    copy[0] = 0;
    assertEquals((byte) 0xff, row.bytes("raw").orElseThrow()[0], "bytes are copied out");
    assertEquals(row, YtQueueRow.of(2, 9, OptionalLong.of(77), cols));
    assertNotEquals(row, YtQueueRow.of(2, 10, OptionalLong.of(77), cols));
    assertThrows(IllegalArgumentException.class, () -> YtQueueRow.of(0, 0, OptionalLong.empty(),
        Map.of("$row_index", 1L)));
    assertThrows(IllegalArgumentException.class, () -> YtQueueRow.of(0, 0, OptionalLong.empty(),
        Map.of("x", new Object())));
  }

  @Test
  void theConfigBuilderChecksItsOptions() {
    YtQueueSpoutConfig.Builder<YtQueueRow> b = YtQueueSpoutConfig.builder("s", "localhost:8000", "//q");
    b.maxRowsPerPartition(10);
    assertThrows(IllegalStateException.class, () -> b.maxRowsPerPartition(11));
    assertThrows(IllegalArgumentException.class, () -> YtQueueSpoutConfig.builder("s", "p", "//q")
        .maxBytesPerPartition(0));
    assertThrows(IllegalArgumentException.class, () -> YtQueueSpoutConfig.builder("s", "p", "no-slashes"));
    assertThrows(IllegalStateException.class, () -> YtQueueSpoutConfig.builder("s", "p", "//q")
        .readThroughConsumer().build(), "needs a consumer");
    YtQueueSpoutConfig<YtQueueRow> c = YtQueueSpoutConfig.builder("s", "p", "//q").build();
    assertEquals(5000, c.maxRowsPerPartition());
    assertEquals(4L << 20, c.maxBytesPerPartition());
    assertEquals(YtTrimmedRowsPolicy.FAIL, c.trimmedRows());
    assertTrue(c.consumerPath().isEmpty() && c.advancingPipeline().isEmpty());
  }

  @Test
  void advancingTheConsumerNeedsThePinnedMode() {
    try (YtProtocolDouble yt = YtProtocolDouble.start(1);
        YtTableStore single = YtDoubleFixture.builder(yt, YtDoubleFixture.freshRoot()).mode(YtMode.SINGLE_TABLE)
            .build()) {
      assertThrows(IllegalArgumentException.class, () -> YtQueueSpoutConfig.builder("s", "p", "//q")
          .consumer("//c").advanceConsumerIn(single, "wc"));
    }
  }
}
