package io.epochal.store.ytsaurus;

import io.epochal.api.Evolving;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * One row of a YTsaurus queue (an ordered dynamic table) as a queue spout read it: its partition (tablet index), its
 * offset (row index within the tablet), its timestamp if the queue has a {@code $timestamp} column, and its columns.
 *
 * <p>Column values, by YTsaurus type: {@code string}/{@code utf8} as bytes ({@link #bytes}, or {@link #string} for
 * UTF-8 text); {@code int64}/{@code uint64} as a {@code long} ({@link #int64}; a uint64 above {@code 2^63 - 1} reads
 * as the negative long with the same bits); {@code double} ({@link #float64}); {@code boolean} ({@link #bool});
 * composite and {@code any} values as their JSON text ({@link #json}). A {@code null} value reads as empty. Asking a
 * column for another type than it holds, or a column the row lacks, throws {@link IllegalArgumentException} (inside a
 * {@link YtRowDecoder} that becomes a {@link YtQueueRowDecodeException}). System columns ({@code $row_index},
 * {@code $tablet_index}, {@code $timestamp}, ...) are not among the columns.
 *
 * <p>Immutable and thread-safe; byte arrays are copied in and out. {@code equals} compares all components.
 *
 * @since 0.4.0
 */
@Evolving
public final class YtQueueRow {
  /** A composite or {@code any} value, as its JSON text (YTsaurus' JSON format). */
  public record Composite(String json) {
    /**
     * Wraps the JSON text of a value.
     *
     * @param json the value in YTsaurus' JSON format, not null
     * @throws NullPointerException if {@code json} is null
     */
    public Composite {
      Objects.requireNonNull(json, "json");
    }
  }

  private final int partition;
  private final long offset;
  private final OptionalLong timestamp;
  private final Map<String, Object> columns;

  private YtQueueRow(int partition, long offset, OptionalLong timestamp, Map<String, Object> columns) {
    this.partition = partition;
    this.offset = offset;
    this.timestamp = timestamp;
    this.columns = columns;
  }

  /**
   * A row.
   *
   * @param partition the tablet index, {@code >= 0}
   * @param offset the row index, {@code >= 0}
   * @param timestamp the row's {@code $timestamp}, empty if the queue has none
   * @param columns the columns in order; values {@code byte[]} (copied), {@code String} (stored as its UTF-8 bytes),
   *     {@code Long} or {@code Integer}, {@code Double}, {@code Boolean}, {@link Composite}, or {@code null}
   * @return the row
   * @throws IllegalArgumentException on a negative partition or offset, a column named {@code $...}, or a value of
   *     another type
   */
  public static YtQueueRow of(int partition, long offset, OptionalLong timestamp, Map<String, ?> columns) {
    Objects.requireNonNull(timestamp, "timestamp");
    Objects.requireNonNull(columns, "columns");
    if (partition < 0 || offset < 0) {
      throw new IllegalArgumentException("partition and offset must be >= 0, were " + partition + ", " + offset);
    }
    LinkedHashMap<String, Object> copy = new LinkedHashMap<>();
    for (Map.Entry<String, ?> e : columns.entrySet()) {
      String name = Objects.requireNonNull(e.getKey(), "column name");
      if (name.startsWith("$")) {
        throw new IllegalArgumentException("system column " + name + " is not a row column");
      }
      Object v = e.getValue();
      Object stored;
      if (v == null || v instanceof Long || v instanceof Double || v instanceof Boolean || v instanceof Composite) {
        stored = v;
      } else if (v instanceof Integer i) {
        stored = i.longValue();
      } else if (v instanceof byte[] b) {
        stored = b.clone();
      } else if (v instanceof String s) {
        stored = s.getBytes(StandardCharsets.UTF_8);
      } else {
        throw new IllegalArgumentException("column " + name + ": unsupported value type " + v.getClass().getName());
      }
      copy.put(name, stored);
    }
    return new YtQueueRow(partition, offset, timestamp, Collections.unmodifiableMap(copy));
  }

  /**
   * The partition the row was read from.
   *
   * @return the partition: the tablet index of the queue
   */
  public int partition() {
    return partition;
  }

  /**
   * The row's offset in its partition.
   *
   * @return the offset: the row index within its tablet
   */
  public long offset() {
    return offset;
  }

  /**
   * The row's commit timestamp.
   *
   * @return the row's {@code $timestamp} (a YTsaurus timestamp), empty if the queue has no such column
   */
  public OptionalLong timestamp() {
    return timestamp;
  }

  /**
   * The row's column names, without system columns.
   *
   * @return the names of the row's columns, in the order the proxy sent them
   */
  public Set<String> columns() {
    return columns.keySet();
  }

  /**
   * Tells whether a column's value is null.
   *
   * @param name the column's name
   * @return whether the row has column {@code name} with a null value
   * @throws IllegalArgumentException if the row has no column {@code name}
   */
  public boolean isNull(String name) {
    return value(name) == null;
  }

  /**
   * Reads a {@code string} or {@code utf8} column as bytes.
   *
   * @param name the column's name
   * @return a string column's bytes (copied), empty if null
   * @throws IllegalArgumentException if the row has no column {@code name}, or it is not a string
   */
  public Optional<byte[]> bytes(String name) {
    return Optional.ofNullable(typed(name, byte[].class, "a string")).map(byte[]::clone);
  }

  /**
   * Reads a {@code string} or {@code utf8} column as UTF-8 text.
   *
   * @param name the column's name
   * @return the column's text, empty if null
   * @throws IllegalArgumentException if the row has no column {@code name}, it is not a string, or its bytes are not
   *     valid UTF-8
   */
  public Optional<String> string(String name) {
    byte[] b = typed(name, byte[].class, "a string");
    if (b == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString());
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("column " + name + " is not valid UTF-8", e);
    }
  }

  /**
   * Reads an {@code int64} or {@code uint64} column.
   *
   * @param name the column's name
   * @return the column's value, empty if null (a uint64 above {@code 2^63 - 1} as the negative long with
   *     the same bits)
   * @throws IllegalArgumentException if the row has no column {@code name}, or it is not an integer
   */
  public OptionalLong int64(String name) {
    Long v = typed(name, Long.class, "an integer");
    return v == null ? OptionalLong.empty() : OptionalLong.of(v);
  }

  /**
   * Reads a {@code double} column (an integer column converts).
   *
   * @param name the column's name
   * @return the column's value, empty if null
   * @throws IllegalArgumentException if the row has no column {@code name}, or it is neither a double nor an integer
   */
  public Optional<Double> float64(String name) {
    Object v = value(name);
    if (v instanceof Long l) {
      return Optional.of(l.doubleValue());
    }
    return Optional.ofNullable(typed(name, Double.class, "a double"));
  }

  /**
   * Reads a {@code boolean} column.
   *
   * @param name the column's name
   * @return the column's value, empty if null
   * @throws IllegalArgumentException if the row has no column {@code name}, or it is not a boolean
   */
  public Optional<Boolean> bool(String name) {
    return Optional.ofNullable(typed(name, Boolean.class, "a boolean"));
  }

  /**
   * Reads a composite or {@code any} column as its JSON text (YTsaurus' JSON format).
   *
   * @param name the column's name
   * @return the column's JSON text, empty if null
   * @throws IllegalArgumentException if the row has no column {@code name}, or it is not a composite value
   */
  public Optional<String> json(String name) {
    return Optional.ofNullable(typed(name, Composite.class, "a composite value")).map(Composite::json);
  }

  private Object value(String name) {
    Objects.requireNonNull(name, "name");
    if (!columns.containsKey(name)) {
      throw new IllegalArgumentException("row " + partition + "@" + offset + " has no column " + name + "; columns: "
          + columns.keySet());
    }
    return columns.get(name);
  }

  private <V> V typed(String name, Class<V> type, String what) {
    Object v = value(name);
    if (v != null && !type.isInstance(v)) {
      throw new IllegalArgumentException("column " + name + " of row " + partition + "@" + offset + " is not " + what
          + " (" + describe(v) + ")");
    }
    return type.cast(v);
  }

  private static String describe(Object v) {
    return v instanceof byte[] ? "a string" : v instanceof Long ? "an integer" : v instanceof Double ? "a double"
        : v instanceof Boolean ? "a boolean" : "a composite value";
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof YtQueueRow r) || r.partition != partition || r.offset != offset
        || !r.timestamp.equals(timestamp) || !r.columns.keySet().equals(columns.keySet())) {
      return false;
    }
    for (Map.Entry<String, Object> e : columns.entrySet()) {
      Object a = e.getValue();
      Object b = r.columns.get(e.getKey());
      if (a instanceof byte[] x ? !(b instanceof byte[] y && Arrays.equals(x, y)) : !Objects.equals(a, b)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    return Objects.hash(partition, offset, columns.keySet());
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder().append(partition).append('@').append(offset).append(" {");
    boolean first = true;
    for (Map.Entry<String, Object> e : columns.entrySet()) {
      sb.append(first ? "" : ", ").append(e.getKey()).append('=');
      Object v = e.getValue();
      sb.append(v instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : v instanceof Composite c ? c.json()
          : String.valueOf(v));
      first = false;
    }
    return sb.append('}').toString();
  }
}
