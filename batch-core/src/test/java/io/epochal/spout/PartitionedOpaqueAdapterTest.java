package io.epochal.spout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codec;
import io.epochal.codec.Codecs;
import io.epochal.errors.SourceChangedException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class PartitionedOpaqueAdapterTest {

  /** Partitions of in-memory records; position = index of the next record; emits at most perAttempt(attempt). */
  static final class FakeSpout implements PartitionedOpaqueSpout<String, Long> {
    final Map<String, List<String>> data = new LinkedHashMap<>();
    boolean closed;

    FakeSpout with(String partition, String... records) {
      data.computeIfAbsent(partition, p -> new ArrayList<>()).addAll(List.of(records));
      return this;
    }

    @Override
    public String name() {
      return "fake-opaque";
    }

    @Override
    public List<String> partitions() {
      return List.copyOf(data.keySet());
    }

    @Override
    public Codec<Long> partitionMetadataCodec() {
      return Codecs.longs();
    }

    @Override
    public boolean hasMore(String partition, Optional<Long> previous) {
      return previous.orElse(0L) < data.get(partition).size();
    }

    @Override
    public Long emitPartitionBatch(BatchAttempt attempt, String partition, Optional<Long> previous,
        Collector<String> out) {
      long start = previous.orElse(0L);
      long end = Math.min(data.get(partition).size(), start + attempt.attempt()); // a replay cuts longer
      for (long i = start; i < end; i++) {
        out.emit(data.get(partition).get((int) i));
      }
      return end;
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  @Test
  void shouldBeReadyOnlyWhenSomePartitionHasMore() {
    FakeSpout fake = new FakeSpout().with("a");
    OpaqueSpout<String, PartitionedMetadata<Long>> spout = Spouts.partitioned(fake);
    assertEquals(SpoutKind.OPAQUE, spout.kind());
    assertFalse(spout.isReady(1, Optional.empty()));
    fake.with("b", "b0");
    assertTrue(spout.isReady(1, Optional.empty()));
  }

  @Test
  void shouldAdvanceOnlyPartitionsWithMoreAndCarryTheOthers() {
    FakeSpout fake = new FakeSpout().with("b", "b0", "b1").with("a", "a0");
    OpaqueSpout<String, PartitionedMetadata<Long>> spout = Spouts.partitioned(fake);
    List<String> out = new ArrayList<>();
    PartitionedMetadata<Long> first = spout.emit(new BatchAttempt(1, 1), Optional.empty(), out::add);
    assertEquals(List.of("a0", "b0"), out, "partitions in name order");
    assertEquals(Optional.of(1L), first.get("a"));
    assertEquals(Optional.of(1L), first.get("b"));
    assertEquals(new TreeSet<>(List.of("a", "b")), first.inBatch());

    out.clear();
    PartitionedMetadata<Long> second = spout.emit(new BatchAttempt(2, 1), Optional.of(first), out::add);
    assertEquals(List.of("b1"), out);
    assertEquals(Optional.of(1L), second.get("a"), "carried");
    assertEquals(Optional.of(2L), second.get("b"));
    assertEquals(new TreeSet<>(List.of("b")), second.inBatch());
    assertFalse(spout.isReady(3, Optional.of(second)));
  }

  @Test
  void shouldReplayFromTheGivenPreviousPositions() {
    FakeSpout fake = new FakeSpout().with("a", "a0", "a1", "a2").with("b", "b0", "b1");
    OpaqueSpout<String, PartitionedMetadata<Long>> spout = Spouts.partitioned(fake);
    List<String> attempt1 = new ArrayList<>();
    PartitionedMetadata<Long> after1 = spout.emit(new BatchAttempt(1, 1), Optional.empty(), attempt1::add);
    List<String> attempt2 = new ArrayList<>();
    PartitionedMetadata<Long> after2 = spout.emit(new BatchAttempt(1, 2), Optional.empty(), attempt2::add);
    assertEquals(List.of("a0", "b0"), attempt1);
    assertEquals(List.of("a0", "a1", "b0", "b1"), attempt2, "a replay re-cuts from the same start");
    assertEquals(Optional.of(2L), after2.get("a"));
    assertEquals(Optional.of(1L), after1.get("a"));
  }

  @Test
  void shouldReturnPreviousUnchangedWhenNothingWasEmitted() {
    FakeSpout fake = new FakeSpout().with("a", "a0");
    OpaqueSpout<String, PartitionedMetadata<Long>> spout = Spouts.partitioned(fake);
    PartitionedMetadata<Long> first = spout.emit(new BatchAttempt(1, 1), Optional.empty(), r -> { });
    List<String> out = new ArrayList<>();
    assertSame(first, spout.emit(new BatchAttempt(2, 1), Optional.of(first), out::add));
    assertEquals(List.of(), out);
    fake.data.get("a").clear();
    assertEquals(PartitionedMetadata.empty(), spout.emit(new BatchAttempt(1, 1), Optional.empty(), out::add));
  }

  @Test
  void shouldRejectAPartitionThatDisappeared() {
    FakeSpout fake = new FakeSpout().with("a", "a0").with("b", "b0");
    OpaqueSpout<String, PartitionedMetadata<Long>> spout = Spouts.partitioned(fake);
    PartitionedMetadata<Long> first = spout.emit(new BatchAttempt(1, 1), Optional.empty(), r -> { });
    fake.data.remove("a");
    assertThrows(SourceChangedException.class, () -> spout.isReady(2, Optional.of(first)));
    assertThrows(SourceChangedException.class, () -> spout.emit(new BatchAttempt(2, 1), Optional.of(first), r -> { }));
  }

  @Test
  void shouldDelegateCodecAndClose() {
    FakeSpout fake = new FakeSpout().with("a", "a0");
    OpaqueSpout<String, PartitionedMetadata<Long>> spout = Spouts.partitioned(fake);
    PartitionedMetadata<Long> first = spout.emit(new BatchAttempt(1, 1), Optional.empty(), r -> { });
    assertEquals(first, spout.metadataCodec().decode(spout.metadataCodec().encode(first)));
    assertEquals("partitioned:v1(long-be:v1)", spout.metadataCodec().id());
    spout.close();
    assertTrue(fake.closed);
  }
}
