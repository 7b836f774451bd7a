package io.epochal.store.postgres;

import io.epochal.api.Evolving;
import io.epochal.errors.CommitConflictException;
import io.epochal.errors.LeaseLostException;
import io.epochal.errors.SchemaMismatchException;
import io.epochal.errors.StoreException;
import io.epochal.store.postgres.internal.Names;
import io.epochal.store.postgres.internal.Storable;
import io.epochal.store.postgres.internal.StoreFormat;
import io.epochal.store.table.Column;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.Lease;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreCapabilities;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
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
@Evolving
public final class PostgresTableStore implements TableStore {
  private static final Logger LOG = LoggerFactory.getLogger(PostgresTableStore.class);

  /** The store format written to {@code epochal_meta}; a schema holding another is refused. */
  static final String FORMAT = StoreFormat.CURRENT;
  /** Keys or rows per statement: larger operations are cut into chunks of this size. */
  static final int CHUNK = 10_000;

  private final PgConnections conns;
  private final String pgSchema;
  private final ReadHook readHook;
  private final StoreLife life;
  private final SchemaDdl ddl;
  private final PgLeases leases;
  private final RowLookup lookup;
  private final Transactions transactions;
  private final Map<String, TableHandle> tables = new ConcurrentHashMap<>();

  private PostgresTableStore(Builder b) {
    this.pgSchema = b.schema == null ? "epochal" : b.schema;
    String qs = Names.quote(pgSchema);
    long transactionTimeoutMillis = (b.transactionTimeout == null ? Duration.ofMinutes(1) : b.transactionTimeout)
        .toMillis();
    this.conns = b.jdbcUrl != null ? PgConnections.pool(b.jdbcUrl, b.user, b.password,
        b.poolSize == 0 ? 10 : b.poolSize, b.connectTimeout == null ? Duration.ofSeconds(10) : b.connectTimeout,
        pgSchema) : PgConnections.of(b.dataSource);
    String description = describe();
    this.life = new StoreLife(description);
    this.ddl = new SchemaDdl(this, conns, pgSchema, qs, description);
    this.leases = new PgLeases(conns, qs, description);
    this.readHook = b.readHook == null ? ReadHook.NONE : b.readHook;
    this.lookup = new RowLookup(readHook);
    this.transactions = new Transactions(this, life, conns, leases, lookup, new BatchWriter(conns, leases, description),
        b.commitHook == null ? CommitHook.NONE : b.commitHook, readHook, qs, transactionTimeoutMillis);
    try {
      ddl.bootstrap();
    } catch (RuntimeException e) {
      conns.closePool();
      throw e;
    }
    LOG.info("opened {}", describe());
  }

  /**
   * Starts configuring a store on the server and database of {@code jdbcUrl}
   * ({@code jdbc:postgresql://host:port/database}, with any pgjdbc options); the store makes and owns a HikariCP
   * connection pool.
   *
   * @param jdbcUrl the pgjdbc URL of the database, e.g. {@code jdbc:postgresql://localhost:5432/app?ssl=true}; user and
   *     password may be in it or set on the builder
   * @return a new builder with the default settings, on which {@link Builder#build()} opens the store
   * @throws NullPointerException if {@code jdbcUrl} is null
   */
  public static Builder builder(String jdbcUrl) {
    return new Builder(Objects.requireNonNull(jdbcUrl, "jdbcUrl"), null);
  }

  /**
   * Starts configuring a store on the connections of {@code dataSource} (of the PostgreSQL driver, or a pool of
   * its connections), which the store uses but never closes.
   *
   * @param dataSource the source of the store's connections, already configured with server, user and password;
   *     it should allow as many connections at once as store transactions and lookups are open at once
   * @return a new builder with the default settings, on which {@link Builder#build()} opens the store
   * @throws NullPointerException if {@code dataSource} is null
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(null, Objects.requireNonNull(dataSource, "dataSource"));
  }

  /**
   * Opens a store with the default settings on {@code dataSource}: {@code builder(dataSource).build()}.
   *
   * @param dataSource the source of the store's connections, which the store uses but never closes
   * @return the open store, on schema {@code epochal}
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
      life.checkOpen();
      TableHandle cached = tables.get(schema.path());
      if (cached != null) {
        if (!cached.pg.schema().equals(schema)) {
          throw ddl.mismatch(schema.path(), schema, cached.pg.schema());
        }
        return cached;
      }
      TableHandle h = conns.withConnection("open table " + schema.path(), schema.path(),
          c -> ddl.openOrCreate(c, schema));
      TableHandle raced = tables.putIfAbsent(schema.path(), h);
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
      life.checkOpen();
      TableHandle cached = tables.get(path);
      if (cached != null) {
        return Optional.of(cached);
      }
      Optional<TableHandle> found = conns.withConnection("find table " + path, path, c -> ddl.find(c, path));
      if (found.isEmpty()) {
        return Optional.empty();
      }
      TableHandle raced = tables.putIfAbsent(path, found.get());
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
      life.checkOpen();
      return leases.acquire(name, owner);
    } finally {
      life.readLock().unlock();
    }
  }

  @Override
  public StoreTransaction begin() {
    return transactions.start(null);
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
    return transactions.start(lease);
  }

  /**
   * {@inheritDoc}
   *
   * <p>One statement on a pooled connection, outside any transaction (the latest committed rows).
   */
  @Override
  public List<Optional<Row>> lookup(Table table, List<TableKey> keys) {
    Objects.requireNonNull(keys, "keys");
    TableHandle h = handleOf(table);
    Storable.checkKeys(h.pg, keys);
    life.readLock().lock();
    try {
      life.checkOpen();
      readHook.beforeRead(h.path());
      if (keys.isEmpty()) {
        return List.of();
      }
      return conns.withConnection("lookup in table " + h.path(), h.path(), c -> lookup.lookup(c, h, keys));
    } finally {
      life.readLock().unlock();
    }
  }

