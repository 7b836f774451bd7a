package io.epochal.tools.internal;

import io.epochal.codec.Codec;
import io.epochal.codec.CodecException;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Decodes the checkpoint metadata of a pipeline with several sources, given each source's metadata codec in the
 * pipeline's source order: the engine's merged-metadata format 1 (a byte {@code 1}, the source count, then per source
 * a flag byte, 1: it has records in the batch, 2: metadata follows, and with flag 2 the length and bytes of the
 * source's own metadata). Decode only ({@link #encode} is refused). Immutable; thread-safe if the codecs are.
 */
public final class MergedMetadata implements Codec<List<MergedMetadata.Source>> {
  private static final byte FORMAT = 1;
  private static final int PRESENT = 1;
  private static final int HAS_META = 2;

  private final List<Codec<?>> sources;

  /**
   * One source's share of a batch.
   *
   * @param index the source's position in the pipeline
   * @param inBatch whether it had records in the batch
   * @param metadata its latest metadata (carried from an earlier batch when it had nothing new), if any
   */
  public record Source(int index, boolean inBatch, Optional<Object> metadata) {
  }

  /**
   * A decoder of the merged metadata of a pipeline with these sources.
   *
   * @param sources the metadata codec of each source, in the order the sources were declared
   */
  public MergedMetadata(List<Codec<?>> sources) {
    this.sources = List.copyOf(sources);
  }

  @Override
  public byte[] encode(List<Source> value) {
    throw new UnsupportedOperationException("the tool only reads metadata");
  }

  @Override
  public List<Source> decode(byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      byte format = in.readByte();
      if (format != FORMAT) {
        throw new CodecException(id() + ": unknown merged-metadata format " + format + " (a single-source pipeline "
            + "wrote it? then give one --metadata-codec)");
      }
      int n = in.readInt();
      if (n != sources.size()) {
        throw new CodecException(id() + ": the metadata holds " + n + " sources, " + sources.size()
            + " codecs were given");
      }
      List<Source> out = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        int flags = in.readByte();
        Optional<Object> meta = Optional.empty();
        if ((flags & HAS_META) != 0) {
          int len = in.readInt();
          if (len < 0 || len > in.available()) {
            throw new CodecException(id() + ": bad metadata length " + len + " of source " + i);
          }
          byte[] b = new byte[len];
          in.readFully(b);
          meta = Optional.of(sources.get(i).decode(b));
        }
        out.add(new Source(i, (flags & PRESENT) != 0, meta));
      }
      if (in.available() != 0) {
        throw new CodecException(id() + ": " + in.available() + " trailing bytes");
      }
      return out;
    } catch (IOException e) {
      throw new CodecException(id() + ": truncated (" + e.getMessage() + ")", e);
    }
  }

  @Override
  public String id() {
    List<String> ids = new ArrayList<>();
    sources.forEach(c -> ids.add(c.id()));
    return "merged:v1" + ids;
  }
}
