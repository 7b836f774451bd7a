package io.epochal.spouts.kafka;

import io.epochal.api.Evolving;
import io.epochal.codec.Codec;
import io.epochal.codec.CodecException;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The offsets {@code [from, to)} of one Kafka partition in one batch: the per-partition metadata of both Kafka
 * spouts. {@code to} is a <em>position</em>, not {@code from} plus a count: a compacted topic, aborted transactional
 * records and transaction markers leave offsets without a record, so a range may hold fewer records than
 * {@code to - from} (even none). The next batch of the partition starts at {@code to}, which is also the offset
 * mirrored to a consumer group.
 *
 * <p>Transactional spout: the range of batch {@code txid} is fixed before emission, recorded with the pending
 * metadata, and a replay emits exactly the records with offsets in it. Opaque spout: the range the last emission of
 * the batch read.
 *
 * <p>Immutable and thread-safe.
 *
 * @param from the first offset, {@code >= 0}
 * @param to the offset after the last one, {@code >= from}
 * @since 0.1.0
 */
@Evolving
public record OffsetRange(long from, long to) {
  private static final Codec<OffsetRange> CODEC = new RangeCodec();

  /**
   * Makes the range {@code [from, to)}.
   *
   * @param from the first offset, {@code >= 0}
   * @param to the offset after the last one, {@code >= from}
   * @throws IllegalArgumentException if {@code from < 0} or {@code to < from}
   */
  public OffsetRange {
    if (from < 0 || to < from) {
      throw new IllegalArgumentException("Bad offset range [" + from + ", " + to + "): need 0 <= from <= to");
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
   * Tells whether the range holds an offset.
   *
   * @param offset any offset (negative ones are never contained)
   * @return whether {@code offset} lies in {@code [from, to)}
   */
  public boolean contains(long offset) {
    return offset >= from && offset < to;
  }

  @Override
  public String toString() {
    return "offsets [" + from + ", " + to + ")";
  }

  /**
   * The codec of offset ranges: 17 bytes, a version byte {@code 1}, then {@code from} and {@code to} as big-endian
   * longs. Id {@code "kafka-offset-range:v1"}. Anything else (other lengths or versions, an invalid range) throws
   * {@link CodecException}. Thread-safe.
   *
   * @return the shared instance
   */
  public static Codec<OffsetRange> codec() {
    return CODEC;
  }

  private static final class RangeCodec implements Codec<OffsetRange> {
    private static final String ID = "kafka-offset-range:v1";

    @Override
    public byte[] encode(OffsetRange value) {
      Objects.requireNonNull(value, "value");
      return ByteBuffer.allocate(17).put((byte) 1).putLong(value.from).putLong(value.to).array();
    }

    @Override
    public OffsetRange decode(byte[] bytes) {
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
        return new OffsetRange(from, to);
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
