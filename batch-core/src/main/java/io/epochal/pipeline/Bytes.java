package io.epochal.pipeline;

import io.epochal.api.Stable;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * An immutable byte string with value equality: the key type to use where a {@code byte[]} would be one. A
 * {@code byte[]} has identity {@code equals} and {@code hashCode}, so two arrays with the same bytes would be two keys
 * (two cells, wrong counts); Epochal refuses array keys and offers this wrapper instead.
 *
 * <p>{@code groupBy} partitions a {@code Bytes} key by {@code farm_hash} of its bytes (the partition of the same bytes
 * as a YTsaurus {@code string} column), {@code io.epochal.store.table.KeyCodec.bytes()} (module {@code state-tables})
 * stores it in a {@code bytes} key column, and it may be an element of a composite ({@link java.util.List}) key.
 * Ordered like YTsaurus keys: lexicographically by unsigned bytes.
 *
 * <p>Immutable and thread-safe: the bytes are copied on the way in ({@link #of}) and out ({@link #toByteArray}).
 *
 * @since 0.2.0
 */
@Stable
public final class Bytes implements Comparable<Bytes>, java.io.Serializable {
  private static final long serialVersionUID = 1L;
  private static final Bytes EMPTY = new Bytes(new byte[0]);

  /** The bytes, owned by this instance and never modified. */
  private final byte[] bytes;
  /** {@code Arrays.hashCode(bytes)}, computed once. */
  private final int hash;

  private Bytes(byte[] bytes) {
    this.bytes = bytes;
    this.hash = Arrays.hashCode(bytes);
  }

  /**
   * A byte string of a whole array.
   *
   * @param bytes the bytes; copied, so later changes to the array do not change the result
   * @return the byte string holding a copy of {@code bytes}
   * @throws NullPointerException if {@code bytes} is null
   */
  public static Bytes of(byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    return bytes.length == 0 ? EMPTY : new Bytes(bytes.clone());
  }

  /**
   * A byte string of a range of an array.
   *
   * @param bytes the array holding the range, not null
   * @param offset the index of the range's first byte
   * @param length the number of bytes in the range, {@code >= 0}
   * @return the byte string of {@code length} bytes of {@code bytes} from {@code offset}, copied
   * @throws IndexOutOfBoundsException if the range is outside the array
   */
  public static Bytes of(byte[] bytes, int offset, int length) {
    Objects.checkFromIndexSize(offset, length, Objects.requireNonNull(bytes, "bytes").length);
    return length == 0 ? EMPTY : new Bytes(Arrays.copyOfRange(bytes, offset, offset + length));
  }

  /** @return the empty byte string */
  public static Bytes empty() {
    return EMPTY;
  }

  /** @return the number of bytes */
  public int size() {
    return bytes.length;
  }

  /**
   * One byte of the string.
   *
   * @param index the byte's position, in {@code [0, size())}
   * @return the byte at {@code index}
   * @throws IndexOutOfBoundsException if {@code index} is outside {@code [0, size())}
   */
  public byte get(int index) {
    return bytes[Objects.checkIndex(index, bytes.length)];
  }

  /** @return a copy of the bytes */
  public byte[] toByteArray() {
    return bytes.clone();
  }

  /** Equal when the bytes are equal. */
  @Override
  public boolean equals(Object o) {
    return o == this || o instanceof Bytes other && other.hash == hash && Arrays.equals(other.bytes, bytes);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  /** Lexicographic by unsigned bytes (YTsaurus key order); a prefix sorts first. */
  @Override
  public int compareTo(Bytes other) {
    return Arrays.compareUnsigned(bytes, other.bytes);
  }

  /** @return the bytes in lower-case hex, e.g. {@code 0x00ff10}; the empty string is {@code 0x} */
  @Override
  public String toString() {
    return "0x" + HexFormat.of().formatHex(bytes);
  }
}
