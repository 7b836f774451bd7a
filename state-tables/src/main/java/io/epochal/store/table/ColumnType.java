package io.epochal.store.table;

import io.epochal.api.Evolving;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * The type of a table column, a subset of YTsaurus' column types. Each type has one Java representation; values
 * passed to {@link TableKey} and {@link Row} are checked and normalized to it:
 * <ul>
 *   <li>{@link #INT64}: {@link Long} ({@link Integer}, {@link Short} and {@link Byte} are widened);</li>
 *   <li>{@link #UINT64}: {@link Long} holding the unsigned 64-bit pattern; ordered as unsigned;</li>
 *   <li>{@link #DOUBLE}: {@link Double} ({@link Float} is widened);</li>
 *   <li>{@link #BOOLEAN}: {@link Boolean};</li>
 *   <li>{@link #STRING}: {@link String}, stored as UTF-8 (YTsaurus {@code utf8}); a string with an unpaired surrogate
 *       has no UTF-8 form and is rejected;</li>
 *   <li>{@link #BYTES}: {@code byte[]} (YTsaurus {@code string}); copied on the way in and out.</li>
 * </ul>
 * Key order (YTsaurus sorted tables): numbers numerically ({@code UINT64} unsigned), {@code false < true}, strings and
 * bytes lexicographically by unsigned bytes (strings by their UTF-8 bytes).
 *
 * <p>Immutable and thread-safe.
 *
 * @since 0.1.0
 */
@Evolving
public enum ColumnType {
  /** Signed 64-bit integer. */
  INT64("int64"),
  /** Unsigned 64-bit integer, held in a {@code long} with the same bits. */
  UINT64("uint64"),
  /** IEEE 754 double. */
  DOUBLE("double"),
  /** Boolean. */
  BOOLEAN("boolean"),
  /** Text, a Java {@code String} stored as UTF-8. */
  STRING("utf8"),
  /** Raw bytes. */
  BYTES("string");

  private final String ytType;

  ColumnType(String ytType) {
    this.ytType = ytType;
  }

  /** @return the YTsaurus type name of this column type ({@code int64}, {@code uint64}, {@code double},
   *     {@code boolean}, {@code utf8} for {@link #STRING}, {@code string} for {@link #BYTES}) */
  public String ytType() {
    return ytType;
  }

  /** @return the lower-case name used in messages and schema dumps, e.g. {@code "int64"}, {@code "bytes"} */
  public String displayName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * Checks that {@code value} has this type's Java representation and returns it normalized (widened, copied).
   *
   * @param value a non-null value
   * @param what a description of the column for the error message (built only on failure)
   * @return the normalized value
   * @throws IllegalArgumentException if the value has another type or a string has no UTF-8 form
   */
  /**
   * {@link #normalize} of a value that already has this type's Java representation (no widening), without a
   * description: the common case on the row and key paths, with no supplier to allocate.
   *
   * @param value a non-null value
   * @return the normalized value, or null if {@link #normalize} must decide (widening, or an error to report)
   */
  Object normalizeValid(Object value) {
    switch (this) {
      case INT64:
      case UINT64:
        return value instanceof Long ? value : null;
      case DOUBLE:
        return value instanceof Double ? value : null;
      case BOOLEAN:
        return value instanceof Boolean ? value : null;
      case STRING:
        return value instanceof String s && !hasUnpairedSurrogate(s) ? s : null;
      case BYTES:
        return value instanceof byte[] b ? Arrays.copyOf(b, b.length) : null;
      default:
        return null;
    }
  }

  Object normalize(Object value, java.util.function.Supplier<String> what) {
    Objects.requireNonNull(value, what);
    switch (this) {
      case INT64:
      case UINT64:
        if (value instanceof Long) {
          return value;
        }
        if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
          return ((Number) value).longValue();
        }
        break;
      case DOUBLE:
        if (value instanceof Double) {
          return value;
        }
        if (value instanceof Float) {
          return ((Float) value).doubleValue();
        }
        break;
      case BOOLEAN:
        if (value instanceof Boolean) {
          return value;
        }
        break;
      case STRING:
        if (value instanceof String s) {
          if (hasUnpairedSurrogate(s)) {
            throw new IllegalArgumentException(what.get() + " holds a string with an unpaired surrogate, which has no UTF-8 "
                + "form");
          }
          return s;
        }
        break;
      case BYTES:
        if (value instanceof byte[] b) {
          return Arrays.copyOf(b, b.length);
        }
        break;
      default:
        break;
    }
    throw new IllegalArgumentException(what.get() + " expects " + javaTypeName() + ", got " + value.getClass().getName());
  }

  /** Compares two normalized values of this type in YTsaurus key order. */
  int compare(Object a, Object b) {
    switch (this) {
      case INT64:
        return Long.compare((Long) a, (Long) b);
      case UINT64:
        return Long.compareUnsigned((Long) a, (Long) b);
      case DOUBLE:
        return Double.compare((Double) a, (Double) b);
      case BOOLEAN:
        return Boolean.compare((Boolean) a, (Boolean) b);
      case STRING:
        return Arrays.compareUnsigned(((String) a).getBytes(StandardCharsets.UTF_8),
            ((String) b).getBytes(StandardCharsets.UTF_8));
      case BYTES:
        return Arrays.compareUnsigned((byte[]) a, (byte[]) b);
      default:
        throw new AssertionError(this);
    }
  }

  private String javaTypeName() {
    switch (this) {
      case INT64:
      case UINT64:
        return "a Long";
      case DOUBLE:
        return "a Double";
      case BOOLEAN:
        return "a Boolean";
      case STRING:
        return "a String";
      case BYTES:
        return "a byte[]";
      default:
        throw new AssertionError(this);
    }
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
}
