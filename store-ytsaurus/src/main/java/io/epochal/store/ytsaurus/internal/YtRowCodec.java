package io.epochal.store.ytsaurus.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.StateCorruptedException;
import io.epochal.errors.StoreException;
import io.epochal.store.table.Column;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.Row;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import java.math.BigInteger;
import java.util.List;
import java.util.OptionalLong;

/**
 * Converts {@link TableKey}s and {@link Row}s to rows of the JSON row format and back, with the string convention of
 * {@link YtJson} ({@code encode_utf8=%true}: one char per byte; text as its UTF-8 bytes). The computed
 * {@value TableSchema#HASH_COLUMN} column is never written; when an answer carries it, it is checked against the
 * client's {@link io.epochal.hash.FarmHash} so a server whose {@code farm_hash} differs is noticed at once.
 *
 * <p>Doubles must be finite: the JSON row format has no portable NaN/Infinity. {@code uint64} values travel as
 * unsigned JSON integers.
 *
 * <p>An answered row that does not fit its schema (not an object, a key column missing, a value of the wrong type or
 * outside the byte convention) is {@link StateCorruptedException} naming the table and the key (the key asked for, or
 * the key columns as answered): no retry makes such a row readable, and it is never taken for a missing row.
 * Stateless and thread-safe.
 */
public final class YtRowCodec {
  private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

  private YtRowCodec() {
  }

  /**
   * Encodes a key for a lookup or delete.
   *
   * @param key a key
   * @return its user key columns as a JSON row (no {@code hash})
   */
  public static ObjectNode keyToJson(TableKey key) {
    ObjectNode out = YtJson.object();
    List<Column> columns = key.schema().userKeyColumns();
    for (int i = 0; i < columns.size(); i++) {
      Column c = columns.get(i);
      out.set(c.name(), encode(key.schema(), c, key.get(i)));
    }
    return out;
  }

  /**
   * Encodes a row for an insert.
   *
   * @param row a row
   * @return its user key and value columns as a JSON row (no {@code hash}; nulls explicit)
   */
  public static ObjectNode rowToJson(Row row) {
    ObjectNode out = keyToJson(row.key());
    List<Column> columns = row.schema().valueColumns();
    List<Object> values = row.values();
    for (int i = 0; i < columns.size(); i++) {
      Column c = columns.get(i);
      out.set(c.name(), encode(row.schema(), c, values.get(i)));
    }
    return out;
  }

  /**
   * Encodes one column value.
   *
   * @param schema the schema of the column
   * @param column the column
   * @param value its normalized Java value, or {@code null}
   * @return the JSON value
   * @throws IllegalArgumentException for a non-finite double
   */
  public static JsonNode encode(TableSchema schema, Column column, Object value) {
    if (value == null) {
      return YtJson.NODES.nullNode();
    }
    switch (column.type()) {
      case INT64:
        return YtJson.NODES.numberNode((Long) value);
      case UINT64:
        long u = (Long) value;
        return u >= 0 ? YtJson.NODES.numberNode(u)
            : YtJson.NODES.numberNode(new BigInteger(Long.toUnsignedString(u)));
      case DOUBLE:
        double d = (Double) value;
        if (!Double.isFinite(d)) {
          throw new IllegalArgumentException("table " + schema.path() + " column '" + column.name() + "': " + d
              + " cannot be stored through the YTsaurus JSON row format (finite doubles only)");
        }
        return YtJson.NODES.numberNode(d);
      case BOOLEAN:
        return YtJson.NODES.booleanNode((Boolean) value);
      case STRING:
        return YtJson.NODES.textNode(YtJson.textToJson((String) value));
      case BYTES:
        return YtJson.NODES.textNode(YtJson.bytesToJson((byte[]) value));
      default:
        throw new AssertionError(column.type());
    }
  }

