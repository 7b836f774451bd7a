package io.epochal.codec;

import io.epochal.api.Stable;

/**
 * Converts values of type {@code T} to bytes and back, for state that is stored or shipped between processes.
 *
 * <p>Contract every implementation keeps:
 * <ul>
 *   <li><b>Round trip:</b> {@code decode(encode(v))} equals {@code v}.</li>
 *   <li><b>No silent misreads:</b> {@link #decode(byte[])} either returns the value that was encoded or throws
 *       {@link CodecException}; garbage, truncated bytes and trailing bytes are rejected, never read as some other
 *       value.</li>
 *   <li><b>Thread safety:</b> one instance may be used by any number of threads at once.</li>
 *   <li><b>Nulls:</b> {@code encode(null)} and {@code decode(null)} throw {@link NullPointerException}; a codec never
 *       encodes or decodes to {@code null}. Represent absence outside the codec.</li>
 *   <li><b>Ownership:</b> neither method retains or modifies its argument; the returned array or value belongs to the
 *       caller.</li>
 * </ul>
 *
 * @param <T> the type of the values
 *
 * @since 0.1.0
 */
@Stable
public interface Codec<T> {

  /**
   * Encodes a value.
   *
   * @param value the value, not {@code null}
   * @return the encoding, a fresh array owned by the caller
   * @throws NullPointerException if {@code value} is {@code null}
   * @throws CodecException if the value cannot be represented by this codec (for example an unregistered class)
   */
  byte[] encode(T value);

  /**
   * Decodes bytes produced by {@link #encode(Object)} of a codec with the same {@link #id()}.
   *
   * @param bytes the encoding, not {@code null}; not modified or retained
   * @return the decoded value, never {@code null}
   * @throws NullPointerException if {@code bytes} is {@code null}
   * @throws CodecException if the bytes are not a complete, valid encoding (garbage, truncated, trailing bytes)
   */
  T decode(byte[] bytes);

  /**
   * Stable identifier of the byte format, for example {@code "long-be:v1"} or
   * {@code "kryo:v1:com.example.Banner"}. Two codecs with equal ids read each other's bytes; durable stores record
   * it next to the state and refuse to open a state written under a different id.
   *
   * @return the format identifier, never {@code null}
   */
  String id();
}
