package io.epochal.examples;

import io.epochal.store.rocksdb.InspectedRow;
import io.epochal.store.rocksdb.RocksDbTableStore;
import io.epochal.store.table.Row;
import io.epochal.store.table.Table;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code state dump --state-dir DIR [--table PIPELINE/STATE]}: prints a RocksDB state table's keys, values, previous
 * values and txids (values shown as a long when 8 bytes, as text when valid UTF-8, else hex). Opens the directory
 * read-only (it writes nothing, so it works on a copy without write permission). A row that cannot be read (a
 * damaged cell or block) is printed as an {@code ERROR} line naming its key, and the dump goes on; the exit code is
 * then {@link Main#WRONG_STATE}.
 */
final class StateDump {
  private StateDump() {
  }

  static int run(String[] args, PrintStream out, PrintStream err) {
    Map<String, String> opts = CommandLine.options(args, 0, List.of("state-dir", "table"), "state dump");
    if (!opts.containsKey("state-dir")) {
      throw new Main.UsageException("state dump needs --state-dir DIR (an existing state directory)");
    }
    Path dir = CommandLine.stateDir(opts.get("state-dir"), false);
    String tableName = opts.getOrDefault("table", "word-count/word-counts");
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).readOnly(true).build()) {
      Optional<Table> table = store.findTable(tableName);
      if (table.isEmpty()) {
        throw new Main.UsageException("--table: no table '" + tableName + "' in " + dir + " (tables: "
            + String.join(", ", store.tablePaths()) + ")");
      }
      out.printf("table %s; schema %s%n", tableName, table.get().schema());
      long[] counts = new long[2]; // rows, errors
      store.inspect(table.get(), inspected -> {
        counts[0]++;
        if (inspected.error().isPresent()) {
          counts[1]++;
          out.println("  [" + inspected.key() + "]  ERROR: " + Main.oneLine(inspected.error().get().getMessage()));
        } else {
          out.println(line(inspected));
        }
      });
      out.printf("%,d rows%s%n", counts[0], counts[1] == 0 ? "" : ", " + counts[1] + " unreadable");
      if (counts[1] > 0) {
        err.println("error: " + counts[1] + " of " + counts[0] + " rows of table " + tableName + " in " + dir
            + " cannot be read (see the ERROR lines); the state directory is damaged");
        return Main.WRONG_STATE;
      }
      return Main.OK;
    }
  }

  private static String line(InspectedRow inspected) {
    Row row = inspected.row().orElseThrow();
    StringBuilder line = new StringBuilder("  ").append(row.key().parts());
    for (String column : List.of("value", "prev_value", "txid", "committed_txid")) {
      if (row.schema().column(column).isPresent()) {
        Object v = row.get(column);
        line.append("  ").append(column).append('=').append(v instanceof byte[] b ? show(b) : v);
      }
    }
    return line.toString();
  }

  private static String show(byte[] bytes) {
    if (bytes.length == 8) {
      return Long.toString(ByteBuffer.wrap(bytes).getLong());
    }
    try {
      return '"' + StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString() + '"';
    } catch (CharacterCodingException e) {
      return "0x" + HexFormat.of().formatHex(bytes);
    }
  }
}
