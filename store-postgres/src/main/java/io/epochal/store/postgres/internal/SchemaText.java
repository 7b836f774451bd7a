package io.epochal.store.postgres.internal;

import io.epochal.store.table.Column;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.TableSchema;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The stored form of a logical {@link TableSchema} in the store's table registry: a canonical text (one line per
 * column and attribute, in order) from which the schema is rebuilt exactly. The table's attributes carry the codec
 * ids and layout versions of state tables, so a different codec is a different schema. Stateless and thread-safe.
 */
public final class SchemaText {
  private static final String VERSION_LINE = "schema=1";

  private SchemaText() {
  }

  /**
   * Writes the canonical text of a schema, from which {@link #read} rebuilds an equal schema.
   *
   * @param schema the logical schema of a table: path, key and value columns, attributes
   * @return the canonical text of {@code schema}: a version line, then one line per path, column and attribute, in
   *     order, with path and attributes URL-encoded
   */
  public static String write(TableSchema schema) {
    StringBuilder sb = new StringBuilder(VERSION_LINE).append('\n');
    sb.append("path=").append(enc(schema.path())).append('\n');
    for (Column c : schema.userKeyColumns()) {
      sb.append("key=").append(c.name()).append(':').append(c.type().name()).append('\n');
    }
    for (Column c : schema.valueColumns()) {
      sb.append("value=").append(c.name()).append(':').append(c.type().name()).append(':')
          .append(c.required() ? "required" : "nullable").append('\n');
    }
    for (Map.Entry<String, String> a : schema.attributes().entrySet()) {
      sb.append("attribute=").append(enc(a.getKey())).append('=').append(enc(a.getValue())).append('\n');
    }
    return sb.toString();
  }

  /**
   * Rebuilds a schema from its canonical text.
   *
   * @param text the text stored in the registry, as written by {@link #write}
   * @return the schema {@code text} describes, equal to the one it was written from
   * @throws IllegalArgumentException if the text is not a schema written by {@link #write}
   */
  public static TableSchema read(String text) {
    String[] lines = text.split("\n");
    if (lines.length < 2 || !lines[0].equals(VERSION_LINE) || !lines[1].startsWith("path=")) {
      throw new IllegalArgumentException("not a stored schema (first line '" + (lines.length == 0 ? "" : lines[0])
          + "', expected '" + VERSION_LINE + "')");
    }
    TableSchema.Builder b = TableSchema.builder(dec(lines[1].substring("path=".length())));
    for (int i = 2; i < lines.length; i++) {
      String line = lines[i];
      int eq = line.indexOf('=');
      String field = eq < 0 ? line : line.substring(0, eq);
      String rest = eq < 0 ? "" : line.substring(eq + 1);
      switch (field) {
        case "key" -> {
          String[] p = rest.split(":");
          if (p.length != 2) {
            throw new IllegalArgumentException("bad key line '" + line + "'");
          }
          b.key(p[0], ColumnType.valueOf(p[1]));
        }
        case "value" -> {
          String[] p = rest.split(":");
          if (p.length != 3 || !(p[2].equals("required") || p[2].equals("nullable"))) {
            throw new IllegalArgumentException("bad value line '" + line + "'");
          }
          b.value(new Column(p[0], ColumnType.valueOf(p[1]), p[2].equals("required")));
        }
        case "attribute" -> {
          int e = rest.indexOf('=');
          if (e < 0) {
            throw new IllegalArgumentException("bad attribute line '" + line + "'");
          }
          b.attribute(dec(rest.substring(0, e)), dec(rest.substring(e + 1)));
        }
        default -> throw new IllegalArgumentException("unknown schema line '" + line + "'");
      }
    }
    return b.build();
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static String dec(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }
}
