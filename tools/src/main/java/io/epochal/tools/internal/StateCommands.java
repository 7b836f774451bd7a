package io.epochal.tools.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.epochal.errors.StateCorruptedException;
import io.epochal.store.table.CheckpointRows;
import io.epochal.store.table.Row;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The {@code state} commands: {@code dump} (every row of every state table, or of one), {@code get} (one key) and
 * {@code stats} (rows, value bytes, min/max txid per table). Values are decoded by {@link TableDecoder} from what each
 * table records. Not thread-safe (one run each).
 */
@Command(name = "state", description = "Inspect state tables (read-only).", mixinStandardHelpOptions = true,
    subcommands = {StateCommands.Dump.class, StateCommands.Get.class, StateCommands.Stats.class})
public final class StateCommands {
  private StateCommands() {
  }

  /** @return the tables a command runs over: {@code table}, or every state table (not the checkpoint tables) */
  static List<Table> tables(StoreAccess access, Optional<String> table) {
    if (table.isPresent()) {
      return List.of(find(access, table.get()));
    }
    return access.tablePaths().stream().filter(p -> !p.endsWith(CheckpointRows.TABLE))
        .flatMap(p -> access.store().findTable(p).stream()).toList();
  }

  static Table find(StoreAccess access, String path) {
    return access.store().findTable(path).orElseThrow(() -> new IllegalArgumentException("--table: no table '" + path
        + "' in " + access.store().describe()));
  }

  static ObjectNode tableJson(Report report, TableDecoder d) {
    ObjectNode t = report.document().withArray("tables").addObject();
    t.put("path", d.schema().path()).put("layout", d.attribute("epochal.layout"))
        .put("key_mapping", d.attribute("epochal.key")).put("codec", d.attribute("epochal.codec"));
    if (!d.note().isEmpty()) {
      t.put("note", d.note());
    }
    return t;
  }

  static void header(Report report, TableDecoder d) {
    report.line("table %s (layout %s, key %s, codec %s)", d.schema().path(), d.attribute("epochal.layout"),
        d.attribute("epochal.key"), d.attribute("epochal.codec"));
    if (!d.note().isEmpty()) {
      report.line("  NOTE: %s", d.note());
    }
  }

  /** Prints one decoded row; @return false (and reports it) if it does not decode. */
  static boolean show(Report report, TableDecoder d, Row row, ArrayNode rows) {
    TableDecoder.DecodedRow decoded;
    try {
      decoded = d.decode(row);
    } catch (RuntimeException e) {
      report.unreadable(d.schema().path(), row.key().toString(), "value does not decode with codec "
          + d.attribute("epochal.codec") + ": " + Errors.oneLine(e));
      return false;
    }
    if (report.json()) {
      ObjectNode r = rows.addObject();
      ObjectNode key = r.putObject("key");
      decoded.key().forEach((k, v) -> key.set(k, Report.toJson(v)));
      decoded.values().forEach((k, v) -> r.set(k, Report.toJson(v)));
    } else {
      StringBuilder line = new StringBuilder(" ");
      decoded.key().forEach((k, v) -> line.append(' ').append(k).append('=').append(Report.toText(v)));
      decoded.values().forEach((k, v) -> line.append("  ").append(k).append('=').append(Report.toText(v)));
      report.line("%s", line);
    }
    return true;
  }

  /** {@code state dump}. */
  @Command(name = "dump", mixinStandardHelpOptions = true,
      description = "Print every row of every state table (or of --table): key, decoded value, prev, txid.")
  public static final class Dump extends ToolCommand {
    @Option(names = "--table", paramLabel = "PATH", description = "only this table") String table;

    @Override
    protected int run(StoreAccess access, Report report) {
      for (Table t : tables(access, Optional.ofNullable(table))) {
        TableDecoder d = new TableDecoder(t.schema());
        header(report, d);
        ArrayNode rows = report.json() ? tableJson(report, d).putArray("rows") : null;
        long[] shown = new long[1];
        access.inspect(t, cell -> {
          if (cell.error().isPresent()) {
            report.unreadable(t.path(), cell.key(), cell.error().get());
          } else if (show(report, d, cell.row().get(), rows)) {
            shown[0]++;
          }
        });
        report.line("  %,d rows", shown[0]);
      }
      return OK;
    }
  }

  /** {@code state get}. */
  @Command(name = "get", mixinStandardHelpOptions = true, description = "Print the row of one key of a table.")
  public static final class Get extends ToolCommand {
    @Option(names = "--table", paramLabel = "PATH", required = true, description = "the table") String table;
    @Option(names = "--key", paramLabel = "K", split = ",", required = true,
        description = "the key, one value per key column (bytes in hex)") List<String> key;

    @Override
    protected int run(StoreAccess access, Report report) {
      Table t = find(access, table);
      TableDecoder d = new TableDecoder(t.schema());
      TableKey k = d.parseKey(key);
      header(report, d);
      ArrayNode rows = report.json() ? tableJson(report, d).putArray("rows") : null;
      Optional<Row> row;
      try {
        row = access.get(t, k);
      } catch (StateCorruptedException e) {
        report.unreadable(t.path(), k.toString(), Errors.oneLine(e));
        return UNREADABLE;
      }
      if (row.isEmpty()) {
        report.line("  no row with key %s", k.describeParts());
        return UNREADABLE;
      }
      show(report, d, row.get(), rows);
      return OK;
    }
  }

  /** {@code state stats}. */
  @Command(name = "stats", mixinStandardHelpOptions = true,
      description = "Per state table: rows, unreadable rows, bytes of the value columns, min/max txid.")
  public static final class Stats extends ToolCommand {
    @Option(names = "--table", paramLabel = "PATH", description = "only this table") String table;

    @Override
    protected int run(StoreAccess access, Report report) {
      for (Table t : tables(access, Optional.ofNullable(table))) {
        long[] s = {0, 0, 0, Long.MAX_VALUE, Long.MIN_VALUE}; // rows, unreadable, bytes, min txid, max txid
        access.inspect(t, cell -> {
          if (cell.error().isPresent()) {
            s[1]++;
            report.unreadable(t.path(), cell.key(), cell.error().get());
            return;
          }
          s[0]++;
          Row row = cell.row().get();
          for (Object v : row.values()) {
            s[2] += v instanceof byte[] b ? b.length : 0;
          }
          for (String c : List.of("txid", "committed_txid")) {
            if (row.schema().column(c).isPresent() && row.get(c) instanceof Long txid) {
              s[3] = Math.min(s[3], txid);
              s[4] = Math.max(s[4], txid);
            }
          }
        });
        Map<String, Object> stats = new java.util.LinkedHashMap<>();
        stats.put("rows", s[0]);
        stats.put("unreadable", s[1]);
        stats.put("value_bytes", s[2]);
        stats.put("min_txid", s[3] == Long.MAX_VALUE ? null : s[3]);
        stats.put("max_txid", s[4] == Long.MIN_VALUE ? null : s[4]);
        if (report.json()) {
          ObjectNode o = report.document().withArray("tables").addObject().put("path", t.path());
          stats.forEach((k, v) -> o.set(k, Report.toJson(v)));
        } else {
          report.line("table %s: %,d rows, %,d unreadable, %,d value bytes, txid %s..%s", t.path(), s[0], s[1], s[2],
              stats.get("min_txid"), stats.get("max_txid"));
        }
      }
      return OK;
    }
  }
}
