package io.epochal.spout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codec;
import io.epochal.codec.CodecException;
import io.epochal.codec.Codecs;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class PartitionedMetadataTest {

  private static final Codec<PartitionedMetadata<Long>> CODEC = PartitionedMetadata.codec(Codecs.longs());

  static PartitionedMetadata<Long> meta(Map<String, Long> partitions, String... inBatch) {
    return new PartitionedMetadata<>(new TreeMap<>(partitions), new TreeSet<>(List.of(inBatch)));
  }

  @Test
  void shouldSortPartitionsByNameWhateverTheGivenComparator() {
    TreeMap<String, Long> reversed = new TreeMap<>(Collections.reverseOrder());
    reversed.put("a", 1L);
    reversed.put("c", 3L);
    reversed.put("b", 2L);
    PartitionedMetadata<Long> m = new PartitionedMetadata<>(reversed, new TreeSet<>(List.of("c")));
    assertEquals(List.of("a", "b", "c"), List.copyOf(m.partitions().keySet()));
    assertEquals(Optional.of(2L), m.get("b"));
    assertEquals(Optional.empty(), m.get("z"));
    assertTrue(m.isInBatch("c"));
    assertFalse(m.isInBatch("a"));
    assertEquals(Map.of("c", 3L), m.batchPartitions());
  }

  @Test
  void shouldCopyItsComponentsAndBeUnmodifiable() {
    TreeMap<String, Long> source = new TreeMap<>(Map.of("a", 1L));
    PartitionedMetadata<Long> m = new PartitionedMetadata<>(source, new TreeSet<>(List.of("a")));
    source.put("b", 2L);
    assertEquals(1, m.partitions().size());
    SortedMap<String, Long> partitions = m.partitions();
    assertThrows(UnsupportedOperationException.class, () -> partitions.put("x", 9L));
    assertThrows(UnsupportedOperationException.class, () -> m.inBatch().add("x"));
  }

  @Test
  void shouldRejectInBatchPartitionWithoutMetadata() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> meta(Map.of("a", 1L), "b"));
    assertTrue(e.getMessage().contains("b"), e.getMessage());
  }

  @Test
  void shouldRejectNulls() {
    TreeMap<String, Long> withNullValue = new TreeMap<>();
    withNullValue.put("a", null);
    assertThrows(NullPointerException.class, () -> new PartitionedMetadata<>(withNullValue, new TreeSet<>()));
    assertThrows(NullPointerException.class, () -> new PartitionedMetadata<Long>(null, new TreeSet<>()));
    assertThrows(NullPointerException.class, () -> new PartitionedMetadata<Long>(new TreeMap<>(), null));
    assertThrows(NullPointerException.class, () -> PartitionedMetadata.empty().get(null));
    assertThrows(NullPointerException.class, () -> PartitionedMetadata.codec(null));
  }

  @Test
  void shouldCompareByValue() {
    assertEquals(meta(Map.of("a", 1L, "b", 2L), "a"), meta(Map.of("b", 2L, "a", 1L), "a"));
    assertFalse(meta(Map.of("a", 1L, "b", 2L), "a").equals(meta(Map.of("a", 1L, "b", 2L), "b")));
    assertEquals(PartitionedMetadata.empty(), meta(Map.of()));
  }

  @Test
  void shouldRoundTripThroughItsCodec() {
    for (PartitionedMetadata<Long> m : List.of(PartitionedMetadata.<Long>empty(),
        meta(Map.of("a", 1L)), meta(Map.of("a", 1L, "b/c.log", -5L, "ü€", Long.MAX_VALUE), "b/c.log", "ü€"))) {
      assertEquals(m, CODEC.decode(CODEC.encode(m)));
    }
  }

  @Test
  void shouldEncodeInTheDocumentedLayout() {
    byte[] bytes = CODEC.encode(meta(Map.of("ab", 7L), "ab"));
    ByteBuffer expected = ByteBuffer.allocate(4 + 4 + 2 + 1 + 4 + 8)
        .putInt(1).putInt(2).put((byte) 'a').put((byte) 'b').put((byte) 1).putInt(8).putLong(7L);
    assertArrayEquals(expected.array(), bytes);
    assertEquals("partitioned:v1(long-be:v1)", CODEC.id());
  }

  @Test
  void shouldRejectTruncatedAndTrailingBytes() {
    byte[] good = CODEC.encode(meta(Map.of("a", 1L, "b", 2L), "b"));
    for (int len = 0; len < good.length; len++) {
      byte[] cut = Arrays.copyOf(good, len);
      assertThrows(CodecException.class, () -> CODEC.decode(cut), "length " + len);
    }
    byte[] longer = Arrays.copyOf(good, good.length + 1);
    assertThrows(CodecException.class, () -> CODEC.decode(longer));
  }

  @Test
  void shouldRejectBadFlagsUnsortedNamesAndBadInnerBytes() {
    byte[] badFlag = ByteBuffer.allocate(4 + 4 + 1 + 1 + 4 + 8)
        .putInt(1).putInt(1).put((byte) 'a').put((byte) 2).putInt(8).putLong(1L).array();
    assertThrows(CodecException.class, () -> CODEC.decode(badFlag));
    byte[] unsorted = ByteBuffer.allocate(4 + 2 * (4 + 1 + 1 + 4 + 8))
        .putInt(2)
        .putInt(1).put((byte) 'b').put((byte) 0).putInt(8).putLong(1L)
        .putInt(1).put((byte) 'a').put((byte) 0).putInt(8).putLong(1L).array();
    assertThrows(CodecException.class, () -> CODEC.decode(unsorted));
    byte[] shortInner = ByteBuffer.allocate(4 + 4 + 1 + 1 + 4 + 4)
        .putInt(1).putInt(1).put((byte) 'a').put((byte) 0).putInt(4).putInt(1).array();
    CodecException e = assertThrows(CodecException.class, () -> CODEC.decode(shortInner));
    assertTrue(e.getMessage().contains("partition a"), e.getMessage());
    byte[] negativeCount = ByteBuffer.allocate(4).putInt(-1).array();
    assertThrows(CodecException.class, () -> CODEC.decode(negativeCount));
    byte[] badUtf8 = ByteBuffer.allocate(4 + 4 + 1 + 1 + 4 + 8)
        .putInt(1).putInt(1).put((byte) 0xff).put((byte) 0).putInt(8).putLong(1L).array();
    assertThrows(CodecException.class, () -> CODEC.decode(badUtf8));
  }
}
