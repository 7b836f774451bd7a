package io.epochal.spout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codec;
import io.epochal.codec.CodecException;
import io.epochal.errors.SourceChangedException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class PartitionedTransactionalAdapterTest {

  /** Records [start, end) of one partition. */
  record Span(long start, long end) {
  }

  static final Codec<Span> SPAN_CODEC = new Codec<>() {
    @Override
    public byte[] encode(Span value) {
      return ByteBuffer.allocate(16).putLong(value.start()).putLong(value.end()).array();
    }

    @Override
    public Span decode(byte[] bytes) {
      if (bytes.length != 16) {
        throw new CodecException("span: need 16 bytes");
      }
      ByteBuffer b = ByteBuffer.wrap(bytes);
      return new Span(b.getLong(), b.getLong());
    }

    @Override
    public String id() {
      return "span:test";
    }
  };

  /** Partitions of in-memory records; each new batch of a partition takes at most {@code perBatch} records. */
  static class FakeSpout implements PartitionedTransactionalSpout<String, Span> {
    final Map<String, List<String>> data = new LinkedHashMap<>();
    final List<String> calls = new ArrayList<>();
    final int perBatch;
    boolean closed;

    FakeSpout(int perBatch) {
      this.perBatch = perBatch;
    }

    FakeSpout with(String partition, String... records) {
      data.computeIfAbsent(partition, p -> new ArrayList<>()).addAll(List.of(records));
      return this;
    }

    @Override
    public String name() {
      return "fake";
    }

    @Override
    public List<String> partitions() {
      return List.copyOf(data.keySet());
    }

    @Override
    public Codec<Span> partitionMetadataCodec() {
      return SPAN_CODEC;
    }

    @Override
    public Optional<Span> nextPartitionBatch(String partition, long txid, Optional<Span> previous) {
      calls.add(partition + "@" + txid + " after " + previous.map(Span::toString).orElse("nothing"));
      long start = previous.map(Span::end).orElse(0L);
      long end = Math.min(data.get(partition).size(), start + perBatch);
      return end == start ? Optional.empty() : Optional.of(new Span(start, end));
    }

    @Override
    public void emitPartitionBatch(BatchAttempt attempt, String partition, Span metadata, Collector<String> out) {
      for (long i = metadata.start(); i < metadata.end(); i++) {
        out.emit(data.get(partition).get((int) i));
      }
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  static List<String> emit(TransactionalSpout<String, PartitionedMetadata<Span>> spout, long txid,
      PartitionedMetadata<Span> meta) {
    List<String> out = new ArrayList<>();
    spout.emit(new BatchAttempt(txid, 1), meta, out::add);
    return out;
  }

  @Test
  void shouldHaveNoBatchWhenNoPartitionHasData() {
    FakeSpout fake = new FakeSpout(2);
    fake.data.put("p", new ArrayList<>());
    TransactionalSpout<String, PartitionedMetadata<Span>> spout = Spouts.partitioned(fake);
    assertEquals(Optional.empty(), spout.nextBatch(1, Optional.empty()));
    assertEquals(SpoutKind.TRANSACTIONAL, spout.kind());
    assertEquals("fake", spout.name());
  }

  @Test
  void shouldCutEachPartitionFromItsOwnPreviousMetadata() {
    FakeSpout fake = new FakeSpout(2).with("b", "b0", "b1", "b2").with("a", "a0");
    TransactionalSpout<String, PartitionedMetadata<Span>> spout = Spouts.partitioned(fake);

    PartitionedMetadata<Span> first = spout.nextBatch(1, Optional.empty()).orElseThrow();
    assertEquals(new TreeMap<>(Map.of("a", new Span(0, 1), "b", new Span(0, 2))), first.partitions());
    assertEquals(new TreeSet<>(List.of("a", "b")), first.inBatch());

    PartitionedMetadata<Span> second = spout.nextBatch(2, Optional.of(first)).orElseThrow();
    assertEquals(new Span(2, 3), second.get("b").orElseThrow());
    assertEquals(new Span(0, 1), second.get("a").orElseThrow(), "a has nothing new: carried");
    assertEquals(new TreeSet<>(List.of("b")), second.inBatch());
    assertTrue(fake.calls.contains("a@2 after Span[start=0, end=1]"), fake.calls.toString());

    assertEquals(Optional.empty(), spout.nextBatch(3, Optional.of(second)));
  }

  @Test
  void shouldEmitOnlyInBatchRangesInPartitionOrder() {
    FakeSpout fake = new FakeSpout(2).with("b", "b0", "b1", "b2").with("a", "a0");
    TransactionalSpout<String, PartitionedMetadata<Span>> spout = Spouts.partitioned(fake);
    PartitionedMetadata<Span> first = spout.nextBatch(1, Optional.empty()).orElseThrow();
    assertEquals(List.of("a0", "b0", "b1"), emit(spout, 1, first), "partition order is name order, not list order");
    PartitionedMetadata<Span> second = spout.nextBatch(2, Optional.of(first)).orElseThrow();
    assertEquals(List.of("b2"), emit(spout, 2, second), "the carried range of a is not re-emitted");
  }

  @Test
  void shouldReEmitTheSameRecordsForTheSameMetadata() {
    FakeSpout fake = new FakeSpout(3).with("x", "1", "2", "3", "4").with("y", "5");
    TransactionalSpout<String, PartitionedMetadata<Span>> spout = Spouts.partitioned(fake);
    PartitionedMetadata<Span> meta = spout.nextBatch(1, Optional.empty()).orElseThrow();
    List<String> attempt1 = emit(spout, 1, meta);
    fake.with("x", "late").with("y", "late");
    List<String> replay = new ArrayList<>();
    spout.emit(new BatchAttempt(1, 2), meta, replay::add);
    assertEquals(attempt1, replay);
    PartitionedMetadata<Span> decoded = spout.metadataCodec().decode(spout.metadataCodec().encode(meta));
    assertEquals(meta, decoded);
    assertEquals(attempt1, emit(spout, 1, decoded));
  }

  @Test
  void shouldPickUpPartitionsAddedLater() {
    FakeSpout fake = new FakeSpout(5).with("a", "a0");
    TransactionalSpout<String, PartitionedMetadata<Span>> spout = Spouts.partitioned(fake);
    PartitionedMetadata<Span> first = spout.nextBatch(1, Optional.empty()).orElseThrow();
    fake.with("0new", "n0", "n1");
    PartitionedMetadata<Span> second = spout.nextBatch(2, Optional.of(first)).orElseThrow();
    assertEquals(new TreeSet<>(List.of("0new")), second.inBatch());
    assertEquals(List.of("n0", "n1"), emit(spout, 2, second));
  }

  @Test
  void shouldRejectAPartitionThatDisappeared() {
    FakeSpout fake = new FakeSpout(5).with("a", "a0").with("b", "b0");
    TransactionalSpout<String, PartitionedMetadata<Span>> spout = Spouts.partitioned(fake);
    PartitionedMetadata<Span> first = spout.nextBatch(1, Optional.empty()).orElseThrow();
    fake.data.remove("b");
    SourceChangedException e = assertThrows(SourceChangedException.class,
        () -> spout.nextBatch(2, Optional.of(first)));
    assertTrue(e.getMessage().contains("partition b") && e.getMessage().contains("txid 2"), e.getMessage());
  }

  @Test
  void shouldRejectDuplicatePartitions() {
    FakeSpout fake = new FakeSpout(5) {
      @Override
      public List<String> partitions() {
        return List.of("a", "a");
      }
    };
    fake.with("a", "x");
    TransactionalSpout<String, PartitionedMetadata<Span>> spout = Spouts.partitioned(fake);
    assertThrows(IllegalStateException.class, () -> spout.nextBatch(1, Optional.empty()));
  }

  @Test
  void shouldDelegateCodecIdAndClose() {
    FakeSpout fake = new FakeSpout(1);
    TransactionalSpout<String, PartitionedMetadata<Span>> spout = Spouts.partitioned(fake);
    assertEquals("partitioned:v1(span:test)", spout.metadataCodec().id());
    assertSame(spout.metadataCodec(), spout.metadataCodec());
    spout.close();
    assertTrue(fake.closed);
    assertThrows(NullPointerException.class, () -> Spouts.partitioned((PartitionedTransactionalSpout<String, Span>) null));
  }
}