  /**
   * @param column the column
   * @param node a JSON value from an answer
   * @return the Java value, or {@code null}
   * @throws IllegalArgumentException if the value does not fit the column type (the message says how)
   */
  static Object decode(Column column, JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    String what = "column '" + column.name() + "' (" + column.type().displayName() + ")";
    try {
      switch (column.type()) {
        case INT64:
          if (node.isIntegralNumber() && node.canConvertToLong()) {
            return node.longValue();
          }
          break;
        case UINT64:
          if (node.isIntegralNumber()) {
            BigInteger b = node.bigIntegerValue();
            if (b.signum() >= 0 && b.compareTo(TWO_64) < 0) {
              return b.longValue();
            }
            if (b.signum() < 0 && b.bitLength() < 64) {
              return b.longValue(); // int64 representation of the same bits (integral type conversion)
            }
          }
          break;
        case DOUBLE:
          if (node.isNumber()) {
            return node.doubleValue();
          }
          break;
        case BOOLEAN:
          if (node.isBoolean()) {
            return node.booleanValue();
          }
          break;
        case STRING:
          if (node.isTextual()) {
            return YtJson.jsonToText(node.textValue());
          }
          break;
        case BYTES:
          if (node.isTextual()) {
            return YtJson.jsonToBytes(node.textValue());
          }
          break;
        default:
          break;
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("YTsaurus answered a value for " + what + " that breaks the encode_utf8 "
          + "byte convention: " + e.getMessage(), e);
    }
    throw new IllegalArgumentException("YTsaurus answered " + abbreviate(node) + " for " + what
        + ", which does not fit the column type");
  }

  /**
   * Parses a row of {@code schema} from an answer.
   *
   * @param schema the schema
   * @param json the JSON row (all columns; {@code hash} optional)
   * @param asked the key the row was looked up by, or {@code null} (a scan): named in errors
   * @return the row
   * @throws StateCorruptedException if the row does not fit the schema
   * @throws StoreException (not retryable) if the server's {@code hash} differs from FarmHash
   */
  public static Row rowFromJson(TableSchema schema, JsonNode json, TableKey asked) {
    if (json == null || !json.isObject()) {
      throw corrupted(schema, asked, json, "YTsaurus answered " + abbreviate(json) + " where a row was expected");
    }
    List<Column> keyColumns = schema.userKeyColumns();
    Object[] parts = new Object[keyColumns.size()];
    for (int i = 0; i < parts.length; i++) {
      Column c = keyColumns.get(i);
      try {
        parts[i] = decode(c, json.get(c.name()));
      } catch (IllegalArgumentException e) {
        throw corrupted(schema, asked, json, e.getMessage());
      }
      if (parts[i] == null) {
        throw corrupted(schema, asked, json, "YTsaurus answered a row without key column '" + c.name() + "'");
      }
    }
    TableKey key = TableKey.of(schema, parts);
    JsonNode serverHash = json.get(TableSchema.HASH_COLUMN);
    if (serverHash != null && !serverHash.isNull()) {
      Object h;
      try {
        h = decode(schema.keyColumns().get(0), serverHash);
      } catch (IllegalArgumentException e) {
        throw corrupted(schema, key, json, e.getMessage());
      }
      if (!h.equals(key.hash())) {
        throw new StoreException("YTsaurus computed hash " + Long.toUnsignedString((Long) h) + " for " + key
            + " but FarmHash gives " + Long.toUnsignedString(key.hash()) + ": the server's farm_hash or the string "
            + "convention differs from the client's; refusing to continue", null, false,
            ErrorContext.of(schema.path(), key.describeParts()));
      }
    }
    List<Column> valueColumns = schema.valueColumns();
    Object[] values = new Object[valueColumns.size()];
    for (int i = 0; i < values.length; i++) {
      Column c = valueColumns.get(i);
      try {
        values[i] = decode(c, json.get(c.name()));
      } catch (IllegalArgumentException e) {
        throw corrupted(schema, key, json, e.getMessage());
      }
    }
    try {
      return Row.of(key, values);
    } catch (NullPointerException | IllegalArgumentException e) {
      throw corrupted(schema, key, json, "YTsaurus answered a row that does not fit its schema: " + e.getMessage());
    }
  }

  /**
   * @param schema the table's schema
   * @param key the key concerned, or {@code null} if neither asked nor decodable
   * @param json the answered row
   * @param what what is wrong with it
   * @return the error naming table and key
   */
  static StateCorruptedException corrupted(TableSchema schema, TableKey key, JsonNode json, String what) {
    Object shown = key != null ? key.describeParts() : "(undecodable, answered as " + abbreviate(json) + ")";
    return new StateCorruptedException(schema.path(), shown, OptionalLong.empty(),
        new IllegalArgumentException(what + " (row " + abbreviate(json) + ")"));
  }

  /** @return a JSON value as text, cut at 300 chars */
  static String abbreviate(JsonNode json) {
    String s = String.valueOf(json);
    return s.length() > 300 ? s.substring(0, 300) + "..." : s;
  }

  /** @return whether {@code type} is stored as a YTsaurus string (bytes) */
  static boolean isString(ColumnType type) {
    return type == ColumnType.STRING || type == ColumnType.BYTES;
  }
}
