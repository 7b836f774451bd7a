package io.epochal.store.ytsaurus.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.epochal.errors.StoreException;
import io.epochal.store.table.Column;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.Row;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

/**
 * The single-table layout of the fallback mode: every logical table, and the logical schemas, live as rows of ONE
 * sorted dynamic table so that a whole epoch is one {@code insert_rows} (research note §2.4, option 2):
 *
 * <pre>
 * hash      uint64  key  expression farm_hash(state_id, key)
 * state_id  utf8    key  the logical table path ("" for the schema rows)
 * key       string  key  the logical key: a JSON array of the user key parts (bytes as base64)
 * row       string       the value columns: a JSON array (null for a tombstone)
 * deleted   boolean      true = tombstone (deletes are rows, since insert and delete cannot share one request)
 * version   int64        a timestamp taken just before the writing commit (best-effort conflict check)
 * </pre>
 *
 * The logical {@code hash} of a row is recomputed by the client from the decoded key (so {@link Row#key()} and
 * {@link TableKey#hash()} are the same as in the pinned mode); the physical {@code hash} only spreads rows over
 * tablets. Stateless and thread-safe.
 */
public final class SingleTableLayout {
  /** {@code state_id} of the rows that hold logical schemas. */
  public static final String SCHEMA_STATE_ID = "";

  private SingleTableLayout() {
  }

  /** @return the YTsaurus schema of the shared table */
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
   * @param key a logical key
   * @return its physical key row
   */
  public static ObjectNode physicalKey(TableKey key) {
    return physicalKey(key.schema().path(), encodeKey(key));
  }

  /**
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
   * @param row a logical row
   * @return the {@code row} column: UTF-8 JSON array of its values
   */
  public static byte[] encodeValues(Row row) {
    ArrayNode values = YtJson.array();
    List<Column> columns = row.schema().valueColumns();
    List<Object> v = row.values();
    for (int i = 0; i < columns.size(); i++) {
      values.add(encodeValue(columns.get(i).type(), v.get(i)));
    }
    return YtJson.write(values).getBytes(StandardCharsets.UTF_8);
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

  private static Object decodeValue(ColumnType type, JsonNode v) {
    if (v == null || v.isNull()) {
      return null;
    }
    switch (type) {
      case INT64:
        return v.longValue();
      case UINT64:
        return v.bigIntegerValue().longValue();
      case DOUBLE:
        return v.doubleValue();
      case BOOLEAN:
        return v.booleanValue();
      case STRING:
        return v.textValue();
      case BYTES:
        return Base64.getDecoder().decode(v.textValue());
      default:
        throw new AssertionError(type);
    }
  }

  /**
   * Decodes a physical row of the shared table.
   *
   * @param schema the logical schema
   * @param physical the physical row
   * @return the logical row, or {@code null} for a tombstone
   * @throws StoreException if the row cannot be decoded
   */
  public static Row decode(TableSchema schema, JsonNode physical) {
    if (physical.path("deleted").asBoolean(false) || physical.path("row").isNull()) {
      return null;
    }
    try {
      JsonNode keyParts = YtJson.read(YtJson.jsonToBytes(physical.path("key").asText()));
      JsonNode values = YtJson.read(YtJson.jsonToBytes(physical.path("row").asText()));
      List<Column> keyColumns = schema.userKeyColumns();
      List<Column> valueColumns = schema.valueColumns();
      if (!keyParts.isArray() || keyParts.size() != keyColumns.size() || !values.isArray()
          || values.size() != valueColumns.size()) {
        throw new StoreException("single-table row of " + schema.path() + " does not fit its schema: " + physical);
      }
      Object[] parts = new Object[keyColumns.size()];
      for (int i = 0; i < parts.length; i++) {
        parts[i] = decodeValue(keyColumns.get(i).type(), keyParts.get(i));
      }
      Object[] vals = new Object[valueColumns.size()];
      for (int i = 0; i < vals.length; i++) {
        vals[i] = decodeValue(valueColumns.get(i).type(), values.get(i));
      }
      return Row.of(TableKey.of(schema, parts), vals);
    } catch (IOException | IllegalArgumentException | NullPointerException e) {
      throw new StoreException("single-table row of " + schema.path() + " cannot be decoded: " + physical, e);
    }
  }

  /**
   * @param row the physical row
   * @return its {@code version} column (0 if null)
   */
  public static long version(JsonNode row) {
    return row.path("version").asLong(0);
  }

  /**
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
   * @param path the logical path
   * @param physical the schema row, or a missing-row marker
   * @return the recorded schema's document ({@code {"schema": [...], "attributes": {...}}}), or {@code null}
   */
  public static JsonNode schemaDocument(String path, JsonNode physical) {
    if (YtTableStoreSupport.isMissing(physical) || physical.path("row").isNull()) {
      return null;
    }
    try {
      return YtJson.read(YtJson.jsonToBytes(physical.path("row").asText()));
    } catch (IOException e) {
      throw new StoreException("the schema row of " + path + " cannot be decoded: " + physical, e);
    }
  }
}
