package io.epochal.store.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.epochal.errors.StoreException;
import io.epochal.store.postgres.internal.SqlErrors;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connections of a {@link PostgresTableStore}: the HikariCP pool it makes for a JDBC URL (and closes), or the
 * {@link DataSource} it was given (never closed); the server's endpoint and user for messages; borrowing a clean
 * autocommit connection and translating SQL failures into Epochal's errors. Thread-safe.
 */
final class PgConnections {
  private static final Logger LOG = LoggerFactory.getLogger(PostgresTableStore.class);

  private final DataSource dataSource;
  /** The pool this store made, or null if it was given a DataSource. */
  private final HikariDataSource ownedPool;
  /** {@code host:port/database} of the server, for messages. */
  final String endpoint;
  /** The database user, for messages. */
  final String user;

  /** Work on a connection. */
  @FunctionalInterface
  interface SqlWork<T> {
    T run(Connection c) throws SQLException;
  }

  private PgConnections(DataSource dataSource, HikariDataSource ownedPool, String endpoint, String user) {
    this.dataSource = dataSource;
    this.ownedPool = ownedPool;
    this.endpoint = endpoint;
    this.user = user;
  }

  /**
   * Makes a pool of {@code poolSize} connections to {@code jdbcUrl}.
   *
   * @param user the user, or null for the URL's (else pgjdbc's default)
   * @param password the password, or null for the URL's (or none)
   * @throws IllegalArgumentException if {@code jdbcUrl} is not a PostgreSQL JDBC URL
   */
  static PgConnections pool(String jdbcUrl, String user, String password, int poolSize, Duration connect,
      String pgSchema) {
    Properties parsed = org.postgresql.Driver.parseURL(jdbcUrl, null);
    if (parsed == null) {
      throw new IllegalArgumentException("not a PostgreSQL JDBC URL (jdbc:postgresql://host:port/database): "
          + jdbcUrl);
    }
    String endpoint = endpointOf(parsed);
    String who = user != null ? user : parsed.getProperty("user", System.getProperty("user.name"));
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(jdbcUrl);
    if (user != null) {
      cfg.setUsername(user);
    }
    if (password != null) {
      cfg.setPassword(password);
    }
    cfg.setMaximumPoolSize(poolSize);
    cfg.setMinimumIdle(1);
    cfg.setPoolName("epochal-postgres-" + pgSchema);
    cfg.setConnectionTimeout(Math.max(250, connect.toMillis()));
    cfg.addDataSourceProperty("connectTimeout", Long.toString(Math.max(1, connect.toSeconds())));
    cfg.addDataSourceProperty("tcpKeepAlive", "true");
    cfg.addDataSourceProperty("ApplicationName", "epochal");
    HikariDataSource pool;
    try {
      pool = new HikariDataSource(cfg);
    } catch (RuntimeException e) {
      throw SqlErrors.translate("connecting", e, endpoint, who, null);
    }
    return new PgConnections(pool, pool, endpoint, who);
  }

  /** Uses the connections of {@code dataSource}, asking one for the endpoint and user. */
  static PgConnections of(DataSource dataSource) {
    String[] who = probe(dataSource);
    return new PgConnections(dataSource, null, who[0], who[1]);
  }

  /** Closes the pool this store made (not a DataSource it was given). */
  void closePool() {
    if (ownedPool != null) {
      ownedPool.close();
    }
  }

  /** @return {@code failure} (of {@code doing}, on {@code table} or null) as an Epochal error */
  StoreException translate(String doing, Throwable failure, String table) {
    return SqlErrors.translate(doing, failure, endpoint, user, table);
  }

  private static String endpointOf(Properties p) {
    return p.getProperty("PGHOST", "localhost").replace(",", "|") + ":" + p.getProperty("PGPORT", "5432")
        .replace(",", "|") + "/" + p.getProperty("PGDBNAME", "");
  }

  /** @return {endpoint, user} of a DataSource's connections */
  private static String[] probe(DataSource ds) {
    try (Connection c = ds.getConnection()) {
      String url = c.getMetaData().getURL();
      Properties parsed = url == null ? null : org.postgresql.Driver.parseURL(url, null);
      String ep = parsed == null ? String.valueOf(url) : endpointOf(parsed);
      return new String[] {ep, c.getMetaData().getUserName()};
    } catch (SQLException | RuntimeException e) {
      throw SqlErrors.translate("connecting", e, "the server of " + ds, "?", null);
    }
  }

  /** Runs {@code work} on a pooled connection (autocommit), translating SQL failures. */
  <T> T withConnection(String doing, String table, SqlWork<T> work) {
    Connection c = borrow(doing);
    try {
      return work.run(c);
    } catch (SQLException e) {
      throw SqlErrors.translate(doing, e, endpoint, user, table);
    } finally {
      closeQuietly(c);
    }
  }

  /** @return a connection from the pool in autocommit mode, outside any transaction */
  Connection borrow(String doing) {
    Connection c;
    try {
      c = dataSource.getConnection();
    } catch (SQLException | RuntimeException e) {
      throw SqlErrors.translate(doing, e, endpoint, user, null);
    }
    try {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      org.postgresql.core.BaseConnection base = c.unwrap(org.postgresql.core.BaseConnection.class);
      if (base.getTransactionState() != org.postgresql.core.TransactionState.IDLE) {
        LOG.warn("a pooled connection to {} was handed out inside a transaction; rolling it back", endpoint);
        exec(c, "ROLLBACK");
      }
      return c;
    } catch (SQLException e) {
      closeQuietly(c);
      throw SqlErrors.translate(doing, e, endpoint, user, null);
    }
  }

  static void exec(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  static void rollbackQuietly(Connection c) {
    try {
      exec(c, "ROLLBACK");
    } catch (SQLException | RuntimeException e) {
      LOG.debug("rollback failed", e);
    }
  }

  static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException | RuntimeException e) {
      LOG.debug("closing a connection failed", e);
    }
  }
}
