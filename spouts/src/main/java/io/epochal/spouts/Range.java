package io.epochal.spouts;

import io.epochal.api.Evolving;
import io.epochal.codec.Codec;
import io.epochal.codec.CodecException;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A half-open range {@code [start, end)} of record indexes: the batch metadata of {@link ListSpout} and
 * {@link GeneratedSpout}. The same range always stands for the same records.
 *
 * <p>Immutable and thread-safe. Primitive components; the codec rejects {@code null} with
 * {@link NullPointerException}.
 *
 * @param start the index of the first record, {@code >= 0}
 * @param end the index after the last record, {@code >= start}
 * @since 0.1.0
 */
@Evolving
public record Range(long start, long end) {

  private static final Codec<Range> CODEC = new RangeCodec();

  /**
   * Validates the range.
   *
   * @param start the index of the first record, {@code >= 0}
   * @param end the index after the last record, {@code >= start}
   * @throws IllegalArgumentException if {@code start < 0} or {@code end < start}
   */
  public Range {
    if (start < 0 || end < start) {
      throw new IllegalArgumentException("Bad range [" + start + ", " + end + "): need 0 <= start <= end");
    }
  }

  /** @return the number of records, {@code end - start} */
  public long length() {
    return end - start;
  }

  /** @return whether the range holds no record */
  public boolean isEmpty() {
    return start == end;
  }

  @Override
  public String toString() {
    return "[" + start + ", " + end + ")";
  }

  /**
   * The codec of ranges: 16 bytes, {@code start} then {@code end}, big-endian. Id {@code "range:v1"}. Decoding
   * anything but 16 bytes of a valid range throws {@link CodecException}. Thread-safe.
   *
   * @return the shared instance
   */
  public static Codec<Range> codec() {
    return CODEC;
  }

  private static final class RangeCodec implements Codec<Range> {
    @Override
    public byte[] encode(Range value) {
      Objects.requireNonNull(value, "value");
      return ByteBuffer.allocate(16).putLong(value.start).putLong(value.end).array();
    }

    @Override
    public Range decode(byte[] bytes) {
      Objects.requireNonNull(bytes, "bytes");
      if (bytes.length != 16) {
        throw new CodecException("range:v1: expected 16 bytes, got " + bytes.length);
      }
      ByteBuffer buf = ByteBuffer.wrap(bytes);
      long start = buf.getLong();
      long end = buf.getLong();
      try {
        return new Range(start, end);
      } catch (IllegalArgumentException e) {
        throw new CodecException("range:v1: " + e.getMessage(), e);
      }
    }

    @Override
    public String id() {
      return "range:v1";
    }

    @Override
    public String toString() {
      return id();
    }
  }
}
