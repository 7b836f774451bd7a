package io.epochal.trident;

import io.epochal.codec.Codec;
import io.epochal.codec.CodecException;
import io.epochal.state.opaque.OpaqueValue;
import io.epochal.state.transactional.TransactionalValue;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Epochal codecs for Trident's three JSON cell layouts, as written by {@code JSONOpaqueSerializer}
 * ({@code [currTxid, curr, prev]}), {@code JSONTransactionalSerializer} ({@code [txid, val]}) and
 * {@code JSONNonTransactionalSerializer} (the bare value). Integral numbers decode as {@code Long}. A cell with a null
 * txid or a null value is refused with {@link CodecException} (Epochal cells always have both); a null {@code prev}
 * is "no previous value". Immutable and thread-safe.
 */
final class TridentJsonCodec {
  private TridentJsonCodec() {
  }

  enum Layout {
    OPAQUE("trident-json-opaque:v1"),
    TRANSACTIONAL("trident-json-transactional:v1"),
    VALUE("trident-json:v1");

    final String id;

    Layout(String id) {
      this.id = id;
    }
  }

  /** {@link #opaque()} as the codec of the value type the caller expects the JSON to decode to. */
  @SuppressWarnings("unchecked")
  static <V> Codec<OpaqueValue<V>> opaqueOf() {
    return (Codec<OpaqueValue<V>>) (Object) opaque();
  }

  /** {@link #transactional()} as the codec of the value type the caller expects the JSON to decode to. */
  @SuppressWarnings("unchecked")
  static <V> Codec<TransactionalValue<V>> transactionalOf() {
    return (Codec<TransactionalValue<V>>) (Object) transactional();
  }

  /** {@link #value()} as the codec of the value type the caller expects the JSON to decode to. */
  @SuppressWarnings("unchecked")
  static <V> Codec<V> valueOf() {
    return (Codec<V>) (Object) value();
  }

  static Codec<OpaqueValue<Object>> opaque() {
    return new Codec<>() {
      @Override
      public byte[] encode(OpaqueValue<Object> cell) {
        Objects.requireNonNull(cell, "value");
        return TridentJson.write(Arrays.asList(cell.txid(), cell.curr(), cell.prev().orElse(null)), "opaque cell");
      }

      @Override
      public OpaqueValue<Object> decode(byte[] bytes) {
        List<?> cell = array(bytes, 3, "an opaque cell [currTxid, curr, prev]");
        long txid = TridentJson.txid(cell.get(0), "opaque cell " + cell);
        Object curr = cell.get(1);
        if (curr == null) {
          throw new CodecException("opaque cell " + cell + " has a null value (a key Trident removed with "
              + "multiRemove); Epochal cells always hold a value");
        }
        return new OpaqueValue<>(curr, Optional.ofNullable(cell.get(2)), txid);
      }

      @Override
      public String id() {
        return Layout.OPAQUE.id;
      }

      @Override
      public String toString() {
        return id();
      }
    };
  }

  static Codec<TransactionalValue<Object>> transactional() {
    return new Codec<>() {
      @Override
      public byte[] encode(TransactionalValue<Object> cell) {
        Objects.requireNonNull(cell, "value");
        return TridentJson.write(Arrays.asList(cell.txid(), cell.value()), "transactional cell");
      }

      @Override
      public TransactionalValue<Object> decode(byte[] bytes) {
        List<?> cell = array(bytes, 2, "a transactional cell [txid, val]");
        long txid = TridentJson.txid(cell.get(0), "transactional cell " + cell);
        if (cell.get(1) == null) {
          throw new CodecException("transactional cell " + cell + " has a null value; Epochal cells always hold one");
        }
        return new TransactionalValue<>(cell.get(1), txid);
      }

      @Override
      public String id() {
        return Layout.TRANSACTIONAL.id;
      }

      @Override
      public String toString() {
        return id();
      }
    };
  }

  static Codec<Object> value() {
    return new Codec<>() {
      @Override
      public byte[] encode(Object value) {
        return TridentJson.write(Objects.requireNonNull(value, "value"), "value");
      }

      @Override
      public Object decode(byte[] bytes) {
        Object value = TridentJson.parse(Objects.requireNonNull(bytes, "bytes"), "a value");
        if (value == null) {
          throw new CodecException("the JSON value is null; a codec never decodes to null");
        }
        return value;
      }

      @Override
      public String id() {
        return Layout.VALUE.id;
      }

      @Override
      public String toString() {
        return id();
      }
    };
  }

  private static List<?> array(byte[] bytes, int size, String what) {
    Object parsed = TridentJson.parse(Objects.requireNonNull(bytes, "bytes"), what);
    if (!(parsed instanceof List<?> list) || list.size() != size) {
      throw new CodecException("expected " + what + ", a JSON array of " + size + " elements, got " + parsed);
    }
    return list;
  }
}
