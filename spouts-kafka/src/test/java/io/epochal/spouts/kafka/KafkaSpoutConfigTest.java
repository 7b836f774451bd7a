package io.epochal.spouts.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.CodecException;
import io.epochal.spout.PartitionedMetadata;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** The config builder, the offset range codec and the record types, without a broker. */
class KafkaSpoutConfigTest {

  @Test
  void defaultsAreReadCommittedEarliestFailAndBoundedTimeouts() {
    KafkaSpoutConfig<String, String> c = KafkaSpoutConfig.strings("s").bootstrapServers("h:1").topics("a", "b", "a")
        .build();
    assertEquals(List.of("a", "b"), c.topics());
    assertEquals(IsolationLevel.READ_COMMITTED, c.isolationLevel());
    assertEquals(StartPosition.earliest(), c.startPosition());
    assertEquals(OffsetOutOfRangePolicy.FAIL, c.offsetOutOfRange());
    assertEquals(Optional.empty(), c.mirrorGroup());
    assertEquals(Duration.ofSeconds(30), c.apiTimeout());
    assertTrue(c.maxRecordsPerPartition() > 0 && c.maxBytesPerPartition() > 0);
  }

  @Test
  void propertiesTheSpoutOwnsAreRefusedNamingTheBuilderMethod() {
    KafkaSpoutConfig.Builder<String, String> b = KafkaSpoutConfig.strings("s");
    for (String owned : List.of("bootstrap.servers", "isolation.level", "group.id", "key.deserializer",
        "value.deserializer", "enable.auto.commit", "auto.offset.reset", "allow.auto.create.topics")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> b.property(owned, "x"));
      assertTrue(e.getMessage().contains(owned), e.getMessage());
    }
    b.property("fetch.max.bytes", 1024).property("security.protocol", "PLAINTEXT");
    assertEquals(Map.of("fetch.max.bytes", "1024", "security.protocol", "PLAINTEXT"),
        b.bootstrapServers("h:1").topics("t").build().properties());
  }

  @Test
  void badArgumentsAreRefusedAtOnce() {
    KafkaSpoutConfig.Builder<String, String> b = KafkaSpoutConfig.strings("s");
    assertThrows(IllegalArgumentException.class, () -> b.topics("bad topic"));
    assertThrows(IllegalArgumentException.class, () -> b.topics(".."));
    assertThrows(IllegalArgumentException.class, () -> b.maxRecordsPerPartition(0));
    assertThrows(IllegalArgumentException.class, () -> b.maxBytesPerPartition(0));
    assertThrows(IllegalArgumentException.class, () -> b.apiTimeout(Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> b.partitionDiscoveryInterval(Duration.ofSeconds(-1)));
    assertThrows(IllegalArgumentException.class, () -> KafkaSpoutConfig.strings(" "));
    assertThrows(IllegalStateException.class, () -> KafkaSpoutConfig.strings("s").topics("t").build());
    assertThrows(IllegalStateException.class, () -> KafkaSpoutConfig.strings("s").bootstrapServers("h:1").build());
    assertThrows(IllegalStateException.class, () -> KafkaSpoutConfig.strings("s").bootstrapServers("h:1").topics("t")
        .apiTimeout(Duration.ofMillis(10)).pollTimeout(Duration.ofMillis(20)).build());
    assertThrows(IllegalArgumentException.class, () -> StartPosition.offsets(
        Map.of(new TopicPartition("t", 0), -1L), StartPosition.earliest()));
  }

  @Test
  void offsetRangesRoundTripAndGarbageIsRefused() {
    OffsetRange r = new OffsetRange(5, 17);
    assertEquals(r, OffsetRange.codec().decode(OffsetRange.codec().encode(r)));
    assertThrows(CodecException.class, () -> OffsetRange.codec().decode(new byte[16]));
    assertThrows(CodecException.class, () -> OffsetRange.codec().decode(
        ByteBuffer.allocate(17).put((byte) 2).putLong(0).putLong(1).array()));
    assertThrows(CodecException.class, () -> OffsetRange.codec().decode(
        ByteBuffer.allocate(17).put((byte) 1).putLong(9).putLong(3).array()));
    assertThrows(IllegalArgumentException.class, () -> new OffsetRange(-1, 0));
    var codec = PartitionedMetadata.codec(OffsetRange.codec());
    TreeMap<String, OffsetRange> parts = new TreeMap<>(Map.of("t-0", new OffsetRange(0, 3), "t-1", r));
    PartitionedMetadata<OffsetRange> m = new PartitionedMetadata<>(parts, new TreeSet<>(List.of("t-1")));
    assertEquals(m, codec.decode(codec.encode(m)));
  }

  @Test
  void recordsAndHeadersAreValuesWithCopiedBytes() {
    byte[] bytes = {1, 2};
    KafkaHeader h = new KafkaHeader("k", bytes);
    bytes[0] = 9;
    assertArrayEquals(new byte[] {1, 2}, h.value().orElseThrow());
    h.value().orElseThrow()[1] = 7;
    assertEquals(new KafkaHeader("k", new byte[] {1, 2}), h);
    KafkaRecord<String, String> rec = new KafkaRecord<>("t", 0, 3, 10, TimestampType.CREATE_TIME, Optional.of("k"),
        Optional.empty(), List.of(h, new KafkaHeader("k", null)));
    assertEquals(Optional.empty(), rec.header("k"), "the last header named k has no value");
    assertEquals(Optional.of(rec), rec.record());
    assertEquals(Optional.empty(), rec.deadLetter());
    KafkaDeadLetter<String, String> d = new KafkaDeadLetter<>("t", 1, 4, 0, null, new byte[] {5}, List.of(),
        KafkaDeserializationException.Part.VALUE, "boom");
    assertEquals(Optional.empty(), d.record());
    assertArrayEquals(new byte[] {5}, d.value().orElseThrow());
  }
}
