package io.epochal.store.rocksdb.internal;

import io.epochal.store.table.Column;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.TableSchema;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The stored form of a {@link TableSchema}: a canonical text (one line per column and attribute, in order), from
 * which the schema is rebuilt exactly, and its fingerprint (the first 16 hex digits of its SHA-256). The table's
 * attributes carry the codec ids and layout versions of state tables, so a different codec is a different schema.
 * Stateless and thread-safe.
 */
public final class SchemaText {
  private static final String VERSION_LINE = "schema=1";

  private SchemaText() {
  }

  /**
   * The mapping from the SPI's column types to the key and value encodings' kinds.
   *
   * @param type a column type of the table SPI
   * @return the kind of the same name, which encodes values of {@code type}
   */
  public static KeyEncoding.Kind kind(ColumnType type) {
    return switch (type) {
      case INT64 -> KeyEncoding.Kind.INT64;
      case UINT64 -> KeyEncoding.Kind.UINT64;
      case DOUBLE -> KeyEncoding.Kind.DOUBLE;
      case BOOLEAN -> KeyEncoding.Kind.BOOLEAN;
      case STRING -> KeyEncoding.Kind.STRING;
      case BYTES -> KeyEncoding.Kind.BYTES;
    };
  }

  /**
   * Maps columns to their kinds ({@link #kind}), as the key and value encodings take them.
   *
   * @param columns the columns, e.g. a schema's key or value columns
   * @return the kinds of the given columns, in order
   */
  public static List<KeyEncoding.Kind> kinds(List<Column> columns) {
    return columns.stream().map(c -> kind(c.type())).toList();
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
   * @param text the stored text, as written by {@link #write}
   * @return the schema {@code text} describes, equal to the one it was written from
   * @throws IllegalArgumentException if the text is not a schema written by {@link #write}: no version and path
   *     line, an unknown line or column type, or columns that make no valid schema; a key, value or attribute line
   *     cut short fails with an {@link IndexOutOfBoundsException} instead
   */
  public static TableSchema read(String text) {
    String[] lines = text.split("\n");
    if (lines.length < 2 || !lines[0].equals(VERSION_LINE) || !lines[1].startsWith("path=")) {
      throw new IllegalArgumentException("not a stored schema (version " + (lines.length == 0 ? "?" : lines[0])
          + ")");
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
          b.key(p[0], ColumnType.valueOf(p[1]));
        }
        case "value" -> {
          String[] p = rest.split(":");
          b.value(new Column(p[0], ColumnType.valueOf(p[1]), p[2].equals("required")));
        }
        case "attribute" -> {
          int e = rest.indexOf('=');
          b.attribute(dec(rest.substring(0, e)), dec(rest.substring(e + 1)));
        }
        default -> throw new IllegalArgumentException("unknown schema line '" + line + "'");
      }
    }
    return b.build();
  }

  /**
   * Computes the short fingerprint of a schema, which messages show to tell two schemas apart.
   *
   * @param schema the logical schema of a table
   * @return the fingerprint of {@code schema}: 16 hex digits of the SHA-256 of its canonical text
   */
  public static String fingerprint(TableSchema schema) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(write(schema).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static String dec(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }
}
