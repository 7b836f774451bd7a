package io.epochal.spouts;

import io.epochal.api.Evolving;
import io.epochal.codec.Codec;
import io.epochal.errors.InvalidRecordException;
import io.epochal.errors.SourceChangedException;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.PartitionedMetadata;
import io.epochal.spout.PartitionedTransactionalSpout;
import io.epochal.spout.Spouts;
import io.epochal.spout.TransactionalSpout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A partitioned transactional spout over newline-delimited UTF-8 files that are only ever appended to. Each file
 * is a partition, named by its path exactly as given ({@link Path#toString()}); its per-batch metadata is a
 * {@link FileRange}: a byte range and the CRC-32 of those bytes. Use {@link #transactional} for the adapted
 * {@link TransactionalSpout}.
 *
 * <p><b>Cutting.</b> A new range of a file starts where the file's previous range ended (0 for the first) and
 * holds the next at most {@code maxLinesPerBatch} <em>complete</em> lines, i.e. it ends just after a {@code '\n'}.
 * A final line without {@code '\n'} is not emitted until its {@code '\n'} is written (a file that does not end with a
 * newline never emits its last line). A file that does not exist yet and has no range is skipped (it has nothing
 * new); it joins once it appears.
 *
 * <p><b>Records.</b> One {@code String} per line, without its {@code '\n'}; one trailing {@code '\r'} is removed too
 * (CRLF files). Empty lines are emitted as empty strings. Lines must be valid UTF-8: a malformed line makes
 * {@code emitPartitionBatch} throw {@link InvalidRecordException} naming the file and the line's byte offset
 * (nothing is replaced silently).
 *
 * <p><b>Replay promise:</b> transactional. Emitting a range re-reads its bytes with positional reads, checks that
 * the file is still at least {@code end} bytes long and that the CRC-32 matches, and only then emits its lines;
 * otherwise it throws {@link SourceChangedException} naming the file, the range and the txid, and emits nothing.
 * Cutting a new range checks that the file still reaches the previous range's end and that the byte before it is
 * still {@code '\n'}. A truncated, rewritten or deleted file under a recorded range is always an error, never a
 * silent skip or re-read. I/O errors are thrown as {@link UncheckedIOException} naming the spout, file and txid.
 *
 * <p><b>Thread-safety:</b> immutable; each call opens and closes its own channel, so calls may run concurrently.
 * Cutting a range needs only a fixed read buffer (64 KiB), whatever the file and line sizes; emitting holds the
 * batch's lines, which the engine holds anyway.
 *
 * <p><b>Nulls:</b> null arguments throw {@link NullPointerException}.
 *
 * @since 0.1.0
 */
@Evolving
public final class FileSpout implements PartitionedTransactionalSpout<String, FileRange> {
  static final int DEFAULT_BUFFER_SIZE = 64 * 1024;

  private final String name;
  private final Map<String, Path> files;
  private final List<String> partitions;
  private final int maxLinesPerBatch;
  private final int bufferSize;

  FileSpout(String name, List<Path> paths, int maxLinesPerBatch, int bufferSize) {
    this.name = Objects.requireNonNull(name, "name");
    Objects.requireNonNull(paths, "paths");
    this.maxLinesPerBatch = Ranges.checkBatchSize(maxLinesPerBatch, "maxLinesPerBatch of spout " + name);
    if (bufferSize < 1) {
      throw new IllegalArgumentException("bufferSize must be >= 1, was " + bufferSize);
    }
    this.bufferSize = bufferSize;
    LinkedHashMap<String, Path> byName = new LinkedHashMap<>();
    for (Path path : paths) {
      Objects.requireNonNull(path, "path");
      if (byName.put(path.toString(), path) != null) {
        throw new IllegalArgumentException("Spout " + name + " lists file " + path + " twice");
      }
    }
    this.files = Collections.unmodifiableMap(byName);
    this.partitions = List.copyOf(byName.keySet());
  }

  /**
   * A file spout over {@code paths}, one partition per file.
   *
   * @param name the spout name, unique within the pipeline
   * @param paths the files, each named by its {@code toString()}; no duplicates
   * @param maxLinesPerBatch the maximum number of lines of one file in one batch, {@code >= 1}
   * @return a new spout
   * @throws NullPointerException if an argument or a path is {@code null}
   * @throws IllegalArgumentException if a path is listed twice or {@code maxLinesPerBatch < 1}
   */
  public static FileSpout of(String name, List<Path> paths, int maxLinesPerBatch) {
    return new FileSpout(name, paths, maxLinesPerBatch, DEFAULT_BUFFER_SIZE);
  }

  /**
   * A file spout adapted with {@link Spouts#partitioned(PartitionedTransactionalSpout)}: a batch holds, per file
   * with new complete lines, the next at most {@code maxLinesPerBatch} of them, files in ascending path order.
   *
   * @param name the spout name, unique within the pipeline
   * @param paths the files, each named by its {@code toString()}; no duplicates
   * @param maxLinesPerBatch the maximum number of lines of one file in one batch, {@code >= 1}
   * @return a new transactional spout over the files
   * @see #of(String, List, int)
   */
  public static TransactionalSpout<String, PartitionedMetadata<FileRange>> transactional(String name,
      List<Path> paths, int maxLinesPerBatch) {
    return Spouts.partitioned(of(name, paths, maxLinesPerBatch));
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public List<String> partitions() {
    return partitions;
  }

  /** @return the maximum number of lines of one file in one batch */
  public int maxLinesPerBatch() {
    return maxLinesPerBatch;
  }

  @Override
  public Codec<FileRange> partitionMetadataCodec() {
    return FileRange.codec();
  }

  /**
   * {@inheritDoc}
   *
   * @throws SourceChangedException if the file is now shorter than {@code previous}'s end, no longer has a
   *     {@code '\n'} just before it, or was deleted
   * @throws IllegalArgumentException if {@code partition} is not one of this spout's files
   * @throws UncheckedIOException on an I/O error
   */
  @Override
  public Optional<FileRange> nextPartitionBatch(String partition, long txid, Optional<FileRange> previous) {
    Path path = path(partition);
    Objects.requireNonNull(previous, "previous");
    long start = previous.map(FileRange::end).orElse(0L);
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      long size = channel.size();
      if (size < start) {
        throw new SourceChangedException("Spout " + name + ": file " + partition + " is now " + size
            + " bytes long, shorter than the end of its previous range " + previous.get()
            + "; cannot cut txid " + txid + " (truncated or replaced file)");
      }
      if (start > 0) {
        ByteBuffer last = ByteBuffer.allocate(1);
        if (channel.read(last, start - 1) != 1 || last.get(0) != '\n') {
          throw new SourceChangedException("Spout " + name + ": file " + partition + " no longer has a line end"
              + " at byte " + (start - 1) + ", the end of its previous range " + previous.get()
              + "; cannot cut txid " + txid + " (rewritten file)");
        }
      }
      LineScanner.Cut cut = LineScanner.cut(channel, start, size, maxLinesPerBatch, bufferSize);
      return cut.lines() == 0 ? Optional.empty() : Optional.of(new FileRange(start, cut.end(), cut.crc()));
    } catch (NoSuchFileException e) {
      if (previous.isEmpty()) {
        return Optional.empty();
      }
      throw new SourceChangedException("Spout " + name + ": file " + partition + " was deleted after its range "
          + previous.get() + "; cannot cut txid " + txid);
    } catch (IOException e) {
      throw new UncheckedIOException("Spout " + name + ": cannot read file " + partition + " to cut txid " + txid, e);
    }
  }

  /**
   * {@inheritDoc}
   *
   * @throws SourceChangedException if the file was deleted, is shorter than {@code metadata.end()}, its bytes in
   *     the range no longer match the CRC-32, or {@code metadata} does not end just after a {@code '\n'} (not cut by
   *     this spout); nothing is emitted then (not retryable)
   * @throws InvalidRecordException if a line of the range is not valid UTF-8; nothing is emitted then
   * @throws IllegalArgumentException if {@code partition} is not one of this spout's files
   * @throws UncheckedIOException on an I/O error
   */
  @Override
  public void emitPartitionBatch(BatchAttempt attempt, String partition, FileRange metadata, Collector<String> out) {
    Objects.requireNonNull(attempt, "attempt");
    Objects.requireNonNull(metadata, "metadata");
    Objects.requireNonNull(out, "out");
    Path path = path(partition);
    List<String> lines = new ArrayList<>();
    long[] malformedAt = {-1};
    CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      long size = channel.size();
      if (size < metadata.end()) {
        throw changed(attempt, partition, metadata, "the file is now " + size + " bytes long (truncated)");
      }
      LineScanner.Read read = LineScanner.read(channel, metadata.start(), metadata.end(), bufferSize,
          (offset, line, length) -> {
            int n = length > 0 && line[length - 1] == '\r' ? length - 1 : length;
            try {
              lines.add(decoder.decode(ByteBuffer.wrap(line, 0, n)).toString());
            } catch (CharacterCodingException e) {
              if (malformedAt[0] < 0) {
                malformedAt[0] = offset;
              }
            }
          });
      if (read.bytesRead() != metadata.length()) {
        throw changed(attempt, partition, metadata, "only " + read.bytesRead() + " bytes could be read (truncated)");
      }
      if (read.crc() != metadata.crc32()) {
        throw changed(attempt, partition, metadata,
            "the bytes now have CRC-32 " + String.format("%08x", read.crc()) + " (rewritten)");
      }
      if (read.lastLineEnd() != metadata.end()) {
        throw changed(attempt, partition, metadata, "the range does not end on a line boundary (the last complete "
            + "line ends at byte " + read.lastLineEnd() + "): it was not cut by this spout, and no replay can emit it");
      }
    } catch (NoSuchFileException e) {
      throw changed(attempt, partition, metadata, "the file was deleted");
    } catch (IOException e) {
      throw new UncheckedIOException("Spout " + name + ": cannot read " + metadata + " of file " + partition
          + " for " + attempt, e);
    }
    if (malformedAt[0] >= 0) {
      throw new InvalidRecordException("Spout " + name + ": the line at byte " + malformedAt[0] + " of file "
          + partition + " is not valid UTF-8 (" + attempt + ", " + metadata + ")");
    }
    for (String line : lines) {
      out.emit(line);
    }
  }

  private SourceChangedException changed(BatchAttempt attempt, String partition, FileRange range, String why) {
    return new SourceChangedException("Spout " + name + ": file " + partition + " changed under the recorded range "
        + range + " of txid " + attempt.txid() + " (attempt " + attempt.attempt() + "): " + why
        + "; the batch cannot be replayed with the same lines");
  }

  private Path path(String partition) {
    Path path = files.get(Objects.requireNonNull(partition, "partition"));
    if (path == null) {
      throw new IllegalArgumentException("Spout " + name + " has no file " + partition + "; files: " + partitions);
    }
    return path;
  }

  @Override
  public String toString() {
    return "FileSpout(" + name + ", " + partitions.size() + " files, maxLinesPerBatch " + maxLinesPerBatch + ")";
  }
}
