package io.epochal.store.ytsaurus;

import io.epochal.api.Evolving;
import io.epochal.codec.Codec;
import io.epochal.codec.CodecException;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The row offsets {@code [from, to)} of one queue partition (tablet) in one batch: the per-partition metadata of both
 * YTsaurus queue spouts. Offsets are YTsaurus row indexes within the tablet ({@code $row_index}); {@code to} is the
 * offset of the first row after the batch, which is also what the partition's queue consumer is advanced to.
 *
 * <p>Transactional spout: the range of batch {@code txid} is fixed before emission and recorded with the pending
 * metadata; a replay emits exactly the rows with offsets in it. Opaque spout: the range the last emission read. Under
 * {@link YtTrimmedRowsPolicy#SKIP} a range may start before its first row (the rows in between were trimmed).
 *
 * <p>Immutable and thread-safe.
 *
 * @param from the first offset, {@code >= 0}
 * @param to the offset after the last one, {@code >= from}
 * @since 0.4.0
 */
@Evolving
public record YtQueueRange(long from, long to) {
  private static final Codec<YtQueueRange> CODEC = new RangeCodec();

  /**
   * Makes the range {@code [from, to)}.
   *
   * @param from the first offset, {@code >= 0}
   * @param to the offset after the last one, {@code >= from}
   * @throws IllegalArgumentException if {@code from < 0} or {@code to < from}
   */
  public YtQueueRange {
    if (from < 0 || to < from) {
      throw new IllegalArgumentException("Bad queue range [" + from + ", " + to + "): need 0 <= from <= to");
    }
  }

  /**
   * Tells whether the range is empty.
   *
   * @return whether the range holds no offset ({@code from == to})
   */
  public boolean isEmpty() {
    return from == to;
  }

  /**
   * The size of the range.
   *
   * @return {@code to - from}
   */
  public long size() {
    return to - from;
  }

  @Override
  public String toString() {
    return "rows [" + from + ", " + to + ")";
  }

  /**
   * The codec of ranges: 17 bytes, a version byte {@code 1}, then {@code from} and {@code to} as big-endian longs. Id
   * {@code "yt-queue-range:v1"}. Anything else throws {@link CodecException}. Thread-safe.
   *
   * @return the shared instance
   */
  public static Codec<YtQueueRange> codec() {
    return CODEC;
  }

  private static final class RangeCodec implements Codec<YtQueueRange> {
    private static final String ID = "yt-queue-range:v1";

    @Override
    public byte[] encode(YtQueueRange value) {
      Objects.requireNonNull(value, "value");
      return ByteBuffer.allocate(17).put((byte) 1).putLong(value.from).putLong(value.to).array();
    }

    @Override
    public YtQueueRange decode(byte[] bytes) {
      Objects.requireNonNull(bytes, "bytes");
      if (bytes.length != 17) {
        throw new CodecException(ID + ": expected 17 bytes, got " + bytes.length);
      }
      ByteBuffer buf = ByteBuffer.wrap(bytes);
      byte version = buf.get();
      if (version != 1) {
        throw new CodecException(ID + ": unknown version " + version);
      }
      long from = buf.getLong();
      long to = buf.getLong();
      try {
        return new YtQueueRange(from, to);
      } catch (IllegalArgumentException e) {
        throw new CodecException(ID + ": " + e.getMessage(), e);
      }
    }

    @Override
    public String id() {
      return ID;
    }

    @Override
    public String toString() {
      return ID;
    }
  }
}
