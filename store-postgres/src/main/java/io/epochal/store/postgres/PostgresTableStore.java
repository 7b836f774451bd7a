package io.epochal.store.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.epochal.errors.CommitConflictException;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.LeaseLostException;
import io.epochal.errors.SchemaMismatchException;
import io.epochal.errors.StoreException;
import io.epochal.store.postgres.internal.Names;
import io.epochal.store.postgres.internal.PgTable;
import io.epochal.store.postgres.internal.SchemaText;
import io.epochal.store.postgres.internal.SqlErrors;
import io.epochal.store.postgres.internal.Storable;
import io.epochal.store.postgres.internal.StoreFormat;
import io.epochal.store.table.Column;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.Lease;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.Row;
import io.epochal.store.table.StagedTransaction;
import io.epochal.store.table.StoreCapabilities;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A shared, transactional {@link TableStore} on PostgreSQL (10 or later) over JDBC: every worker that reaches the
 * server sees the same tables, leases fence stale writers inside the commit, and each store transaction is one SQL
 * transaction, atomic across tables. It declares {@link StoreCapabilities#shared()}, so the coordinator runs the epoch
 * protocol over it (every dirty state row, the spout metadata and the committed txid of a batch in one commit).
 *
 * <pre>{@code
 * TableStore store = PostgresTableStore.builder("jdbc:postgresql://db.example.com:5432/app")
 *     .user("epochal").password(System.getenv("PGPASSWORD"))
 *     .schema("epochal")          // PostgreSQL schema holding the tables (created if missing)
 *     .poolSize(10)
 *     .build();
 * // or, with a pool the application already has:
 * TableStore store = PostgresTableStore.open(dataSource);
 * }</pre>
 *
 * <h2>Tables</h2>
 * One PostgreSQL table per Epochal table, in the configured schema, named {@code t<id>_<slug of the path>} (see the
 * module README; the registry table {@code epochal_tables} maps each path to its SQL name and keeps its logical
 * schema, {@link #sqlTableName} looks it up). Columns: {@code hash bigint} (YTsaurus {@code farm_hash} of the
 * key, computed by the client, with its top bit flipped, first in the primary key, so rows sort as in YTsaurus), the key columns, the value
 * columns, and {@code "$crc"}, the CRC-32C of the row's values, checked on every read: a damaged or hand-edited row
 * is reported as {@link io.epochal.errors.StateCorruptedException} naming table and key, never read. {@link #openTable}
 * of an existing table checks the logical schema in the registry and the physical columns and primary key of the
 * table; any difference is refused with {@link SchemaMismatchException} (expected vs actual), changing nothing.
 *
 * <h2>Transactions, isolation and conflicts</h2>
 * {@link #begin()} opens a {@code REPEATABLE READ} SQL transaction on a connection of its own (taking its snapshot at
 * once); lookups and scans read that snapshot, never the transaction's own writes, which are buffered in memory until
 * {@link StoreTransaction#commit()}. The commit checks the lease, then writes each table with one statement per
 * chunk of rows (an {@code UPDATE} of the rows its snapshot sees and an {@code INSERT ... ON CONFLICT DO NOTHING} of
 * the others, over arrays) and one for its deletes, and commits. PostgreSQL's first-updater-wins rule turns every
 * write-write conflict (a row updated, inserted or deleted by a transaction that committed after this one began)
 * into a serialization failure, reported as {@link CommitConflictException} (retryable) naming the table and key;
 * nothing is applied. A transaction holds its connection until it ends: open at most {@link Builder#poolSize} at
 * once.
 *
 * <h2>Leases and fencing</h2>
 * Table {@code epochal_leases} holds one row per lease: name, generation, owner. {@link #acquireLease} increments
 * the generation in one statement. A commit under a lease first reads the lease row {@code FOR SHARE} inside its SQL
 * transaction: a row taken over before or during the transaction (generation changed, or a serialization failure on
 * the row) fails the commit with {@link LeaseLostException}, changing nothing; and the share lock makes a takeover
 * wait until the commit is done, so every commit is ordered entirely before or after every takeover.
 *
 * <h2>Errors</h2>
 * An unreachable server is a retryable {@link StoreException} naming {@code host:port}; a refused login, a full disk
 * (SQLState 53100), a missing database or missing privileges are non-retryable {@link StoreException}s saying what to
 * fix. A read that fails is never an absent row.
 *
 * <h2>Thread-safety</h2>
 * Thread-safe. {@link #close()} waits for running calls, rolls back open transactions and closes the pool it made
 * (never a {@link DataSource} it was given).
 *
 * @since 0.2.0
 */
public final class PostgresTableStore implements TableStore {
  private static final Logger LOG = LoggerFactory.getLogger(PostgresTableStore.class);

  /** The store format written to {@code epochal_meta}; a schema holding another is refused. */
  static final String FORMAT = StoreFormat.CURRENT;
  /** Keys or rows per statement: larger operations are cut into chunks of this size. */
  static final int CHUNK = 10_000;

  private final DataSource dataSource;
  private final HikariDataSource ownedPool;
  private final String endpoint;
  private final String user;
  private final String pgSchema;
  private final String qs;
  private final CommitHook hook;
  private final ReadHook readHook;
  private final long transactionTimeoutMillis;
  private final int poolSize;
  private final String beginSql;
  private final String beginLeaseSql;

  private final Map<String, Handle> tables = new ConcurrentHashMap<>();
  private final Set<Tx> open = ConcurrentHashMap.newKeySet();
  /** Read lock: any call in progress. Write lock: {@link #close()}. */
  private final ReentrantReadWriteLock life = new ReentrantReadWriteLock();
  private volatile boolean closed;

  private PostgresTableStore(Builder b) {
    this.pgSchema = b.schema == null ? "epochal" : b.schema;
    this.qs = Names.quote(pgSchema);
    this.hook = b.commitHook == null ? CommitHook.NONE : b.commitHook;
    this.readHook = b.readHook == null ? ReadHook.NONE : b.readHook;
    this.transactionTimeoutMillis = (b.transactionTimeout == null ? Duration.ofMinutes(1) : b.transactionTimeout)
        .toMillis();
    // Inside a store transaction every join is of the bound keys with a table's primary key: probing the index per
    // key costs what the batch holds; a hash or merge join reads the whole table (the planner picks one while its
    // statistics say the table is small, and each commit would then scan all of it).
    String begin = "BEGIN ISOLATION LEVEL REPEATABLE READ; SET LOCAL idle_in_transaction_session_timeout = "
        + transactionTimeoutMillis + "; SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off; ";
    this.beginSql = begin + "SELECT 1";
    this.beginLeaseSql = begin + "SELECT generation, owner FROM " + qs + ".epochal_leases WHERE name = ?";
    if (b.jdbcUrl != null) {
      Properties parsed = org.postgresql.Driver.parseURL(b.jdbcUrl, null);
      if (parsed == null) {
        throw new IllegalArgumentException("not a PostgreSQL JDBC URL (jdbc:postgresql://host:port/database): "
            + b.jdbcUrl);
      }
      this.endpoint = endpointOf(parsed);
      this.user = b.user != null ? b.user : parsed.getProperty("user", System.getProperty("user.name"));
      this.poolSize = b.poolSize == 0 ? 10 : b.poolSize;
      HikariConfig cfg = new HikariConfig();
      cfg.setJdbcUrl(b.jdbcUrl);
      if (b.user != null) {
        cfg.setUsername(b.user);
      }
      if (b.password != null) {
        cfg.setPassword(b.password);
      }
      cfg.setMaximumPoolSize(poolSize);
      cfg.setMinimumIdle(1);
      cfg.setPoolName("epochal-postgres-" + pgSchema);
      Duration connect = b.connectTimeout == null ? Duration.ofSeconds(10) : b.connectTimeout;
      cfg.setConnectionTimeout(Math.max(250, connect.toMillis()));
      cfg.addDataSourceProperty("connectTimeout", Long.toString(Math.max(1, connect.toSeconds())));
      cfg.addDataSourceProperty("tcpKeepAlive", "true");
      cfg.addDataSourceProperty("ApplicationName", "epochal");
      try {
        this.ownedPool = new HikariDataSource(cfg);
      } catch (RuntimeException e) {
        throw SqlErrors.translate("connecting", e, endpoint, user, null);
      }
      this.dataSource = ownedPool;
    } else {
      this.ownedPool = null;
      this.dataSource = b.dataSource;
      this.poolSize = 0;
      String[] who = probe(b.dataSource);
      this.endpoint = who[0];
      this.user = who[1];
    }
    try {
      bootstrap();
    } catch (RuntimeException e) {
      if (ownedPool != null) {
        ownedPool.close();
      }
      throw e;
    }
    LOG.info("opened {}", describe());
  }

  /**
   * Starts configuring a store on the server and database of {@code jdbcUrl}
   * ({@code jdbc:postgresql://host:port/database}, with any pgjdbc options); the store makes and owns a HikariCP
   * connection pool.
   *
   * @throws NullPointerException if {@code jdbcUrl} is null
   */
  public static Builder builder(String jdbcUrl) {
    return new Builder(Objects.requireNonNull(jdbcUrl, "jdbcUrl"), null);
  }

  /**
   * Starts configuring a store on the connections of {@code dataSource} (of the PostgreSQL driver, or a pool of
   * its connections), which the store uses but never closes.
   *
   * @throws NullPointerException if {@code dataSource} is null
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(null, Objects.requireNonNull(dataSource, "dataSource"));
  }

  /**
   * Opens a store with the default settings on {@code dataSource}: {@code builder(dataSource).build()}.
   *
   * @throws StoreException if the server cannot be reached or the store schema cannot be prepared
   */
  public static PostgresTableStore open(DataSource dataSource) {
    return builder(dataSource).build();
  }

  // ------------------------------------------------------------------------------------------------ TableStore

  @Override
  public StoreCapabilities capabilities() {
    return StoreCapabilities.shared();
  }

  /**
   * {@inheritDoc}
   *
   * <p>Creation and checks run under an advisory lock of the store schema, so workers opening the same new table at
   * once create it once.
   *
   * @throws IllegalArgumentException if a column name is longer than PostgreSQL's 63-byte identifier limit
   */
  @Override
  public Table openTable(TableSchema schema) {
    Objects.requireNonNull(schema, "schema");
    for (Column c : schema.columns()) {
      Names.check(c.name(), "column name of table " + schema.path());
    }
    life.readLock().lock();
    try {
      checkOpen();
      Handle cached = tables.get(schema.path());
      if (cached != null) {
        if (!cached.pg.schema().equals(schema)) {
          throw mismatch(schema.path(), schema, cached.pg.schema());
        }
        return cached;
      }
      Handle h = withConnection("open table " + schema.path(), schema.path(), c -> openOrCreate(c, schema));
      Handle raced = tables.putIfAbsent(schema.path(), h);
      return raced == null ? h : raced;
    } finally {
      life.readLock().unlock();
    }
  }

  @Override
  public Optional<Table> findTable(String path) {
    Objects.requireNonNull(path, "path");
    life.readLock().lock();
    try {
      checkOpen();
      Handle cached = tables.get(path);
      if (cached != null) {
        return Optional.of(cached);
      }
      Optional<Handle> found = withConnection("find table " + path, path, c -> {
        Optional<String[]> reg = registryRow(c, path);
        if (reg.isEmpty()) {
          return Optional.<Handle>empty();
        }
        TableSchema stored = parseStored(path, reg.get()[1]);
        PgTable pg = new PgTable(stored, qs, reg.get()[0]);
        checkPhysical(c, pg);
        return Optional.of(new Handle(this, pg));
      });
      if (found.isEmpty()) {
        return Optional.empty();
      }
      Handle raced = tables.putIfAbsent(path, found.get());
      return Optional.of(raced == null ? found.get() : raced);
    } finally {
      life.readLock().unlock();
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>One statement ({@code INSERT ... ON CONFLICT DO UPDATE SET generation = generation + 1}); it waits for commits
   * under the lease that are in progress, which then complete before the takeover.
   */
  @Override
  public Lease acquireLease(String name, String owner) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(owner, "owner");
    life.readLock().lock();
    try {
      checkOpen();
      long generation = withConnection("take over lease '" + name + "'", null, c -> {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + qs + ".epochal_leases AS l (name, generation,"
            + " owner) VALUES (?, 1, ?) ON CONFLICT (name) DO UPDATE SET generation = l.generation + 1, owner = "
            + "EXCLUDED.owner, acquired_at = now() RETURNING generation")) {
          ps.setString(1, name);
          ps.setString(2, owner);
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
          }
        }
      });
      Lease lease = new Lease(name, owner, generation);
      LOG.debug("took over {}", lease);
      return lease;
    } finally {
      life.readLock().unlock();
    }
  }

  @Override
  public StoreTransaction begin() {
    return start(null);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Reads the lease row in the new transaction's snapshot: fails fast with {@link LeaseLostException} if it was
   * taken over already. The commit checks it again.
   *
   * @throws IllegalArgumentException if this store never issued the lease's generation
   */
  @Override
  public StoreTransaction begin(Lease lease) {
    Objects.requireNonNull(lease, "lease");
    return start(lease);
  }

  /**
   * {@inheritDoc}
   *
   * <p>One statement on a pooled connection, outside any transaction (the latest committed rows).
   */
  @Override
  public List<Optional<Row>> lookup(Table table, List<TableKey> keys) {
    Objects.requireNonNull(keys, "keys");
    Handle h = handleOf(table);
    Storable.checkKeys(h.pg, keys);
    life.readLock().lock();
    try {
      checkOpen();
      readHook.beforeRead(h.path());
      if (keys.isEmpty()) {
        return List.of();
      }
      return withConnection("lookup in table " + h.path(), h.path(), c -> lookupOn(c, h, keys));
    } finally {
      life.readLock().unlock();
    }
  }

  /**
   * The SQL name of the table that holds {@code path}, schema-qualified and quoted (for example
   * {@code "epochal"."t3_wordcount_counts_tx"}), for people and tools that read the database directly.
   *
   * @return the name, or empty if there is no such table
   * @throws StoreException if the registry cannot be read
   */
  public Optional<String> sqlTableName(String path) {
    return findTable(path).map(t -> ((Handle) t).pg.qualifiedName());
  }

  /** @return the PostgreSQL schema (namespace) holding this store's tables */
  public String schemaName() {
    return pgSchema;
  }

  @Override
  public String describe() {
    return "PostgreSQL table store at " + endpoint + ", schema " + pgSchema;
  }

  @Override
  public String toString() {
    return describe();
  }

  /**
   * Rolls back every open transaction (they can no longer commit), closes the connection pool the store made, and
   * marks the store closed. Waits for calls in progress. Idempotent.
   */
  @Override
  public void close() {
    life.writeLock().lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      for (Tx tx : List.copyOf(open)) {
        tx.kill();
      }
      open.clear();
      tables.clear();
      if (ownedPool != null) {
        ownedPool.close();
      }
    } finally {
      life.writeLock().unlock();
    }
    LOG.info("closed {}", describe());
  }

  // ------------------------------------------------------------------------------------------------ bootstrap

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

  /** Checks the server and creates the store's schema and tables if missing, under the store's advisory lock. */
  private void bootstrap() {
    withConnection("preparing schema " + pgSchema, null, c -> {
      try (Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT current_setting('server_version_num')::int, "
              + "current_setting('server_encoding')")) {
        rs.next();
        int version = rs.getInt(1);
        String encoding = rs.getString(2);
        if (version < 100000) {
          throw new StoreException("PostgreSQL at " + endpoint + " is version " + version + "; the store needs 10 or "
              + "later", null, false, ErrorContext.NONE);
        }
        if (!"UTF8".equalsIgnoreCase(encoding)) {
          throw new StoreException("database at " + endpoint + " has encoding " + encoding + "; the store needs a "
              + "UTF8 database (CREATE DATABASE ... ENCODING 'UTF8'), so that strings keep every character and sort "
              + "by their UTF-8 bytes", null, false, ErrorContext.NONE);
        }
      }
      exec(c, "BEGIN");
      boolean done = false;
      try {
        advisoryLock(c);
        boolean schemaExists;
        boolean metaExists;
        try (PreparedStatement ps = c.prepareStatement("SELECT to_regnamespace(?) IS NOT NULL, "
            + "to_regclass(?) IS NOT NULL")) {
          ps.setString(1, qs);
          ps.setString(2, qs + ".epochal_meta");
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            schemaExists = rs.getBoolean(1);
            metaExists = rs.getBoolean(2);
          }
        }
        if (!schemaExists) {
          exec(c, "CREATE SCHEMA " + qs);
        }
        if (!metaExists) {
          exec(c, "CREATE TABLE " + qs + ".epochal_meta (key text PRIMARY KEY, value text NOT NULL)");
          exec(c, "CREATE TABLE " + qs + ".epochal_tables (path text PRIMARY KEY, table_name text NOT NULL UNIQUE, "
              + "schema text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())");
          exec(c, "CREATE SEQUENCE " + qs + ".epochal_table_ids");
          exec(c, "CREATE TABLE " + qs + ".epochal_leases (name text PRIMARY KEY, generation bigint NOT NULL CHECK "
              + "(generation >= 1), owner text NOT NULL, acquired_at timestamptz NOT NULL DEFAULT now())");
          try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + qs + ".epochal_meta VALUES ('format', ?)")) {
            ps.setString(1, FORMAT);
            ps.executeUpdate();
          }
          LOG.info("created the Epochal store tables in schema {} at {}", pgSchema, endpoint);
        } else {
          StoreFormat.check(StoreFormat.read(c, qs), pgSchema, endpoint);
        }
        exec(c, "COMMIT");
        done = true;
      } finally {
        if (!done) {
          rollbackQuietly(c);
        }
      }
      return null;
    });
  }

  private void advisoryLock(Connection c) throws SQLException {
    StoreFormat.lock(c, pgSchema);
  }

  // ------------------------------------------------------------------------------------------------ tables

  private Handle openOrCreate(Connection c, TableSchema schema) throws SQLException {
    exec(c, "BEGIN");
    boolean done = false;
    try {
      advisoryLock(c);
      Optional<String[]> reg = registryRow(c, schema.path());
      PgTable pg;
      if (reg.isPresent()) {
        TableSchema stored = parseStored(schema.path(), reg.get()[1]);
        if (!stored.equals(schema)) {
          throw mismatch(schema.path(), schema, stored);
        }
        pg = new PgTable(schema, qs, reg.get()[0]);
        checkPhysical(c, pg);
      } else {
        long id;
        try (Statement st = c.createStatement();
            ResultSet rs = st.executeQuery("SELECT nextval('" + qs.replace("'", "''") + ".epochal_table_ids')")) {
          rs.next();
          id = rs.getLong(1);
        }
        pg = new PgTable(schema, qs, Names.tableName(id, schema.path()));
        exec(c, pg.createSql());
        try (PreparedStatement ps = c.prepareStatement("COMMENT ON TABLE " + pg.qualifiedName() + " IS "
            + literal("Epochal table " + schema.path()))) {
          ps.execute();
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + qs + ".epochal_tables (path, table_name, "
            + "schema) VALUES (?, ?, ?)")) {
          ps.setString(1, schema.path());
          ps.setString(2, pg.sqlName());
          ps.setString(3, SchemaText.write(schema));
          ps.executeUpdate();
        }
        LOG.info("created table {} as {} in {}", schema.path(), pg.qualifiedName(), describe());
      }
      exec(c, "COMMIT");
      done = true;
      return new Handle(this, pg);
    } finally {
      if (!done) {
        rollbackQuietly(c);
      }
    }
  }

  /** @return {table_name, schema text} of {@code path} in the registry */
  private Optional<String[]> registryRow(Connection c, String path) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT table_name, schema FROM " + qs + ".epochal_tables WHERE "
        + "path = ?")) {
      ps.setString(1, path);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(new String[] {rs.getString(1), rs.getString(2)}) : Optional.empty();
      }
    }
  }

  private TableSchema parseStored(String path, String text) {
    try {
      return SchemaText.read(text);
    } catch (RuntimeException e) {
      throw new StoreException("the registered schema of table " + path + " in " + describe() + " cannot be read ("
          + e.getMessage() + "); the registry (" + pgSchema + ".epochal_tables) was written by another format or "
          + "edited", e, false, ErrorContext.of(path, null));
    }
  }

  /** Checks that the SQL table of {@code pg} has exactly the expected columns and primary key. */
  private void checkPhysical(Connection c, PgTable pg) throws SQLException {
    List<String> columns = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT a.attname, format_type(a.atttypid, a.atttypmod), "
        + "a.attnotnull, COALESCE(co.collname, '') FROM pg_attribute a LEFT JOIN pg_collation co ON co.oid = "
        + "a.attcollation AND a.attcollation <> 0 WHERE a.attrelid = to_regclass(?) AND a.attnum > 0 AND NOT "
        + "a.attisdropped ORDER BY a.attnum")) {
      ps.setString(1, pg.qualifiedName());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          columns.add(PgTable.describeColumn(rs.getString(1), rs.getString(2), rs.getBoolean(3), rs.getString(4)));
        }
      }
    }
    String path = pg.schema().path();
    if (columns.isEmpty()) {
      throw new StoreException("table " + path + " is registered in " + describe() + " as " + pg.qualifiedName()
          + ", but that table does not exist (dropped by hand?); restore it, or delete its row from " + pgSchema
          + ".epochal_tables to start the table over", null, false, ErrorContext.of(path, null));
    }
    List<String> pk = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT a.attname FROM pg_index i CROSS JOIN LATERAL "
        + "unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord) JOIN pg_attribute a ON a.attrelid = "
        + "i.indrelid AND a.attnum = k.attnum WHERE i.indrelid = to_regclass(?) AND i.indisprimary ORDER BY k.ord")) {
      ps.setString(1, pg.qualifiedName());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          pk.add(rs.getString(1));
        }
      }
    }
    if (!columns.equals(pg.expectedColumns()) || !pk.equals(pg.expectedPrimaryKey())) {
      throw new SchemaMismatchException(path, "PostgreSQL table " + pg.qualifiedName() + " in " + describe(),
          "columns " + pg.expectedColumns() + " primary key " + pg.expectedPrimaryKey(),
          "columns " + columns + " primary key " + pk);
    }
  }

  private SchemaMismatchException mismatch(String path, TableSchema expected, TableSchema actual) {
    return new SchemaMismatchException(path, describe(), expected, actual);
  }

  private static String literal(String s) {
    return "'" + s.replace("'", "''") + "'";
  }

  // ------------------------------------------------------------------------------------------------ transactions

  private StoreTransaction start(Lease lease) {
    life.readLock().lock();
    try {
      checkOpen();
      Connection c = borrow("begin a transaction");
      boolean ok = false;
      try {
        if (lease == null) {
          try (Statement st = c.createStatement()) {
            st.execute(beginSql);
          }
        } else {
          long[] current = null;
          String owner = null;
          try (PreparedStatement ps = c.prepareStatement(beginLeaseSql)) {
            ps.setString(1, lease.name());
            boolean isResult = ps.execute();
            while (true) {
              if (isResult) {
                try (ResultSet rs = ps.getResultSet()) {
                  if (rs.next()) {
                    current = new long[] {rs.getLong(1)};
                    owner = rs.getString(2);
                  }
                }
              } else if (ps.getUpdateCount() == -1) {
                break;
              }
              isResult = ps.getMoreResults();
            }
          }
          if (current == null || lease.generation() > current[0]) {
            throw new IllegalArgumentException(lease + " was not issued by " + describe() + " (its current "
                + "generation of lease '" + lease.name() + "' is " + (current == null ? "none" : current[0]) + ")");
          }
          if (lease.generation() < current[0]) {
            throw leaseLost(lease, current[0], owner, "Cannot begin a transaction");
          }
        }
        Tx tx = new Tx(c, lease);
        open.add(tx);
        ok = true;
        return tx;
      } catch (SQLException e) {
        throw SqlErrors.translate("begin a transaction", e, endpoint, user, null);
      } finally {
        if (!ok) {
          rollbackQuietly(c);
          closeQuietly(c);
        }
      }
    } finally {
      life.readLock().unlock();
    }
  }

  private LeaseLostException leaseLost(Lease lease, long generation, String owner, String what) {
    return new LeaseLostException(what + ": " + lease + " was taken over by generation " + generation + " held by "
        + owner + " (" + describe() + "); this writer is fenced off and nothing it wrote was applied");
  }

  /** Looks up {@code keys} (checked) on {@code c}, in the current transaction if one is open. */
  private List<Optional<Row>> lookupOn(Connection c, Handle h, List<TableKey> keys) throws SQLException {
    // each distinct key is asked once; slot[i] is the position of keys[i] among the distinct keys
    HashMap<TableKey, Integer> index = new HashMap<>(Math.max(16, keys.size() * 4 / 3 + 1));
    List<TableKey> distinct = new ArrayList<>(keys.size());
    int[] slot = new int[keys.size()];
    for (int i = 0; i < slot.length; i++) {
      TableKey k = keys.get(i);
      Integer at = index.putIfAbsent(k, distinct.size());
      if (at == null) {
        slot[i] = distinct.size();
        distinct.add(k);
      } else {
        slot[i] = at;
      }
    }
    Row[] found = new Row[distinct.size()];
    for (int from = 0; from < distinct.size(); from += CHUNK) {
      List<TableKey> chunk = distinct.subList(from, Math.min(distinct.size(), from + CHUNK));
      try (PreparedStatement ps = c.prepareStatement(h.pg.lookupSql())) {
        bind(ps, h.pg.keyArrays(c, chunk));
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            int at = from + (int) rs.getLong(1) - 1;
            found[at] = h.pg.readRow(distinct.get(at), rs, 2, readHook);
          }
        }
      }
    }
    Optional<Row>[] out = newOptionals(keys.size());
    for (int i = 0; i < slot.length; i++) {
      out[i] = Optional.ofNullable(found[slot[i]]);
    }
    return Collections.unmodifiableList(Arrays.asList(out));
  }

  @SuppressWarnings("unchecked")
  private static Optional<Row>[] newOptionals(int size) {
    return (Optional<Row>[]) new Optional<?>[size];
  }

  private static void bind(PreparedStatement ps, Array[] arrays) throws SQLException {
    for (int i = 0; i < arrays.length; i++) {
      ps.setArray(i + 1, arrays[i]);
    }
  }

  // ------------------------------------------------------------------------------------------------ helpers

  @FunctionalInterface
  private interface SqlWork<T> {
    T run(Connection c) throws SQLException;
  }

  /** Runs {@code work} on a pooled connection (autocommit), translating SQL failures. */
  private <T> T withConnection(String doing, String table, SqlWork<T> work) {
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
  private Connection borrow(String doing) {
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

  private static void exec(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private static void rollbackQuietly(Connection c) {
    try {
      exec(c, "ROLLBACK");
    } catch (SQLException | RuntimeException e) {
      LOG.debug("rollback failed", e);
    }
  }

  private static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException | RuntimeException e) {
      LOG.debug("closing a connection failed", e);
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException(describe() + " is closed");
    }
  }

  private Handle handleOf(Table table) {
    Objects.requireNonNull(table, "table");
    if (!(table instanceof Handle h) || h.owner != this) {
      throw new IllegalArgumentException(table + " does not belong to " + describe());
    }
    return h;
  }

  /** An open table: its SQL. */
  private static final class Handle implements Table {
    final PostgresTableStore owner;
    final PgTable pg;

    Handle(PostgresTableStore owner, PgTable pg) {
      this.owner = owner;
      this.pg = pg;
    }

    @Override
    public TableSchema schema() {
      return pg.schema();
    }

    @Override
    public String toString() {
      return "Table[" + pg.schema().path() + " as " + pg.qualifiedName() + "]";
    }
  }

  /** A staged write: the values of the row to upsert (null for a delete) and its {@code $crc}. */
  private record Staged(List<Object> values, int crc) {
  }

  /**
   * A store transaction: a REPEATABLE READ SQL transaction on a connection of its own, writes buffered until the
   * commit.
   */
  private final class Tx extends StagedTransaction<Handle, TableKey, Staged> {
    private final Connection conn;
    /** Serializes use of {@link #conn}. */
    private final Object io = new Object();
    private boolean released; // guarded by io

    Tx(Connection conn, Lease lease) {
      super(lease);
      this.conn = conn;
    }

    @Override
    public List<Optional<Row>> lookup(Table table, List<TableKey> keys) {
      Objects.requireNonNull(keys, "keys");
      Handle h = handleOf(table);
      checkNotOver();
      Storable.checkKeys(h.pg, keys);
      life.readLock().lock();
      try {
        checkOpen();
        readHook.beforeRead(h.path());
        if (keys.isEmpty()) {
          return List.of();
        }
        synchronized (io) {
          checkLive();
          return lookupOn(conn, h, keys);
        }
      } catch (SQLException e) {
        throw SqlErrors.translate("lookup in table " + h.path(), e, endpoint, user, h.path());
      } finally {
        life.readLock().unlock();
      }
    }

    @Override
    public List<Row> scan(Table table) {
      Handle h = handleOf(table);
      checkNotOver();
      life.readLock().lock();
      try {
        checkOpen();
        readHook.beforeRead(h.path());
        List<Row> out = new ArrayList<>();
        synchronized (io) {
          checkLive();
          try (PreparedStatement ps = conn.prepareStatement(h.pg.scanSql())) {
            ps.setFetchSize(1000);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                TableKey key = h.pg.readKey(rs);
                out.add(h.pg.readRow(key, rs, h.pg.scanFirstValueColumn(), readHook));
              }
            }
          }
        }
        return Collections.unmodifiableList(out);
      } catch (SQLException e) {
        throw SqlErrors.translate("scan of table " + h.path(), e, endpoint, user, h.path());
      } finally {
        life.readLock().unlock();
      }
    }

    @Override
    public void upsert(Table table, Row row) {
      Objects.requireNonNull(row, "row");
      Handle h = handleOf(table);
      checkKey(h.pg.schema(), row.key());
      Storable.checkKey(h.pg, row.key());
      List<Object> values = row.values();
      Storable.check(h.pg, values, h.pg.schema().valueColumns(), false, row);
      stage(h.path(), h, row.key(), new Staged(values, h.pg.crcOf(row.key().hash(), values)));
    }

    @Override
    public void delete(Table table, TableKey key) {
      Objects.requireNonNull(key, "key");
      Handle h = handleOf(table);
      checkKey(h.pg.schema(), key);
      Storable.checkKey(h.pg, key);
      stage(h.path(), h, key, new Staged(null, 0));
    }

    @Override
    public void commit() {
      endForCommit();
      life.readLock().lock();
      try {
        checkOpen();
        synchronized (io) {
          checkLive();
          commitLocked();
        }
      } finally {
        life.readLock().unlock();
        finished();
      }
    }

    private void commitLocked() {
      Lease lease = leaseOrNull();
      LinkedHashMap<String, LinkedHashMap<TableKey, Staged>> writes = writes();
      if (lease != null) {
        checkLease(lease);
      }
      if (writes.isEmpty()) {
        return; // finished() ends the SQL transaction
      }
      for (Map.Entry<String, LinkedHashMap<TableKey, Staged>> e : writes.entrySet()) {
        hook.beforeTableWrite(e.getKey());
        write(table(e.getKey()), e.getValue());
      }
      try {
        exec(conn, "COMMIT");
      } catch (SQLException e) {
        released = true;
        closeQuietly(conn);
        if (SqlErrors.isConnectionFailure(e)) {
          throw new StoreException("PostgreSQL commit to table(s) " + writes.keySet() + " at " + endpoint + " lost "
              + "the connection (" + e.getMessage() + "); the outcome is unknown (the commit is atomic: all or "
              + "nothing), re-read to find out", e, true, ErrorContext.of(String.join(", ", writes.keySet()), null));
        }
        throw SqlErrors.translate("commit to table(s) " + writes.keySet(), e, endpoint, user,
            String.join(", ", writes.keySet()));
      }
      released = true;
      closeQuietly(conn);
    }

    /** Reads the lease row FOR SHARE in this transaction; throws {@link LeaseLostException} if it was taken over. */
    private void checkLease(Lease lease) {
      try (PreparedStatement ps = conn.prepareStatement("SELECT generation, owner FROM " + qs + ".epochal_leases "
          + "WHERE name = ? FOR SHARE")) {
        ps.setString(1, lease.name());
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            throw new IllegalStateException("lease '" + lease.name() + "' is missing from " + describe()
                + " although " + lease + " was issued by it");
          }
          long generation = rs.getLong(1);
          if (generation != lease.generation()) {
            throw leaseLost(lease, generation, rs.getString(2), "Commit refused");
          }
        }
      } catch (SQLException e) {
        if (!SqlErrors.isConflict(e)) {
          throw SqlErrors.translate("lease check of '" + lease.name() + "'", e, endpoint, user, null);
        }
        // taken over after this transaction's snapshot: read the new holder for the message
        rollbackQuietly(conn);
        String[] holder = {"?", "another worker"};
        try (PreparedStatement ps = conn.prepareStatement("SELECT generation, owner FROM " + qs
            + ".epochal_leases WHERE name = ?")) {
          ps.setString(1, lease.name());
          try (ResultSet rs = ps.executeQuery()) {
            if (rs.next()) {
              holder = new String[] {Long.toString(rs.getLong(1)), rs.getString(2)};
            }
          }
        } catch (SQLException ignored) {
          // the message says less
        }
        throw new LeaseLostException("Commit refused: " + lease + " was taken over by generation " + holder[0]
            + " held by " + holder[1] + " while this transaction ran (" + describe() + "); this writer is fenced off "
            + "and nothing it wrote was applied");
      }
    }

    /**
     * Writes one table's rows: per chunk one statement for the upserts, one for the deletes (plus one more if some
     * deleted keys had no row). Write-write conflicts fail a statement with a serialization failure.
     */
    private void write(Handle h, LinkedHashMap<TableKey, Staged> rows) {
      List<TableKey> upsertKeys = new ArrayList<>(rows.size());
      List<List<Object>> upsertValues = new ArrayList<>(rows.size());
      int[] crcs = new int[rows.size()];
      List<TableKey> deletes = new ArrayList<>();
      for (Map.Entry<TableKey, Staged> w : rows.entrySet()) {
        Staged staged = w.getValue();
        if (staged.values() != null) {
          crcs[upsertKeys.size()] = staged.crc();
          upsertKeys.add(w.getKey());
          upsertValues.add(staged.values());
        } else {
          deletes.add(w.getKey());
        }
      }
      for (int from = 0; from < upsertKeys.size(); from += CHUNK) {
        int to = Math.min(upsertKeys.size(), from + CHUNK);
        List<TableKey> chunk = upsertKeys.subList(from, to);
        long[] counts;
        try (PreparedStatement ps = conn.prepareStatement(h.pg.upsertSql())) {
          bind(ps, h.pg.rowArrays(conn, chunk, upsertValues.subList(from, to), Arrays.copyOfRange(crcs, from, to)));
          counts = twoCounts(ps);
        } catch (SQLException e) {
          throw failure(h, chunk, e);
        }
        if (counts[0] + counts[1] != chunk.size()) {
          throw new StoreException("PostgreSQL commit to table " + h.path() + " at " + endpoint + ": of "
              + chunk.size() + " rows " + counts[0] + " were updated and " + counts[1] + " inserted; the others were "
              + "neither (this is a bug of the store); nothing was applied", null, false,
              ErrorContext.of(h.path(), null));
        }
      }
      for (int from = 0; from < deletes.size(); from += CHUNK) {
        List<TableKey> chunk = deletes.subList(from, Math.min(deletes.size(), from + CHUNK));
        try {
          long[] counts;
          try (PreparedStatement ps = conn.prepareStatement(h.pg.deleteProbeSql())) {
            bind(ps, h.pg.keyArrays(conn, chunk));
            counts = twoCounts(ps);
          }
          if (counts[1] > 0) {
            try (PreparedStatement ps = conn.prepareStatement(h.pg.deleteSql())) {
              bind(ps, h.pg.keyArrays(conn, chunk));
              ps.executeUpdate();
            }
          }
        } catch (SQLException e) {
          throw failure(h, chunk, e);
        }
      }
    }

    private long[] twoCounts(PreparedStatement ps) throws SQLException {
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new long[] {rs.getLong(1), rs.getLong(2)};
      }
    }

    /** A failed statement of the commit: a conflict, or a store failure. */
    private RuntimeException failure(Handle h, List<TableKey> keys, SQLException e) {
      if (!SqlErrors.isConflict(e)) {
        return SqlErrors.translate("commit to table " + h.path(), e, endpoint, user, h.path());
      }
      TableKey first = keys.get(0);
      StringBuilder which = new StringBuilder("key ").append(first.describeParts()).append(" (").append(first)
          .append(')');
      if (keys.size() > 1) {
        which.append(" or another of the ").append(keys.size()).append(" rows this transaction writes there (");
        for (int i = 1; i < Math.min(keys.size(), 6); i++) {
          which.append(i == 1 ? "" : ", ").append(keys.get(i).describeParts());
        }
        which.append(keys.size() > 6 ? ", ...)" : ")");
      }
      CommitConflictException conflict = new CommitConflictException("Commit conflict on table " + h.path() + " "
          + which + " in " + describe() + ": the row was written by a transaction that committed after this one "
          + "began (" + e.getMessage().replace('\n', ' ') + "); nothing of this transaction was applied", h.path(),
          first.describeParts());
      conflict.addSuppressed(e);
      return conflict;
    }

    /** @throws IllegalStateException if the store closed this transaction. Call under {@link #io}. */
    private void checkLive() {
      if (released) {
        throw new IllegalStateException("the transaction is over (its store was closed)");
      }
    }

    /** Ends the SQL transaction (rolling back what was not committed) and returns the connection. */
    @Override
    protected void finished() {
      synchronized (io) {
        if (!released) {
          released = true;
          rollbackQuietly(conn);
          closeQuietly(conn);
        }
      }
      open.remove(this);
    }

    /** Called by {@link PostgresTableStore#close()}: rolls back and returns the connection. */
    void kill() {
      finished();
    }

    @Override
    public String toString() {
      Lease lease = leaseOrNull();
      return "PostgreSQL transaction" + (lease == null ? "" : " under " + lease) + " on " + describe();
    }
  }

  /**
   * Configures and opens a {@link PostgresTableStore}. Each option may be set once ({@link IllegalStateException}
   * otherwise) and is validated at once ({@link IllegalArgumentException}). {@link #build()} does not change the
   * builder. Not thread-safe.
   *
   * @since 0.2.0
   */
  public static final class Builder {
    private final String jdbcUrl;
    private final DataSource dataSource;
    private String user;
    private String password;
    private int poolSize;
    private String schema;
    private CommitHook commitHook;
    private ReadHook readHook;
    private Duration transactionTimeout;
    private Duration connectTimeout;

    private Builder(String jdbcUrl, DataSource dataSource) {
      this.jdbcUrl = jdbcUrl;
      this.dataSource = dataSource;
    }

    /** The database user (default: the URL's {@code user}, else pgjdbc's default). JDBC URL builders only. */
    public Builder user(String user) {
      urlOnly("user");
      once(this.user, "user");
      this.user = Objects.requireNonNull(user, "user");
      return this;
    }

    /** The user's password (default: the URL's, or none). JDBC URL builders only. */
    public Builder password(String password) {
      urlOnly("password");
      once(this.password, "password");
      this.password = Objects.requireNonNull(password, "password");
      return this;
    }

    /**
     * The size of the connection pool (default 10): the most store transactions and one-off lookups open at once.
     * JDBC URL builders only.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder poolSize(int poolSize) {
      urlOnly("poolSize");
      if (this.poolSize != 0) {
        throw new IllegalStateException("poolSize was already set to " + this.poolSize);
      }
      if (poolSize < 1) {
        throw new IllegalArgumentException("poolSize must be positive, was " + poolSize);
      }
      this.poolSize = poolSize;
      return this;
    }

    /**
     * How long connecting may take, and waiting for a free pooled connection (default 10 s). JDBC URL builders only.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder connectTimeout(Duration connectTimeout) {
      urlOnly("connectTimeout");
      once(this.connectTimeout, "connectTimeout");
      Objects.requireNonNull(connectTimeout, "connectTimeout");
      if (connectTimeout.isNegative() || connectTimeout.isZero()) {
        throw new IllegalArgumentException("connectTimeout must be positive, was " + connectTimeout);
      }
      this.connectTimeout = connectTimeout;
      return this;
    }

    /**
     * The PostgreSQL schema (namespace) holding the store's tables (default {@code epochal}; created if missing).
     * Stores on different schemas of one database are independent.
     *
     * @throws IllegalArgumentException if empty or longer than 63 bytes
     */
    public Builder schema(String schema) {
      once(this.schema, "schema");
      Objects.requireNonNull(schema, "schema");
      Names.check(schema, "schema name");
      this.schema = schema;
      return this;
    }

    /** A fault-injection hook called during commits, for tests (default {@link CommitHook#NONE}). */
    public Builder commitHook(CommitHook hook) {
      once(this.commitHook, "commitHook");
      this.commitHook = Objects.requireNonNull(hook, "hook");
      return this;
    }

    /** A fault-injection hook on the read path, for tests (default {@link ReadHook#NONE}). */
    public Builder readHook(ReadHook hook) {
      once(this.readHook, "readHook");
      this.readHook = Objects.requireNonNull(hook, "hook");
      return this;
    }

    /**
     * The longest a store transaction may sit idle between calls (default 1 minute), enforced by the server
     * ({@code idle_in_transaction_session_timeout}): a worker that hangs inside a transaction cannot hold locks,
     * and so block a lease takeover, for longer.
     *
     * @throws IllegalArgumentException if shorter than 1 ms
     */
    public Builder transactionTimeout(Duration timeout) {
      once(this.transactionTimeout, "transactionTimeout");
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.toMillis() < 1) {
        throw new IllegalArgumentException("transactionTimeout must be at least 1 ms, was " + timeout);
      }
      this.transactionTimeout = timeout;
      return this;
    }

    /**
     * Connects, checks the server (PostgreSQL 10 or later, a UTF8 database), and creates the schema and the store's
     * tables ({@code epochal_meta}, {@code epochal_tables}, {@code epochal_leases}) if missing.
     *
     * @throws StoreException if the server cannot be reached (retryable), refuses the login or the schema holds
     *     another store format (not retryable)
     */
    public PostgresTableStore build() {
      return new PostgresTableStore(this);
    }

    private void urlOnly(String option) {
      if (jdbcUrl == null) {
        throw new IllegalStateException(option + " is set by the DataSource; it applies to JDBC URL builders only");
      }
    }

    private static void once(Object current, String option) {
      if (current != null) {
        throw new IllegalStateException(option + " was already set to " + (option.equals("password") ? "***"
            : current));
      }
    }
  }
}
