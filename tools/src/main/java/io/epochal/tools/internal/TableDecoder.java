package io.epochal.tools.internal;

import io.epochal.codec.Codec;
import io.epochal.store.table.Column;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.Row;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Decodes the rows of one table from what the table records: its schema and the attributes {@code epochal.layout}
 * (which columns hold encoded values: {@code value} and, for opaque cells, {@code prev_value}) and
 * {@code epochal.codec} (the value codec, resolved by {@link CodecIds}). A value whose codec is unknown is kept as
 * {@link Raw} bytes and {@link #note()} says why; other bytes columns are always raw. Immutable and thread-safe.
 */
public final class TableDecoder {
  /** The layouts whose {@code value} (and {@code prev_value}) columns hold values of the table's codec. */
  private static final Set<String> VALUE_LAYOUTS = Set.of("plain:v1", "transactional:v1", "opaque:v1");
  private static final Set<String> VALUE_COLUMNS = Set.of("value", "prev_value");
  private static final Set<String> TXID_COLUMNS = Set.of("txid", "committed_txid");

  private final TableSchema schema;
  private final Optional<Codec<?>> codec;
  private final String note;

  /** Raw bytes whose meaning the tool does not know, shown as hex. */
  public record Raw(byte[] bytes) {
    /** @return the bytes in hex, e.g. {@code 0x00ff} */
    public String hex() {
      return "0x" + HexFormat.of().formatHex(bytes);
    }

    @Override
    public String toString() {
      return hex();
    }
  }

  /**
   * A decoded row.
   *
   * @param key the user key columns by name
   * @param values the value columns by name: decoded values, {@link Raw} bytes, numbers, strings or null
   * @param txid the txid the row records (column {@code txid} or {@code committed_txid}), if any
   */
  public record DecodedRow(Map<String, Object> key, Map<String, Object> values, Optional<Long> txid) {
  }

  /**
   * A decoder of the rows of the table {@code schema} describes, with the layout and codec its attributes record.
   *
   * @param schema the table's schema, with its {@code epochal.*} attributes
   */
  public TableDecoder(TableSchema schema) {
    this.schema = schema;
    Map<String, String> attrs = schema.attributes();
    String layout = attrs.get("epochal.layout");
    String codecId = attrs.get("epochal.codec");
    if (layout == null || !VALUE_LAYOUTS.contains(layout)) {
      this.codec = Optional.empty();
      this.note = layout == null ? "the table records no epochal.layout: bytes columns shown as raw hex"
          : layout.equals("checkpoint:v1") ? "" : "layout '" + layout + "' is not known: bytes columns shown as raw hex";
    } else if (codecId == null) {
      this.codec = Optional.empty();
      this.note = "the table records no epochal.codec: values shown as raw hex";
    } else {
      CodecIds.Resolution r = CodecIds.resolve(codecId);
      this.codec = r.codec();
      this.note = r.codec().isPresent() ? "" : r.why() + ": values shown as raw hex";
    }
  }

  /** @return the table's schema */
  public TableSchema schema() {
    return schema;
  }

  /** @return why some values are shown raw; empty when every value is decoded */
  public String note() {
    return note;
  }

  /**
   * @param name an attribute name, e.g. {@code epochal.codec}
   * @return the attribute {@code name} of the table, or {@code "-"}
   */
  public String attribute(String name) {
    return schema.attributes().getOrDefault(name, "-");
  }

  /**
   * @param row a row of the table
   * @return the row decoded
   * @throws RuntimeException (typically {@link io.epochal.codec.CodecException}) if a value does not decode
   */
  public DecodedRow decode(Row row) {
    Map<String, Object> values = new LinkedHashMap<>();
    Optional<Long> txid = Optional.empty();
    for (Column c : schema.valueColumns()) {
      Object v = row.get(c.name());
      if (v instanceof byte[] b) {
        v = codec.isPresent() && VALUE_COLUMNS.contains(c.name()) ? codec.get().decode(b) : new Raw(b);
      }
      if (TXID_COLUMNS.contains(c.name()) && v instanceof Long l && txid.isEmpty()) {
        txid = Optional.of(l);
      }
      values.put(c.name(), v);
    }
    return new DecodedRow(key(row.key()), values, txid);
  }

  /**
   * @param key a key of any table
   * @return the user key columns of {@code key} by name ({@code bytes} as {@link Raw})
   */
  public static Map<String, Object> key(TableKey key) {
    Map<String, Object> out = new LinkedHashMap<>();
    List<Column> columns = key.schema().userKeyColumns();
    for (int i = 0; i < columns.size(); i++) {
      Object part = key.get(i);
      out.put(columns.get(i).name(), part instanceof byte[] b ? new Raw(b) : part);
    }
    return out;
  }

  /**
   * @param parts the text of each user key column, in column order
   * @return the key of this table from the text of each user key column ({@code bytes} in hex, {@code uint64}
   *     unsigned)
   * @throws IllegalArgumentException if the count or a part does not fit
   */
  public TableKey parseKey(List<String> parts) {
    List<Column> columns = schema.userKeyColumns();
    if (parts.size() != columns.size()) {
      throw new IllegalArgumentException("table " + schema.path() + " has " + columns.size() + " key column(s) "
          + columns + ", got " + parts.size() + " value(s) " + parts);
    }
    Object[] out = new Object[parts.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = parse(columns.get(i).type(), parts.get(i));
    }
    return TableKey.of(schema, out);
  }

  private static Object parse(ColumnType type, String text) {
    switch (type) {
      case INT64:
        return Long.parseLong(text);
      case UINT64:
        return Long.parseUnsignedLong(text);
      case DOUBLE:
        return Double.parseDouble(text);
      case BOOLEAN:
        if (!text.equals("true") && !text.equals("false")) {
          throw new IllegalArgumentException("expected true or false, got '" + text + "'");
        }
        return Boolean.parseBoolean(text);
      case BYTES:
        return HexFormat.of().parseHex(text.startsWith("0x") ? text.substring(2) : text);
      default:
        return text;
    }
  }
}
