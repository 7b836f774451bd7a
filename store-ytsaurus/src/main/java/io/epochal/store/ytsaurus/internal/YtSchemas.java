package io.epochal.store.ytsaurus.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.epochal.store.table.Column;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.TableSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Maps a {@link TableSchema} to a YTsaurus sorted dynamic table schema and back.
 *
 * <p>Layout: {@code hash uint64 sort_order=ascending expression="farm_hash(k1, k2, ...)"} (computed by the server,
 * never sent by the client), then the user key columns ascending, then the value columns ({@code required} as
 * declared). Types: {@code INT64→int64}, {@code UINT64→uint64}, {@code DOUBLE→double}, {@code BOOLEAN→boolean},
 * {@code STRING→utf8}, {@code BYTES→string}. The schema's string attributes live in the table's user attribute
 * {@value #ATTRIBUTES_ATTRIBUTE} (a map of strings). Like row strings, attribute keys and values travel under the
 * {@code encode_utf8=%true} convention of {@link YtJson} (text as its UTF-8 bytes, one char per byte) [inferred: the
 * proxy parses parameters and JSON bodies with the same JSON format defaults as rows].
 *
 * <p>Stateless and thread-safe.
 */
public final class YtSchemas {
  /** User attribute holding {@link TableSchema#attributes()}. */
  public static final String ATTRIBUTES_ATTRIBUTE = "epochal_attributes";

  private YtSchemas() {
  }

  /**
   * The expression that computes a table's hash column.
   *
   * @param schema a table schema
   * @return the {@code farm_hash(...)} expression of its {@value TableSchema#HASH_COLUMN} column
   */
  public static String hashExpression(TableSchema schema) {
    List<String> names = new ArrayList<>();
    for (Column c : schema.userKeyColumns()) {
      names.add(c.name());
    }
    return "farm_hash(" + String.join(", ", names) + ")";
  }

  /**
   * Translates a table schema to YTsaurus' schema.
   *
   * @param schema a table schema
   * @return its YTsaurus schema, a JSON list of column descriptors
   */
  public static ArrayNode toYt(TableSchema schema) {
    ArrayNode columns = YtJson.array();
    ObjectNode hash = columns.addObject();
    hash.put("name", TableSchema.HASH_COLUMN);
    hash.put("type", "uint64");
    hash.put("sort_order", "ascending");
    hash.put("expression", hashExpression(schema));
    for (Column c : schema.userKeyColumns()) {
      ObjectNode col = columns.addObject();
      col.put("name", c.name());
      col.put("type", c.type().ytType());
      col.put("sort_order", "ascending");
    }
    for (Column c : schema.valueColumns()) {
      ObjectNode col = columns.addObject();
      col.put("name", c.name());
      col.put("type", c.type().ytType());
      if (c.required()) {
        col.put("required", true);
      }
    }
    return columns;
  }

  /**
   * Translates a table schema's attributes to the attribute stored on the YTsaurus table.
   *
   * @param schema a table schema
   * @return its attributes as the JSON map stored in {@value #ATTRIBUTES_ATTRIBUTE}
   */
  public static ObjectNode attributesToYt(TableSchema schema) {
    ObjectNode out = YtJson.object();
    schema.attributes().forEach((k, v) -> out.put(YtJson.textToJson(k), YtJson.textToJson(v)));
    return out;
  }

  /**
   * Unwraps a schema read with {@code get @schema}: either a plain list or {@code {"$attributes":..,"$value":[..]}}.
   *
   * @param node the answer
   * @return the list of column descriptors
   */
  public static JsonNode columnList(JsonNode node) {
    JsonNode list = node != null && node.has("$value") ? node.get("$value") : node;
    return list == null ? YtJson.array() : list;
  }

  /**
   * Rebuilds the {@link TableSchema} a YTsaurus table represents.
   *
   * @param logicalPath the path to give the schema (as the caller names the table)
   * @param ytSchema the table's schema (list or {@code $value}-wrapped)
   * @param attributes the table's {@value #ATTRIBUTES_ATTRIBUTE} map, or {@code null}/missing for none
   * @return the schema, or empty if the table cannot be a table-store table (no computed {@code hash} first, a
   *     wrong expression, an unsupported type, no other key column)
   */
  public static Optional<TableSchema> fromYt(String logicalPath, JsonNode ytSchema, JsonNode attributes) {
    JsonNode columns = columnList(ytSchema);
    if (!columns.isArray() || columns.size() < 2) {
      return Optional.empty();
    }
    JsonNode first = columns.get(0);
    if (!TableSchema.HASH_COLUMN.equals(first.path("name").asText()) || !"uint64".equals(typeOf(first))
        || !first.hasNonNull("sort_order") || !first.hasNonNull("expression")) {
      return Optional.empty();
    }
    TableSchema.Builder b = TableSchema.builder(logicalPath);
    List<String> keyNames = new ArrayList<>();
    boolean inKey = true;
    try {
      for (int i = 1; i < columns.size(); i++) {
        JsonNode c = columns.get(i);
        String name = c.path("name").asText();
        ColumnType type = columnType(typeOf(c));
        if (type == null || c.hasNonNull("expression") || c.hasNonNull("aggregate")) {
          return Optional.empty();
        }
        boolean key = c.hasNonNull("sort_order");
        if (key) {
          if (!inKey || !"ascending".equals(c.get("sort_order").asText())) {
            return Optional.empty();
          }
          b.key(name, type);
          keyNames.add(name);
        } else {
          inKey = false;
          b.value(new Column(name, type, c.path("required").asBoolean(false)));
        }
      }
      if (keyNames.isEmpty()) {
        return Optional.empty();
      }
      if (!normalizeExpression(first.get("expression").asText())
          .equals(normalizeExpression("farm_hash(" + String.join(",", keyNames) + ")"))) {
        return Optional.empty();
      }
      if (attributes != null && attributes.isObject()) {
        for (Map.Entry<String, JsonNode> a : attributes.properties()) {
          b.attribute(YtJson.jsonToText(a.getKey()), a.getValue().isTextual() ? YtJson.jsonToText(a.getValue().asText())
              : YtJson.write(a.getValue()));
        }
      }
      return Optional.of(b.build());
    } catch (IllegalArgumentException | IllegalStateException e) {
      return Optional.empty();
    }
  }

  /**
   * Describes a YTsaurus schema for error messages.
   *
   * @param ytSchema a YTsaurus schema
   * @param attributes the {@value #ATTRIBUTES_ATTRIBUTE} map or {@code null}
   * @return a readable one-line description, e.g. {@code [hash uint64 key expression=farm_hash(w), w utf8 key, v int64]}
   */
  public static String describeYt(JsonNode ytSchema, JsonNode attributes) {
    List<String> parts = new ArrayList<>();
    for (JsonNode c : columnList(ytSchema)) {
      StringBuilder sb = new StringBuilder(c.path("name").asText()).append(' ').append(typeOf(c));
      if (c.hasNonNull("sort_order")) {
        sb.append(" key");
      }
      if (c.hasNonNull("expression")) {
        sb.append(" expression=").append(c.get("expression").asText());
      }
      if (c.path("required").asBoolean(false)) {
        sb.append(" required");
      }
      if (c.hasNonNull("aggregate")) {
        sb.append(" aggregate=").append(c.get("aggregate").asText());
      }
      parts.add(sb.toString());
    }
    return parts + ", attributes: " + (attributes == null || attributes.isMissingNode() ? "{}" : attributes);
  }

  private static String typeOf(JsonNode column) {
    if (column.hasNonNull("type")) {
      return column.get("type").asText();
    }
    JsonNode v3 = column.path("type_v3");
    if (v3.isTextual()) {
      return v3.asText();
    }
    if (v3.isObject() && "optional".equals(v3.path("type_name").asText()) && v3.path("item").isTextual()) {
      return v3.get("item").asText();
    }
    return String.valueOf(v3);
  }

  private static ColumnType columnType(String ytType) {
    for (ColumnType t : ColumnType.values()) {
      if (t.ytType().equals(ytType)) {
        return t;
      }
    }
    return null;
  }

  /** Whitespace, brackets and backquotes removed, so {@code farm_hash([a], [b])} equals {@code farm_hash(a,b)}. */
  static String normalizeExpression(String expression) {
    return expression.replaceAll("[\\s\\[\\]`]", "");
  }
}
