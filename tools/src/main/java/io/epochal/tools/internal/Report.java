package io.epochal.tools.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.epochal.spout.PartitionedMetadata;
import java.io.PrintWriter;
import java.util.Map;

/**
 * The output of one command: text lines or one JSON document on standard output, and every unreadable cell as an
 * {@code error:} line on standard error (counted, so the command can exit non-zero after showing everything else).
 * Not thread-safe: one per command run.
 */
public final class Report {
  private static final ObjectMapper JSON = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
      .enable(SerializationFeature.INDENT_OUTPUT);

  private final PrintWriter out;
  private final PrintWriter err;
  private final boolean json;
  private final ObjectNode document = JsonNodeFactory.instance.objectNode();
  private final ArrayNode errors = document.putArray("errors");
  private int unreadable;

  /**
   * A report to {@code out}, with unreadable cells on {@code err}.
   *
   * @param out standard output
   * @param err standard error
   * @param json whether the output is one JSON document (printed by {@link #finish}) instead of text lines
   */
  public Report(PrintWriter out, PrintWriter err, boolean json) {
    this.out = out;
    this.err = err;
    this.json = json;
  }

  /** @return whether the output is JSON */
  public boolean json() {
    return json;
  }

  /** @return the JSON document printed by {@link #finish} */
  public ObjectNode document() {
    return document;
  }

  /**
   * Prints a text line (nothing in JSON mode).
   *
   * @param format a {@link String#format} pattern, without the line end
   * @param args its arguments
   */
  public void line(String format, Object... args) {
    if (!json) {
      out.printf(format + "%n", args);
    }
  }

  /**
   * Reports an unreadable cell of {@code table} at {@code key} on standard error (and in the JSON errors).
   *
   * @param table the table's path
   * @param key the cell's key as text
   * @param why what made it unreadable
   */
  public void unreadable(String table, String key, String why) {
    unreadable++;
    err.println("error: table " + table + ", key " + key + ": " + why + " (skipped)");
    ObjectNode e = errors.addObject();
    e.put("table", table).put("key", key).put("error", why);
  }

  /** @return the number of unreadable cells reported */
  public int unreadableCount() {
    return unreadable;
  }

  /** Prints the JSON document (JSON mode) and flushes. */
  public void finish() {
    if (json) {
      try {
        out.println(JSON.writeValueAsString(document));
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw new IllegalStateException("cannot write the JSON output", e);
      }
    }
    if (unreadable > 0) {
      err.println("error: " + unreadable + " cell(s) could not be read and were skipped (see the error lines above)");
    }
    out.flush();
    err.flush();
  }

  /**
   * @param value a decoded value or key part
   * @return a value for the JSON output: raw bytes as {@code {"raw_hex": "0x..."}}, others as Jackson sees them
   */
  public static JsonNode toJson(Object value) {
    if (value instanceof TableDecoder.Raw raw) {
      return JsonNodeFactory.instance.objectNode().put("raw_hex", raw.hex());
    }
    if (value instanceof PartitionedMetadata<?> pm) {
      ObjectNode partitions = JsonNodeFactory.instance.objectNode();
      for (Map.Entry<String, ?> e : pm.partitions().entrySet()) {
        partitions.putObject(e.getKey()).put("in_batch", pm.isInBatch(e.getKey()))
            .set("metadata", toJson(e.getValue()));
      }
      ObjectNode node = JsonNodeFactory.instance.objectNode();
      node.set("partitions", partitions);
      return node;
    }
    if (value instanceof MergedMetadata.Source s) {
      ObjectNode node = JsonNodeFactory.instance.objectNode().put("source", s.index()).put("in_batch", s.inBatch());
      node.set("metadata", s.metadata().map(Report::toJson).orElse(null));
      return node;
    }
    if (value instanceof java.util.List<?> list) {
      ArrayNode node = JsonNodeFactory.instance.arrayNode();
      list.forEach(v -> node.add(toJson(v)));
      return node;
    }
    try {
      JsonNode node = JSON.valueToTree(value);
      return node.isObject() && node.isEmpty() ? TextNode.valueOf(String.valueOf(value)) : node;
    } catch (IllegalArgumentException e) {
      return TextNode.valueOf(String.valueOf(value));
    }
  }

  /**
   * @param value a decoded value or key part
   * @return a value for the text output ({@code "text"} quoted, raw bytes in hex)
   */
  public static String toText(Object value) {
    return value instanceof String s ? '"' + s + '"' : String.valueOf(value);
  }
}
