package io.epochal.spouts;

import io.epochal.api.Evolving;
import io.epochal.codec.Codec;
import io.epochal.codec.CodecException;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The bytes {@code [start, end)} of one file and their CRC-32, fixed when the range was cut: the per-file batch
 * metadata of {@link FileSpout}. Re-emitting the range re-reads these bytes and checks the CRC, so a file that was
 * truncated or rewritten under a recorded range is detected instead of emitting other lines under the same txid.
 *
 * <p>Immutable and thread-safe. Primitive components; the codec rejects {@code null} with
 * {@link NullPointerException}.
 *
 * @param start the offset of the first byte, {@code >= 0}
 * @param end the offset after the last byte (just after a {@code '\n'}, unless the range is empty), {@code >= start}
 * @param crc32 the {@link java.util.zip.CRC32} of the bytes, in {@code [0, 2^32)}
 * @since 0.1.0
 */
@Evolving
public record FileRange(long start, long end, long crc32) {

  private static final Codec<FileRange> CODEC = new FileRangeCodec();

  /**
   * Validates the range.
   *
   * @param start the offset of the first byte, {@code >= 0}
   * @param end the offset after the last byte, {@code >= start}
   * @param crc32 the CRC-32 of the bytes, in {@code [0, 2^32)}
   * @throws IllegalArgumentException if {@code start < 0}, {@code end < start} or {@code crc32} is not a 32-bit
   *     unsigned value
   */
  public FileRange {
    if (start < 0 || end < start) {
      throw new IllegalArgumentException("Bad file range [" + start + ", " + end + "): need 0 <= start <= end");
    }
    if (crc32 < 0 || crc32 > 0xFFFF_FFFFL) {
      throw new IllegalArgumentException("Bad CRC-32 " + crc32 + ": need 0 <= crc32 < 2^32");
    }
  }

  /** @return the number of bytes, {@code end - start} */
  public long length() {
    return end - start;
  }

  @Override
  public String toString() {
    return "bytes [" + start + ", " + end + ") crc32 " + String.format("%08x", crc32);
  }

  /**
   * The codec of file ranges: 24 bytes, {@code start}, {@code end}, {@code crc32}, each a big-endian long. Id
   * {@code "file-range:v1"}. Decoding anything but 24 bytes of a valid range throws {@link CodecException}.
   * Thread-safe.
   *
   * @return the shared instance
   */
  public static Codec<FileRange> codec() {
    return CODEC;
  }

  private static final class FileRangeCodec implements Codec<FileRange> {
    @Override
    public byte[] encode(FileRange value) {
      Objects.requireNonNull(value, "value");
      return ByteBuffer.allocate(24).putLong(value.start).putLong(value.end).putLong(value.crc32).array();
    }

    @Override
    public FileRange decode(byte[] bytes) {
      Objects.requireNonNull(bytes, "bytes");
      if (bytes.length != 24) {
        throw new CodecException("file-range:v1: expected 24 bytes, got " + bytes.length);
      }
      ByteBuffer buf = ByteBuffer.wrap(bytes);
      long start = buf.getLong();
      long end = buf.getLong();
      long crc = buf.getLong();
      try {
        return new FileRange(start, end, crc);
      } catch (IllegalArgumentException e) {
        throw new CodecException("file-range:v1: " + e.getMessage(), e);
      }
    }

    @Override
    public String id() {
      return "file-range:v1";
    }

    @Override
    public String toString() {
      return id();
    }
  }
}
