package io.epochal.store.ytsaurus.internal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.epochal.store.ytsaurus.YtError;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON handling for the HTTP proxy: the shared {@link ObjectMapper}, the row format, the byte-string convention, the
 * error parser and the tabular (newline-separated) reader and writer.
 *
 * <h2>String-encoding convention (one, used in both directions)</h2>
 * Rows travel in YTsaurus' JSON format with {@code encode_utf8=%true} (the format's default, but always sent
 * explicitly as {@code <encode_utf8=%true>json}). YTsaurus strings are byte strings; in this mode every byte
 * {@code b} of a stored string is one JSON code point {@code U+0000..U+00FF} with the same value. So:
 * <ul>
 *   <li>a {@code byte[]} value is sent as the Java string whose chars are its bytes ({@link #bytesToJson});</li>
 *   <li>a {@code String} value is first encoded as UTF-8 and then sent the same way ({@link #textToJson});</li>
 *   <li>read-back reverses it ({@link #jsonToBytes}, {@link #jsonToText}); a char above {@code U+00FF} in an answer
 *       is a protocol error.</li>
 * </ul>
 * The bytes stored in YTsaurus are therefore exactly the caller's bytes (UTF-8 for text), which makes the server's
 * computed {@code farm_hash(...)} equal to {@link io.epochal.hash.FarmHash#farmHash(Object...)} on the client, and
 * makes the tables readable by any other YTsaurus client. Base64 and {@code encode_utf8=%false} are not used.
 *
 * <p>Request headers ({@code X-YT-Parameters}) are written with every non-ASCII char escaped, so they stay ASCII.
 * Thread-safe: all members are immutable or thread-safe Jackson objects.
 */
public final class YtJson {

  /** The shared, thread-safe mapper. Integers that overflow {@code long} (uint64 above 2^63) become BigInteger. */
  public static final ObjectMapper MAPPER = JsonMapper.builder()
      .enable(JsonWriteFeature.ESCAPE_NON_ASCII)
      .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
      .disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .build();

  /** Node factory. */
  public static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** 80 '=' characters: the separator the proxy writes before an error dumped into a 200 response body. */
  static final String ERROR_SEPARATOR = "=".repeat(80);

  private YtJson() {
  }

  /**
   * The row format, {@code <encode_utf8=%true>json}, as its JSON representation for {@code input_format} and
   * {@code output_format}: {@code {"$value":"json","$attributes":{"encode_utf8":true}}}.
   *
   * @return a fresh node
   */
  public static ObjectNode rowFormat() {
    ObjectNode format = NODES.objectNode();
    format.put("$value", "json");
    format.putObject("$attributes").put("encode_utf8", true);
    return format;
  }

  /**
   * Makes an empty JSON object.
   *
   * @return a fresh empty object node
   */
  public static ObjectNode object() {
    return NODES.objectNode();
  }

  /**
   * Makes an empty JSON array.
   *
   * @return a fresh empty array node
   */
  public static ArrayNode array() {
    return NODES.arrayNode();
  }

  // ---------------------------------------------------------------------------------------------------------------
  // byte-string convention

  /**
   * Encodes bytes as a JSON string in YTsaurus' byte convention.
   *
   * @param bytes raw bytes
   * @return the JSON string that stands for exactly these bytes under {@code encode_utf8=%true}
   */
  public static String bytesToJson(byte[] bytes) {
    return new String(bytes, StandardCharsets.ISO_8859_1);
  }

  /**
   * Encodes text as a JSON string in YTsaurus' byte convention.
   *
   * @param text text
   * @return the JSON string that stands for the UTF-8 bytes of {@code text}
   */
  public static String textToJson(String text) {
    return bytesToJson(text.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Decodes a JSON string in YTsaurus' byte convention to bytes.
   *
   * @param json a JSON string read under {@code encode_utf8=%true}
   * @return the bytes it stands for
   * @throws IllegalArgumentException if a char is above {@code U+00FF} (not a byte)
   */
  public static byte[] jsonToBytes(String json) {
    byte[] out = new byte[json.length()];
    for (int i = 0; i < out.length; i++) {
      char c = json.charAt(i);
      if (c > 0xff) {
        throw new IllegalArgumentException("string value has char U+" + Integer.toHexString(c) + " at " + i
            + "; with encode_utf8=%true every char must be a byte (U+0000..U+00FF)");
      }
      out[i] = (byte) c;
    }
    return out;
  }

  /**
   * Decodes a JSON string in YTsaurus' byte convention to text.
   *
   * @param json a JSON string read under {@code encode_utf8=%true}
   * @return the UTF-8 text its bytes encode
   */
  public static String jsonToText(String json) {
    return new String(jsonToBytes(json), StandardCharsets.UTF_8);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // documents

  /**
   * Writes a tree as JSON.
   *
   * @param value a tree
   * @return its compact JSON, ASCII only
   */
  public static String write(JsonNode value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Parses a JSON document from bytes.
   *
   * @param bytes a JSON document
   * @return its tree
   * @throws IOException if it is not JSON
   */
  public static JsonNode read(byte[] bytes) throws IOException {
    return MAPPER.readTree(bytes);
  }

  /**
   * Parses a JSON document from text.
   *
   * @param text a JSON document
   * @return its tree
   * @throws IOException if it is not JSON
   */
  public static JsonNode read(String text) throws IOException {
    return MAPPER.readTree(text);
  }

  /**
   * Writes rows in the tabular JSON format: one object per line.
   *
   * @param rows the rows
   * @return the UTF-8 body
   */
  public static byte[] writeRows(List<? extends JsonNode> rows) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64 * rows.size() + 16);
    try {
      for (JsonNode row : rows) {
        MAPPER.writeValue(out, row);
        out.write('\n');
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /**
   * Reads a tabular JSON body: one value per line ({@code null} lines are kept, as the null slots of
   * {@code keep_missing_rows}). If the body carries an error dumped after a line of 80 {@code '='} (the proxy's
   * {@code dump_error_into_response} mode), that error is returned instead of the rows.
   *
   * @param body the response body
   * @return the rows, or the dumped error
   * @throws IOException if the body is not valid tabular JSON
   */
  public static TabularBody readRows(byte[] body) throws IOException {
    String text = new String(body, StandardCharsets.UTF_8);
    int sep = text.indexOf(ERROR_SEPARATOR);
    if (sep >= 0) {
      String tail = text.substring(sep).replace("=", " ").trim();
      try {
        return new TabularBody(List.of(), parseError(read(tail)));
      } catch (IOException | RuntimeException e) {
        return new TabularBody(List.of(), YtError.of(1, "error dumped into the response body: " + tail));
      }
    }
    List<JsonNode> rows = new ArrayList<>();
    try (JsonParser parser = MAPPER.createParser(body);
        MappingIterator<JsonNode> it = MAPPER.readerFor(JsonNode.class).readValues(parser)) {
      while (it.hasNextValue()) {
        rows.add(it.nextValue());
      }
    }
    return new TabularBody(rows, null);
  }

  /**
   * Rows of a tabular answer, or an error found in the body.
   *
   * @param rows the rows (JSON {@code null} node for a missing row)
   * @param error the error dumped into the body, or {@code null}
   */
  public record TabularBody(List<JsonNode> rows, YtError error) {
  }

  // ---------------------------------------------------------------------------------------------------------------
  // errors

  /**
   * Parses a YTsaurus error object, recursively (inner errors of any depth).
   *
   * @param node {@code {"code":..,"message":..,"attributes":{..},"inner_errors":[..]}}
   * @return the error
   * @throws IllegalArgumentException if {@code node} is not an object
   */
  public static YtError parseError(JsonNode node) {
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException("not a YTsaurus error object: " + node);
    }
    int code = node.path("code").asInt(1);
    String message = node.path("message").isTextual() ? node.get("message").asText() : "";
    Map<String, Object> attributes = new LinkedHashMap<>();
    JsonNode attrs = node.path("attributes");
    if (attrs.isObject()) {
      for (Map.Entry<String, JsonNode> f : attrs.properties()) {
        attributes.put(f.getKey(), plain(f.getValue()));
      }
    }
    List<YtError> inner = new ArrayList<>();
    JsonNode innerNode = node.path("inner_errors");
    if (innerNode.isArray()) {
      for (JsonNode child : innerNode) {
        if (child.isObject()) {
          inner.add(parseError(child));
        }
      }
    }
    return new YtError(code, message, attributes, inner);
  }

  /**
   * Encodes an error tree as YTsaurus' JSON error.
   *
   * @param error an error
   * @return its JSON form
   */
  public static ObjectNode errorToJson(YtError error) {
    ObjectNode node = object();
    node.put("code", error.code());
    node.put("message", error.message());
    node.set("attributes", MAPPER.valueToTree(error.attributes()));
    ArrayNode inner = node.putArray("inner_errors");
    for (YtError e : error.innerErrors()) {
      inner.add(errorToJson(e));
    }
    return node;
  }

  /**
   * Converts a JSON value to plain Java values.
   *
   * @param node a JSON value
   * @return it as plain Java ({@code String}, {@code Long}/{@code BigInteger}, {@code Double}, {@code Boolean},
   *     {@code List}, {@code Map}, {@code null})
   */
  public static Object plain(JsonNode node) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return null;
    }
    if (node.isTextual()) {
      return node.asText();
    }
    if (node.isBoolean()) {
      return node.asBoolean();
    }
    if (node.isIntegralNumber()) {
      return node.canConvertToLong() ? (Object) node.asLong() : node.bigIntegerValue();
    }
    if (node.isNumber()) {
      return node.asDouble();
    }
    if (node.isArray()) {
      List<Object> list = new ArrayList<>();
      node.forEach(e -> list.add(plain(e)));
      return list;
    }
    Map<String, Object> map = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> f : node.properties()) {
      map.put(f.getKey(), plain(f.getValue()));
    }
    return map;
  }
}
