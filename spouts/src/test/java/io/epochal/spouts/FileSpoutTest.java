package io.epochal.spouts;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.InvalidRecordException;
import io.epochal.errors.SourceChangedException;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.PartitionedMetadata;
import io.epochal.spout.TransactionalSpout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSpoutTest {

  @TempDir
  Path dir;

  Path write(String name, String content) throws IOException {
    return Files.writeString(dir.resolve(name), content, UTF_8);
  }

  static void append(Path file, String content) throws IOException {
    Files.writeString(file, content, UTF_8, StandardOpenOption.APPEND);
  }

  static List<String> emit(FileSpout spout, Path file, long txid, FileRange range) {
    List<String> out = new ArrayList<>();
    spout.emitPartitionBatch(new BatchAttempt(txid, 1), file.toString(), range, out::add);
    return out;
  }

  static long crc(String s) {
    CRC32 crc = new CRC32();
    crc.update(s.getBytes(UTF_8));
    return crc.getValue();
  }

  @Test
  void shouldCutCompleteLinesOnlyAndTakeThePartialLastLineOnceEnded() throws IOException {
    Path file = write("a.log", "alpha\nbeta\ngam");
    FileSpout spout = FileSpout.of("files", List.of(file), 10);
    FileRange first = spout.nextPartitionBatch(file.toString(), 1, Optional.empty()).orElseThrow();
    assertEquals(new FileRange(0, 11, crc("alpha\nbeta\n")), first);
    assertEquals(List.of("alpha", "beta"), emit(spout, file, 1, first));
    assertEquals(Optional.empty(), spout.nextPartitionBatch(file.toString(), 2, Optional.of(first)),
        "a line without its newline is not taken");
    append(file, "ma\n");
    FileRange second = spout.nextPartitionBatch(file.toString(), 2, Optional.of(first)).orElseThrow();
    assertEquals(new FileRange(11, 17, crc("gamma\n")), second);
    assertEquals(List.of("gamma"), emit(spout, file, 2, second));
  }

  @Test
  void shouldHoldAtMostMaxLinesPerBatch() throws IOException {
    Path file = write("a.log", "1\n2\n3\n4\n5\n");
    FileSpout spout = FileSpout.of("files", List.of(file), 2);
    List<List<String>> batches = new ArrayList<>();
    Optional<FileRange> previous = Optional.empty();
    for (long txid = 1; ; txid++) {
      Optional<FileRange> next = spout.nextPartitionBatch(file.toString(), txid, previous);
      if (next.isEmpty()) {
        break;
      }
      batches.add(emit(spout, file, txid, next.get()));
      previous = next;
    }
    assertEquals(List.of(List.of("1", "2"), List.of("3", "4"), List.of("5")), batches);
  }

  @Test
  void shouldEmitSeveralFilesAsPartitionsInPathOrder() throws IOException {
    Path b = write("b.log", "b1\nb2\nb3\n");
    Path a = write("a.log", "a1\n");
    Path c = dir.resolve("c.log"); // does not exist yet
    TransactionalSpout<String, PartitionedMetadata<FileRange>> spout =
        FileSpout.transactional("files", List.of(b, a, c), 2);
    PartitionedMetadata<FileRange> m1 = spout.nextBatch(1, Optional.empty()).orElseThrow();
    List<String> out = new ArrayList<>();
    spout.emit(new BatchAttempt(1, 1), m1, out::add);
    assertEquals(List.of("a1", "b1", "b2"), out);

    write("c.log", "c1\n");
    PartitionedMetadata<FileRange> m2 = spout.nextBatch(2, Optional.of(m1)).orElseThrow();
    assertEquals(List.of(b.toString(), c.toString()), List.copyOf(m2.inBatch()));
    assertEquals(m1.get(a.toString()), m2.get(a.toString()), "a has nothing new: carried");
    out.clear();
    spout.emit(new BatchAttempt(2, 1), m2, out::add);
    assertEquals(List.of("b3", "c1"), out);

    PartitionedMetadata<FileRange> decoded = spout.metadataCodec().decode(spout.metadataCodec().encode(m2));
    assertEquals(m2, decoded);
    assertEquals(Optional.empty(), spout.nextBatch(3, Optional.of(decoded)));
  }

  @Test
  void shouldReEmitTheSameLinesAfterAppends() throws IOException {
    Path file = write("a.log", "x\ny\n");
    FileSpout spout = FileSpout.of("files", List.of(file), 10);
    FileRange range = spout.nextPartitionBatch(file.toString(), 1, Optional.empty()).orElseThrow();
    List<String> first = emit(spout, file, 1, range);
    append(file, "z\n");
    assertEquals(first, emit(spout, file, 1, range));
  }

  @Test
  void shouldFailWhenTheFileWasTruncatedUnderARecordedRange() throws IOException {
    Path file = write("a.log", "one\ntwo\n");
    FileSpout spout = FileSpout.of("files", List.of(file), 10);
    FileRange range = spout.nextPartitionBatch(file.toString(), 3, Optional.empty()).orElseThrow();
    Files.writeString(file, "one\n", UTF_8);
    List<String> out = new ArrayList<>();
    SourceChangedException e = assertThrows(SourceChangedException.class,
        () -> spout.emitPartitionBatch(new BatchAttempt(3, 2), file.toString(), range, out::add));
    assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
    assertTrue(e.getMessage().contains("[0, 8)"), e.getMessage());
    assertTrue(e.getMessage().contains("txid 3"), e.getMessage());
    assertEquals(List.of(), out, "nothing is emitted from a changed range");
    assertThrows(SourceChangedException.class,
        () -> spout.nextPartitionBatch(file.toString(), 4, Optional.of(range)));
  }

  @Test
  void shouldFailWhenTheFileWasRewrittenWithTheSameLength() throws IOException {
    Path file = write("a.log", "one\ntwo\n");
    FileSpout spout = FileSpout.of("files", List.of(file), 10);
    FileRange range = spout.nextPartitionBatch(file.toString(), 5, Optional.empty()).orElseThrow();
    Files.writeString(file, "one\ntwx\n", UTF_8);
    List<String> out = new ArrayList<>();
    SourceChangedException e = assertThrows(SourceChangedException.class,
        () -> spout.emitPartitionBatch(new BatchAttempt(5, 1), file.toString(), range, out::add));
    assertTrue(e.getMessage().contains("CRC-32") && e.getMessage().contains("txid 5"), e.getMessage());
    assertEquals(List.of(), out);
  }

  @Test
  void shouldFailWhenARewriteMovedTheLineEndBeforeTheNextRange() throws IOException {
    Path file = write("a.log", "one\ntwo\n");
    FileSpout spout = FileSpout.of("files", List.of(file), 1);
    FileRange first = spout.nextPartitionBatch(file.toString(), 1, Optional.empty()).orElseThrow();
    Files.writeString(file, "onetwo\nthree\n", UTF_8);
    SourceChangedException e = assertThrows(SourceChangedException.class,
        () -> spout.nextPartitionBatch(file.toString(), 2, Optional.of(first)));
    assertTrue(e.getMessage().contains("txid 2"), e.getMessage());
  }

  @Test
  void shouldFailWhenTheFileWasDeletedAfterARange() throws IOException {
    Path file = write("a.log", "one\n");
    FileSpout spout = FileSpout.of("files", List.of(file), 10);
    FileRange range = spout.nextPartitionBatch(file.toString(), 1, Optional.empty()).orElseThrow();
    Files.delete(file);
    assertThrows(SourceChangedException.class, () -> emit(spout, file, 1, range));
    assertThrows(SourceChangedException.class,
        () -> spout.nextPartitionBatch(file.toString(), 2, Optional.of(range)));
  }

  @Test
  void shouldStripCarriageReturnsAndKeepEmptyLines() throws IOException {
    Path file = write("a.log", "a\r\n\nb\r\r\n");
    FileSpout spout = FileSpout.of("files", List.of(file), 10);
    FileRange range = spout.nextPartitionBatch(file.toString(), 1, Optional.empty()).orElseThrow();
    assertEquals(List.of("a", "", "b\r"), emit(spout, file, 1, range));
  }

  @Test
  void shouldRejectMalformedUtf8WithoutEmitting() throws IOException {
    Path file = dir.resolve("bad.log");
    Files.write(file, new byte[] {'o', 'k', '\n', (byte) 0xC3, '\n'});
    FileSpout spout = FileSpout.of("files", List.of(file), 10);
    FileRange range = spout.nextPartitionBatch(file.toString(), 1, Optional.empty()).orElseThrow();
    List<String> out = new ArrayList<>();
    InvalidRecordException e = assertThrows(InvalidRecordException.class,
        () -> spout.emitPartitionBatch(new BatchAttempt(1, 1), file.toString(), range, out::add));
    assertTrue(e.getMessage().contains("byte 3"), e.getMessage());
    assertEquals(List.of(), out);
  }

  @Test
  void shouldReadLinesLongerThanTheBufferAndMultiByteCharactersAcrossReads() throws IOException {
    String longLine = "é€𝄞".repeat(50);
    Path file = write("a.log", longLine + "\nshort\n" + longLine);
    FileSpout spout = new FileSpout("files", List.of(file), 10, 3);
    FileRange range = spout.nextPartitionBatch(file.toString(), 1, Optional.empty()).orElseThrow();
    assertEquals(crc(longLine + "\nshort\n"), range.crc32());
    assertEquals(List.of(longLine, "short"), emit(spout, file, 1, range));
  }

  @Test
  void shouldRejectARangeThatDoesNotEndOnALineBoundary() throws IOException {
    Path file = write("a.log", "ab\n");
    FileSpout spout = FileSpout.of("files", List.of(file), 1);
    // a recorded range this spout did not cut: no replay can emit it, so it stops the pipeline (not retried)
    assertFalse(io.epochal.errors.EpochalException.isRetryable(
        assertThrows(SourceChangedException.class, () -> emit(spout, file, 1, new FileRange(0, 2, crc("ab"))))));
  }

  @Test
  void shouldRejectUnknownPartitionsDuplicatesAndBadLimits() throws IOException {
    Path file = write("a.log", "x\n");
    FileSpout spout = FileSpout.of("files", List.of(file), 1);
    assertThrows(IllegalArgumentException.class, () -> spout.nextPartitionBatch("other", 1, Optional.empty()));
    assertThrows(IllegalArgumentException.class, () -> FileSpout.of("files", List.of(file, file), 1));
    assertThrows(IllegalArgumentException.class, () -> FileSpout.of("files", List.of(file), 0));
    assertEquals(List.of(file.toString()), spout.partitions());
    assertEquals("file-range:v1", spout.partitionMetadataCodec().id());
  }
}
