package io.epochal.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** One run of the {@code epochal} command in this JVM: exit code, standard output and error. */
record ToolRun(int code, String out, String err) {
  private static final ObjectMapper JSON = new ObjectMapper();

  static ToolRun of(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Epochal.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new ToolRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  JsonNode json() {
    try {
      return JSON.readTree(out);
    } catch (java.io.IOException e) {
      throw new AssertionError("not JSON: " + out, e);
    }
  }

  /** @return the JSON table {@code path} of a dump, stats or get */
  JsonNode table(String path) {
    for (JsonNode t : json().get("tables")) {
      if (t.get("path").asText().equals(path)) {
        return t;
      }
    }
    throw new AssertionError("no table " + path + " in " + out);
  }

  /** @return the word -> value column of the rows of table {@code path} of a JSON dump */
  Map<String, Long> counts(String path, String column) {
    Map<String, Long> counts = new TreeMap<>();
    for (JsonNode row : table(path).get("rows")) {
      counts.put(row.get("key").get("key").asText(), row.get(column).asLong());
    }
    return counts;
  }

  /** @return the error lines on standard error that name a cell */
  List<String> cellErrors() {
    return err.lines().filter(l -> l.startsWith("error: table ")).toList();
  }

  @Override
  public String toString() {
    return "exit " + code + "\n--- out:\n" + out + "\n--- err:\n" + err;
  }
}
