package io.epochal.examples;

import io.epochal.store.rocksdb.RocksDbTableStore;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableStore;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * {@code state dump --state-dir DIR [--table PIPELINE/STATE]}: prints a RocksDB state table's keys, values, previous
 * values and txids (values shown as a long when 8 bytes, as text when valid UTF-8, else hex). Read-only.
 */
final class StateDump {
  private StateDump() {
  }

  static int run(String[] args) {
    Path dir = null;
    String tableName = "word-count/word-counts";
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--state-dir" -> dir = Path.of(args[i + 1]);
        case "--table" -> tableName = args[i + 1];
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (dir == null || !Files.isDirectory(dir)) {
      throw new IllegalArgumentException("state dump needs --state-dir pointing at an existing state directory");
    }
    try (TableStore store = RocksDbTableStore.builder(dir).build()) {
      Optional<Table> table = store.findTable(tableName);
      if (table.isEmpty()) {
        throw new IllegalArgumentException("no table '" + tableName + "' in " + dir);
      }
      List<Row> rows;
      try (StoreTransaction tx = store.begin()) {
        rows = tx.scan(table.get());
        tx.abort();
      }
      System.out.printf("table %s: %,d rows; schema %s%n", tableName, rows.size(), table.get().schema());
      for (Row row : rows) {
        StringBuilder line = new StringBuilder("  ").append(row.key().parts());
        for (String column : List.of("value", "prev_value", "txid")) {
          if (row.schema().column(column).isPresent()) {
            Object v = row.get(column);
            line.append("  ").append(column).append('=').append(v instanceof byte[] b ? show(b) : v);
          }
        }
        System.out.println(line);
      }
    }
    return 0;
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
