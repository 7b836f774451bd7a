package io.epochal.trident;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.epochal.codec.CodecException;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON as Trident writes it (json-smart since Storm 2.6, json-simple before), read back with integral numbers as
 * {@code Long} (Storm 2.x returns {@code Integer} for small ones, which then fails with a {@code ClassCastException}
 * in {@code Count}), decimals as {@code Double}, arrays as {@code ArrayList} and objects as {@code LinkedHashMap}.
 * Only JSON values are written: strings, booleans, numbers (finite), lists, maps with string keys and nulls inside
 * them; anything else is refused with {@link CodecException} instead of being turned into a map that would read back
 * as another type. Thread-safe.
 */
final class TridentJson {
  private static final ObjectMapper MAPPER = new ObjectMapper()
      .enable(DeserializationFeature.USE_LONG_FOR_INTS)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private TridentJson() {
  }

  /** Parses one JSON value; integral numbers come back as {@code Long} ({@code BigInteger} beyond 64 bits). */
  static Object parse(byte[] bytes, String what) {
    try {
      // Decoded as a String: Trident's JSON is always UTF-8, and jackson-core's byte-source encoding detection once
      // failed here (storm-cluster-tests' reader) with ArrayIndexOutOfBoundsException on the valid 1-byte value "1".
      // Strict: malformed UTF-8 is a CharacterCodingException (an IOException), never replaced.
      String text = java.nio.charset.StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
          .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
          .decode(java.nio.ByteBuffer.wrap(bytes)).toString();
      return MAPPER.readValue(text, Object.class);
    } catch (IOException | RuntimeException e) { // a parser failure of any kind is undecodable bytes, never absent
      throw new CodecException("cannot read " + what + " as JSON (" + bytes.length + " bytes): " + e.getMessage(), e);
    }
  }

  /** Writes one JSON value, refusing non-JSON types (see the class comment). */
  static byte[] write(Object value, String what) {
    requireJson(value, what);
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new CodecException("cannot write " + what + " as JSON: " + e.getMessage(), e);
    }
  }

  /** @return whether {@link #write} accepts {@code value} */
  static boolean isJson(Object value) {
    try {
      requireJson(value, "value");
      return true;
    } catch (CodecException e) {
      return false;
    }
  }

  private static void requireJson(Object v, String what) {
    if (v == null || v instanceof String || v instanceof Boolean || v instanceof Long || v instanceof Integer
        || v instanceof Short || v instanceof Byte || v instanceof BigInteger || v instanceof BigDecimal) {
      return;
    }
    if (v instanceof Double d) {
      requireFinite(d, what);
      return;
    }
    if (v instanceof Float f) {
      requireFinite(f.doubleValue(), what);
      return;
    }
    if (v instanceof List<?> list) {
      for (Object e : list) {
        requireJson(e, what);
      }
      return;
    }
    if (v instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!(e.getKey() instanceof String)) {
          throw new CodecException(what + " is not a JSON value: map key " + e.getKey() + " is not a String");
        }
        requireJson(e.getValue(), what);
      }
      return;
    }
    throw new CodecException(what + " is not a JSON value: " + v.getClass().getName() + " (" + v + "). Trident's JSON"
        + " layouts hold strings, booleans, numbers, lists and maps; use a Kryo codec for other types");
  }

  private static void requireFinite(double d, String what) {
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      throw new CodecException(what + " is not a JSON value: " + d);
    }
  }

  /**
   * Widens every {@code Integer}, {@code Short} and {@code Byte} to {@code Long}, inside lists and maps too; returns
   * {@code value} itself when nothing changes. Null stays null.
   */
  static Object normalize(Object value) {
    if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
      return ((Number) value).longValue();
    }
    if (value instanceof List<?> list) {
      List<Object> out = null;
      for (int i = 0; i < list.size(); i++) {
        Object e = list.get(i);
        Object n = normalize(e);
        if (n != e && out == null) {
          out = new ArrayList<>(list.subList(0, i));
        }
        if (out != null) {
          out.add(n);
        }
      }
      return out == null ? value : out;
    }
    if (value instanceof Map<?, ?> map) {
      boolean changed = false;
      Map<Object, Object> out = new LinkedHashMap<>();
      for (Map.Entry<?, ?> e : map.entrySet()) {
        Object n = normalize(e.getValue());
        changed |= n != e.getValue();
        out.put(e.getKey(), n);
      }
      return changed ? out : value;
    }
    return value;
  }

  /** A txid read from a JSON cell: an integral number, at least 1. */
  static long txid(Object raw, String what) {
    if (raw == null) {
      throw new CodecException(what + " has a null txid (written by a non-transactional stream?); Trident itself "
          + "fails on it with a NullPointerException");
    }
    if (!(raw instanceof Long l)) {
      throw new CodecException(what + " has a txid that is not an integral number: " + raw);
    }
    if (l < 1) {
      throw new CodecException(what + " has txid " + l + "; txids start at 1");
    }
    return l;
  }
}