  /**
   * The SQL name of the table that holds {@code path}, schema-qualified and quoted (for example
   * {@code "epochal"."t3_wordcount_counts_tx"}), for people and tools that read the database directly.
   *
   * @param path the Epochal path of the table ({@link TableSchema#path()} of the schema given to {@link #openTable})
   * @return the name, or empty if there is no such table
   * @throws StoreException if the registry cannot be read
   */
  public Optional<String> sqlTableName(String path) {
    return findTable(path).map(t -> ((TableHandle) t).pg.qualifiedName());
  }

  /**
   * Names the PostgreSQL schema the store lives in.
   *
   * @return the PostgreSQL schema (namespace) holding this store's tables, unquoted
   */
  public String schemaName() {
    return pgSchema;
  }

  @Override
  public String describe() {
    return "PostgreSQL table store at " + conns.endpoint + ", schema " + pgSchema;
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
      if (!life.markClosed()) {
        return;
      }
      transactions.killAll();
      tables.clear();
      conns.closePool();
    } finally {
      life.writeLock().unlock();
    }
    LOG.info("closed {}", describe());
  }

  /** @return {@code table} as a table of this store */
  TableHandle handleOf(Table table) {
    Objects.requireNonNull(table, "table");
    if (!(table instanceof TableHandle h) || h.owner != this) {
      throw new IllegalArgumentException(table + " does not belong to " + describe());
    }
    return h;
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

    /**
     * The database user (default: the URL's {@code user}, else pgjdbc's default). JDBC URL builders only.
     *
     * @param user the PostgreSQL role to log in as
     * @return this builder
     * @throws NullPointerException if {@code user} is null
     * @throws IllegalStateException if the builder was made from a {@link DataSource} (which carries its own user) or the user
     *     was already set
     */
    public Builder user(String user) {
      urlOnly("user");
      once(this.user, "user");
      this.user = Objects.requireNonNull(user, "user");
      return this;
    }

    /**
     * The user's password (default: the URL's, or none). JDBC URL builders only.
     *
     * @param password the password of the database user (shown as {@code ***} in the builder's messages)
     * @return this builder
     * @throws NullPointerException if {@code password} is null
     * @throws IllegalStateException if the builder was made from a {@link DataSource} (which carries its own password) or the password
     *     was already set
     */
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
     * @param poolSize the number of pooled connections; positive
     * @return this builder
     * @throws IllegalArgumentException if not positive
     * @throws IllegalStateException if the builder was made from a {@link DataSource} (which carries its own pool) or the pool size
     *     was already set
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
     * @param connectTimeout the longest wait for a new or a free connection; positive
     * @return this builder
     * @throws NullPointerException if {@code connectTimeout} is null
     * @throws IllegalArgumentException if not positive
     * @throws IllegalStateException if the builder was made from a {@link DataSource} (which carries its own time-outs) or the time-out
     *     was already set
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
     * @param schema the schema's name, unquoted (any text; it is quoted in SQL)
     * @return this builder
     * @throws NullPointerException if {@code schema} is null
     * @throws IllegalArgumentException if empty, holding NUL or longer than 63 bytes in UTF-8
     * @throws IllegalStateException if the schema was already set
     */
    public Builder schema(String schema) {
      once(this.schema, "schema");
      Objects.requireNonNull(schema, "schema");
      Names.check(schema, "schema name");
      this.schema = schema;
      return this;
    }

    /**
     * A fault-injection hook called during commits, for tests (default {@link CommitHook#NONE}).
     *
     * @param hook the hook, called once per table a commit writes, before that table's rows are written
     * @return this builder
     * @throws NullPointerException if {@code hook} is null
     * @throws IllegalStateException if a commit hook was already set
     */
    public Builder commitHook(CommitHook hook) {
      once(this.commitHook, "commitHook");
      this.commitHook = Objects.requireNonNull(hook, "hook");
      return this;
    }

    /**
     * A fault-injection hook on the read path, for tests (default {@link ReadHook#NONE}).
     *
     * @param hook the hook, called before every read of committed rows and given each row's check bytes before
     *     they are checked and decoded
     * @return this builder
     * @throws NullPointerException if {@code hook} is null
     * @throws IllegalStateException if a read hook was already set
     */
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
     * @param timeout the longest idle time inside a transaction, at least 1 ms (millisecond precision); the server
     *     then ends the session and the transaction fails
     * @return this builder
     * @throws NullPointerException if {@code timeout} is null
     * @throws IllegalArgumentException if shorter than 1 ms
     * @throws IllegalStateException if the transaction time-out was already set
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
     * @return the open store, which owns its connection pool if the builder was made from a JDBC URL; close it when
     *     done
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
