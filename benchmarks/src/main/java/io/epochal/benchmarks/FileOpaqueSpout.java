package io.epochal.benchmarks;

import io.epochal.codec.Codec;
import io.epochal.codec.Codecs;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.OpaqueSpout;
import java.nio.file.Path;
import java.util.Optional;

/**
 * An opaque spout over one newline-delimited file: the metadata is the byte offset after the batch, each batch the
 * next at most {@code maxLines} lines after the previous batch's offset.
 */
public final class FileOpaqueSpout implements OpaqueSpout<String, Long> {
  private final String name;
  private final Path file;
  private final int maxLines;

  /**
   * Creates the spout; the file is read lazily on each batch.
   *
   * @param name the spout's name, unique in its pipeline (keys its metadata)
   * @param file the newline-delimited input file
   * @param maxLines the most lines per batch, positive
   */
  public FileOpaqueSpout(String name, Path file, int maxLines) {
    this.name = name;
    this.file = file;
    this.maxLines = maxLines;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Codec<Long> metadataCodec() {
    return Codecs.longs();
  }

  @Override
  public boolean isReady(long txid, Optional<Long> previous) {
    return previous.orElse(0L) < FileLines.length(file);
  }

  @Override
  public Long emit(BatchAttempt attempt, Optional<Long> previous, Collector<String> out) {
    return FileLines.read(file, previous.orElse(0L), maxLines, out::emit);
  }
}
