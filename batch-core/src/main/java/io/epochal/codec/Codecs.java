package io.epochal.codec;

import io.epochal.api.Stable;
import io.epochal.codec.internal.KryoCodec;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * Factories of the standard {@link Codec}s. Every codec returned is immutable and thread-safe, rejects {@code null}
 * with {@link NullPointerException}, and throws {@link CodecException} for bytes it cannot decode exactly.
 *
 * @since 0.1.0
 */
@Stable
public final class Codecs {

  private static final Codec<Long> LONGS = new LongCodec();
  private static final Codec<String> STRINGS = new StringCodec();
  private static final Codec<byte[]> BYTES = new BytesCodec();

  private Codecs() {
  }

  /**
   * Longs as exactly 8 bytes, big-endian (two's complement), so the byte order of non-negative values matches
   * their numeric order. Id {@code "long-be:v1"}. Decoding anything but 8 bytes throws {@link CodecException}.
   *
   * @return the shared instance
   */
  public static Codec<Long> longs() {
    return LONGS;
  }

  /**
   * Strings as their UTF-8 bytes, nothing else. Id {@code "utf8:v1"}. Encoding a string with an unpaired surrogate
   * and decoding malformed UTF-8 throw {@link CodecException} (nothing is replaced silently).
   *
   * @return the shared instance
   */
  public static Codec<String> strings() {
    return STRINGS;
  }

  /**
   * Byte arrays as themselves (identity format). Id {@code "bytes:v1"}. Both directions return a copy, so neither
   * the caller nor a store can alter the other's array afterwards. Any byte array, including an empty one, decodes.
   *
   * @return the shared instance
   */
  public static Codec<byte[]> bytes() {
    return BYTES;
  }

  /**
   * Kryo codec with registration required. The common JDK types (boxed primitives, {@code String}, primitive
   * arrays, {@code String[]}, {@code Object[]}, {@code ArrayList}, {@code LinkedList}, {@code HashMap},
   * {@code LinkedHashMap}, {@code TreeMap}, {@code HashSet}, {@code LinkedHashSet}, {@code TreeSet}, the
   * {@code List.of}/{@code Set.of}/{@code Map.of} immutables, {@code Collections.empty*}/{@code singleton*},
   * {@code BigInteger}, {@code BigDecimal}, {@code UUID} and the common {@code java.time} types) are pre-registered
   * under fixed ids; {@code registered} classes (records, enums, plain classes, arrays) follow in the given order
   * under fixed ids starting at {@value KryoCodec#FIRST_USER_ID}, so bytes written by one JVM decode in another as
   * long as the same classes are passed in the same order. Every class reachable from a value, including field and
   * element types, must be registered; otherwise {@link Codec#encode} throws {@link CodecException} naming the class.
   *
   * <p>Id {@code "kryo:v1:" + } the comma-separated names of the registered classes (pre-registered JDK types passed
   * here are ignored and not listed). Thread-safe through an internal pool of Kryo instances; no thread-locals.
   *
   * @param registered user classes to register, in a fixed order; not {@code null}, no {@code null} elements, no
   *     duplicates
   * @param <T> the value type
   * @return a new codec
   * @throws IllegalArgumentException if a class is listed twice, or Kryo cannot build a serializer for it (for
   *     example a JDK class whose fields are not accessible)
   * @throws NullPointerException if {@code registered} or one of its elements is {@code null}
   */
  public static <T> Codec<T> kryo(Class<?>... registered) {
    return new KryoCodec<>(registered);
  }

  private static final class LongCodec implements Codec<Long> {
    @Override
    public byte[] encode(Long value) {
      long v = Objects.requireNonNull(value, "value");
      byte[] b = new byte[8];
      for (int i = 7; i >= 0; i--) {
        b[i] = (byte) v;
        v >>>= 8;
      }
      return b;
    }

    @Override
    public Long decode(byte[] bytes) {
      Objects.requireNonNull(bytes, "bytes");
      if (bytes.length != 8) {
        throw new CodecException("long-be:v1 expects exactly 8 bytes, got " + bytes.length);
      }
      long v = 0;
      for (int i = 0; i < 8; i++) {
        v = (v << 8) | (bytes[i] & 0xffL);
      }
      return v;
    }

    @Override
    public String id() {
      return "long-be:v1";
    }

    @Override
    public String toString() {
      return "Codecs.longs()";
    }
  }

  private static final class StringCodec implements Codec<String> {
    @Override
    public byte[] encode(String value) {
      Objects.requireNonNull(value, "value");
      if (hasUnpairedSurrogate(value)) {
        throw new CodecException("utf8:v1 cannot encode a string with an unpaired surrogate (it has no UTF-8 form)");
      }
      return value.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String decode(byte[] bytes) {
      Objects.requireNonNull(bytes, "bytes");
      String s = new String(bytes, StandardCharsets.UTF_8);
      // The lenient decoder replaces malformed input by U+FFFD; only then run the strict decoder to tell a
      // genuine U+FFFD from a replacement.
      if (s.indexOf('\uFFFD') >= 0) {
        try {
          StandardCharsets.UTF_8.newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes));
        } catch (CharacterCodingException e) {
          throw new CodecException("utf8:v1 cannot decode " + bytes.length + " bytes: malformed UTF-8", e);
        }
      }
      return s;
    }

    private static boolean hasUnpairedSurrogate(String s) {
      for (int i = 0, n = s.length(); i < n; i++) {
        char c = s.charAt(i);
        if (Character.isSurrogate(c)) {
          if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
            i++;
          } else {
            return true;
          }
        }
      }
      return false;
    }

    @Override
    public String id() {
      return "utf8:v1";
    }

    @Override
    public String toString() {
      return "Codecs.strings()";
    }
  }

  private static final class BytesCodec implements Codec<byte[]> {
    @Override
    public byte[] encode(byte[] value) {
      Objects.requireNonNull(value, "value");
      return Arrays.copyOf(value, value.length);
    }

    @Override
    public byte[] decode(byte[] bytes) {
      Objects.requireNonNull(bytes, "bytes");
      return Arrays.copyOf(bytes, bytes.length);
    }

    @Override
    public String id() {
      return "bytes:v1";
    }

    @Override
    public String toString() {
      return "Codecs.bytes()";
    }
  }
}
