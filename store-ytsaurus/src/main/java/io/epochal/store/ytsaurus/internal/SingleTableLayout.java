package io.epochal.store.ytsaurus.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.StateCorruptedException;
import io.epochal.errors.StoreException;
import io.epochal.store.table.Column;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.Row;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The single-table layout of the fallback mode: every logical table, and the logical schemas, live as rows of ONE
 * sorted dynamic table so that a whole epoch is one {@code insert_rows} (research note §2.4, option 2):
 *
 * <pre>
 * hash      uint64  key  expression farm_hash(state_id, key)
 * state_id  utf8    key  the logical table path ("" for the schema rows)
 * key       string  key  the logical key: a JSON array of the user key parts (bytes as base64)
 * row       string       the value columns, checksummed (null for a tombstone)
 * deleted   boolean      true = tombstone (deletes are rows, since insert and delete cannot share one request)
 * version   int64        a timestamp taken just before the writing commit (best-effort conflict check)
 * </pre>
 *
 * <p>The {@code row} column of a logical row is the byte {@code 0xE1}, the CRC-32C (4 bytes, big-endian) of the
 * logical table path, the {@code key} column and the values, then the values as a JSON array. Any flipped bit, a cut
 * or a row copied to another key or table fails the check: {@link StateCorruptedException} naming table and key.
 * Rows written before the checksum (a bare JSON array, first byte {@code '['}) are still read, unchecked. Every
 * {@code row} value read passes through {@link ReadHook#storedBytes} before it is checked. Any column of another type
 * than the layout's, a live row without values, or a value that does not fit its column is
 * {@link StateCorruptedException} too, never a missing row.
 *
 * The logical {@code hash} of a row is recomputed by the client from the decoded key (so {@link Row#key()} and
 * {@link TableKey#hash()} are the same as in the pinned mode); the physical {@code hash} only spreads rows over
 * tablets. Stateless and thread-safe.
 */
public final class SingleTableLayout {
  /** {@code state_id} of the rows that hold logical schemas. */
  public static final String SCHEMA_STATE_ID = "";
  /** First byte of a checksummed {@code row} value; an unchecked one (written before checksums) starts with '['. */
  static final byte CHECKED_FORMAT = (byte) 0xE1;
  private static final int HEADER = 5;

  private SingleTableLayout() {
  }

  /**
   * The schema of the single-table mode's shared table.
   *
   * @return the YTsaurus schema of the shared table
   */
  public static ArrayNode ytSchema() {
    ArrayNode columns = YtJson.array();
    columns.addObject().put("name", "hash").put("type", "uint64").put("sort_order", "ascending")
        .put("expression", "farm_hash(state_id, key)");
    columns.addObject().put("name", "state_id").put("type", "utf8").put("sort_order", "ascending");
    columns.addObject().put("name", "key").put("type", "string").put("sort_order", "ascending");
    columns.addObject().put("name", "row").put("type", "string");
    columns.addObject().put("name", "deleted").put("type", "boolean");
    columns.addObject().put("name", "version").put("type", "int64");
    return columns;
  }

  /**
   * The shared table's key row of a logical key, from its encoded parts.
   *
   * @param stateId the logical table path ({@link #SCHEMA_STATE_ID} for schema rows)
   * @param keyBlob the encoded logical key
   * @return the physical key row for lookups
   */
  public static ObjectNode physicalKey(String stateId, byte[] keyBlob) {
    ObjectNode out = YtJson.object();
    out.put("state_id", YtJson.textToJson(stateId));
    out.put("key", YtJson.bytesToJson(keyBlob));
    return out;
  }

  /**
   * The shared table's key row of a logical key.
   *
   * @param key a logical key
   * @return its physical key row
   */
  public static ObjectNode physicalKey(TableKey key) {
    return physicalKey(key.schema().path(), encodeKey(key));
  }

  /**
   * Encodes a logical key for the shared table's {@code key} column.
   *
   * @param key a logical key
   * @return the {@code key} column: UTF-8 JSON array of its user key parts
   */
  public static byte[] encodeKey(TableKey key) {
    ArrayNode parts = YtJson.array();
    List<Column> columns = key.schema().userKeyColumns();
    for (int i = 0; i < columns.size(); i++) {
      parts.add(encodeValue(columns.get(i).type(), key.get(i)));
    }
    return YtJson.write(parts).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Encodes a logical row's values for the shared table's {@code row} column.
   *
   * @param row a logical row
   * @return the {@code row} column: {@link #CHECKED_FORMAT}, the checksum, and the UTF-8 JSON array of its values
   */
  public static byte[] encodeValues(Row row) {
    ArrayNode values = YtJson.array();
    List<Column> columns = row.schema().valueColumns();
    List<Object> v = row.values();
    for (int i = 0; i < columns.size(); i++) {
      values.add(encodeValue(columns.get(i).type(), v.get(i)));
    }
    byte[] json = YtJson.write(values).getBytes(StandardCharsets.UTF_8);
    int crc = checksum(row.schema().path(), encodeKey(row.key()), json, 0, json.length);
    return ByteBuffer.allocate(HEADER + json.length).put(CHECKED_FORMAT).putInt(crc).put(json).array();
  }

  private static int checksum(String stateId, byte[] key, byte[] values, int offset, int length) {
    CRC32C crc = new CRC32C();
    byte[] id = stateId.getBytes(StandardCharsets.UTF_8);
    crc.update(ByteBuffer.allocate(4).putInt(id.length).array());
    crc.update(id);
    crc.update(ByteBuffer.allocate(4).putInt(key.length).array());
    crc.update(key);
    crc.update(values, offset, length);
    return (int) crc.getValue();
  }

  private static JsonNode encodeValue(ColumnType type, Object value) {
    if (value == null) {
      return YtJson.NODES.nullNode();
    }
    switch (type) {
      case INT64:
        return YtJson.NODES.numberNode((Long) value);
      case UINT64:
        return YtJson.NODES.numberNode(new BigInteger(Long.toUnsignedString((Long) value)));
      case DOUBLE:
        double d = (Double) value;
        if (!Double.isFinite(d)) {
          throw new IllegalArgumentException(d + " cannot be stored in the JSON single-table layout");
        }
        return YtJson.NODES.numberNode(d);
      case BOOLEAN:
        return YtJson.NODES.booleanNode((Boolean) value);
      case STRING:
        return YtJson.NODES.textNode((String) value);
      case BYTES:
        return YtJson.NODES.textNode(Base64.getEncoder().encodeToString((byte[]) value));
      default:
        throw new AssertionError(type);
    }
  }

  private static Object decodeValue(Column column, JsonNode v) {
    if (v == null || v.isNull()) {
      return null;
    }
    switch (column.type()) {
      case INT64:
        if (v.isIntegralNumber() && v.canConvertToLong()) {
          return v.longValue();
        }
        break;
      case UINT64:
        if (v.isIntegralNumber() && v.bigIntegerValue().signum() >= 0 && v.bigIntegerValue().bitLength() <= 64) {
          return v.bigIntegerValue().longValue();
        }
        break;
      case DOUBLE:
        if (v.isNumber()) {
          return v.doubleValue();
        }
        break;
      case BOOLEAN:
        if (v.isBoolean()) {
          return v.booleanValue();
        }
        break;
      case STRING:
        if (v.isTextual()) {
          return v.textValue();
        }
        break;
      case BYTES:
        if (v.isTextual()) {
          return Base64.getDecoder().decode(v.textValue());
        }
        break;
      default:
        throw new AssertionError(column.type());
    }
    throw new IllegalArgumentException(YtRowCodec.abbreviate(v) + " does not fit column '" + column.name() + "' ("
        + column.type().displayName() + ")");
  }

  /**
   * Decodes a physical row of the shared table.
   *
   * @param schema the logical schema
   * @param physical the physical row
   * @param asked the logical key it was looked up by, or {@code null} (a scan): named in errors
   * @param hook gets the stored bytes of the {@code row} column before they are checked
   * @return the logical row, or {@code null} for a tombstone
   * @throws StateCorruptedException if the row cannot be decoded or fails its checksum
   */
  public static Row decode(TableSchema schema, JsonNode physical, TableKey asked, ReadHook hook) {
    if (physical == null || !physical.isObject()) {
      throw YtRowCodec.corrupted(schema, asked, physical, "the shared table answered something else than a row");
    }
    JsonNode deleted = physical.get("deleted");
    if (deleted == null || !deleted.isBoolean()) {
      throw YtRowCodec.corrupted(schema, asked, physical, "column 'deleted' is " + deleted + ", not a boolean");
    }
    if (deleted.booleanValue()) {
      return null;
    }
    JsonNode keyColumn = physical.get("key");
    JsonNode rowColumn = physical.get("row");
    if (keyColumn == null || !keyColumn.isTextual() || rowColumn == null || !rowColumn.isTextual()) {
      throw YtRowCodec.corrupted(schema, asked, physical, "a live row needs string columns 'key' and 'row'");
    }
    byte[] keyBlob;
    byte[] stored;
    try {
      keyBlob = YtJson.jsonToBytes(keyColumn.textValue());
      stored = YtJson.jsonToBytes(rowColumn.textValue());
    } catch (IllegalArgumentException e) {
      throw YtRowCodec.corrupted(schema, asked, physical, e.getMessage());
    }
    byte[] bytes = hook.storedBytes(schema.path(), stored);
    byte[] json;
    if (bytes.length > 0 && bytes[0] == CHECKED_FORMAT) {
      if (bytes.length < HEADER) {
        throw YtRowCodec.corrupted(schema, asked, physical, "the value has " + bytes.length + " bytes, fewer than "
            + "its header");
      }
      int expected = ByteBuffer.wrap(bytes, 1, 4).getInt();
      int actual = checksum(schema.path(), keyBlob, bytes, HEADER, bytes.length - HEADER);
      if (expected != actual) {
        throw YtRowCodec.corrupted(schema, asked, physical, "checksum mismatch: stored "
            + Integer.toHexString(expected) + ", computed " + Integer.toHexString(actual) + " over the table path, "
            + "the key and " + (bytes.length - HEADER) + " value bytes");
      }
      json = Arrays.copyOfRange(bytes, HEADER, bytes.length);
    } else if (bytes.length > 0 && bytes[0] == '[') {
      json = bytes; // written before checksums: read unchecked
    } else {
      throw YtRowCodec.corrupted(schema, asked, physical, "unknown value format (" + bytes.length + " bytes"
          + (bytes.length > 0 ? ", first byte 0x" + Integer.toHexString(bytes[0] & 0xff) : "") + ")");
    }
    List<Column> keyColumns = schema.userKeyColumns();
    List<Column> valueColumns = schema.valueColumns();
    TableKey key = asked;
    try {
      JsonNode keyParts = YtJson.read(keyBlob);
      if (!keyParts.isArray() || keyParts.size() != keyColumns.size()) {
        throw new IllegalArgumentException("the key " + YtRowCodec.abbreviate(keyParts) + " does not fit the key "
            + "columns " + keyColumns);
      }
      Object[] parts = new Object[keyColumns.size()];
      for (int i = 0; i < parts.length; i++) {
        parts[i] = decodeValue(keyColumns.get(i), keyParts.get(i));
      }
      key = TableKey.of(schema, parts);
      JsonNode values = YtJson.read(json);
      if (!values.isArray() || values.size() != valueColumns.size()) {
        throw new IllegalArgumentException("the values " + YtRowCodec.abbreviate(values) + " do not fit the value "
            + "columns " + valueColumns);
      }
      Object[] vals = new Object[valueColumns.size()];
      for (int i = 0; i < vals.length; i++) {
        vals[i] = decodeValue(valueColumns.get(i), values.get(i));
      }
      return Row.of(key, vals);
    } catch (IOException | IllegalArgumentException | NullPointerException e) {
      throw YtRowCodec.corrupted(schema, key, physical, "the row cannot be decoded: " + e.getMessage());
    }
  }

  /**
   * Reads a shared-table row's version, for conflict checks.
   *
   * @param row the physical row
   * @param path the logical table path, for errors
   * @return its {@code version} column
   * @throws StoreException (not retryable) if the column is not an int64: a conflict check cannot be made
   */
  public static long version(JsonNode row, String path) {
    JsonNode v = row.get("version");
    if (v == null || !v.isIntegralNumber() || !v.canConvertToLong()) {
      throw new StoreException("a row of table " + path + " in the shared table has version " + v + ", not an "
          + "int64; the commit cannot check for conflicts and is refused: " + YtRowCodec.abbreviate(row), null,
          false, ErrorContext.of(path, null));
    }
    return v.longValue();
  }

  /**
   * The shared-table row that records a logical table's schema.
   *
   * @param schema a logical schema
   * @return the physical row recording it
   */
  public static ObjectNode schemaRow(TableSchema schema) {
    ObjectNode doc = YtJson.object();
    doc.set("schema", YtSchemas.toYt(schema));
    doc.set("attributes", YtSchemas.attributesToYt(schema));
    ObjectNode row = physicalKey(SCHEMA_STATE_ID, schema.path().getBytes(StandardCharsets.UTF_8));
    row.put("row", YtJson.bytesToJson(YtJson.write(doc).getBytes(StandardCharsets.UTF_8)));
    row.put("deleted", false);
    row.put("version", 0L);
    return row;
  }

  /**
   * Reads the schema document a shared-table schema row records.
   *
   * @param path the logical path
   * @param physical the schema row, or a missing-row marker
   * @return the recorded schema's document ({@code {"schema": [...], "attributes": {...}}}), or {@code null}
   */
  public static JsonNode schemaDocument(String path, JsonNode physical) {
    if (YtTableStoreSupport.isMissing(physical)) {
      return null;
    }
    JsonNode row = physical.get("row");
    try {
      if (row == null || !row.isTextual()) {
        throw new IllegalArgumentException("column 'row' is " + row);
      }
      JsonNode doc = YtJson.read(YtJson.jsonToBytes(row.textValue()));
      if (!doc.isObject()) {
        throw new IllegalArgumentException("not a document: " + YtRowCodec.abbreviate(doc));
      }
      return doc;
    } catch (IOException | IllegalArgumentException e) {
      throw new StoreException("the schema row of " + path + " cannot be decoded: " + YtRowCodec.abbreviate(physical),
          e, false, ErrorContext.of(path, null));
    }
  }
}
