package io.epochal.store.ytsaurus;

import static io.epochal.store.ytsaurus.internal.BuilderOptions.once;
import static io.epochal.store.ytsaurus.internal.BuilderOptions.positive;

import io.epochal.errors.SchemaMismatchException;
import io.epochal.errors.StoreException;
import io.epochal.pipeline.Sleeper;
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
import io.epochal.store.ytsaurus.internal.ConsumerAdvances;
import io.epochal.store.ytsaurus.internal.LatestReads;
import io.epochal.store.ytsaurus.internal.LeaseManager;
import io.epochal.store.ytsaurus.internal.PinnedTransaction;
import io.epochal.store.ytsaurus.internal.ProxyPool;
import io.epochal.store.ytsaurus.internal.SingleTableTransaction;
import io.epochal.store.ytsaurus.internal.YtAuth;
import io.epochal.store.ytsaurus.internal.YtCypress;
import io.epochal.store.ytsaurus.internal.YtHttpClient;
import io.epochal.store.ytsaurus.internal.YtTableCatalog;
import io.epochal.store.ytsaurus.internal.YtTableStoreSupport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link TableStore} on YTsaurus sorted dynamic tables, spoken to through the HTTP proxy API v4 (no SDK).
 *
 * <pre>{@code
 * TableStore store = YtTableStore.builder("yt.example.com")   // proxy host[:port] or URL
 *     .root("//home/my-app/epochal")                          // where tables and leases live
 *     .build();                                               // token: YT_TOKEN or ~/.yt/token
 * }</pre>
 *
 * <p><b>Modes</b> ({@link YtMode}): {@link YtMode#PINNED} (default) runs each store transaction as one tablet
 * transaction on one heavy proxy and commits it with the lease as prerequisite: {@link StoreCapabilities#shared()}.
 * {@link YtMode#SINGLE_TABLE} keeps everything in one table and commits with one {@code insert_rows}: atomic across
 * logical tables but not fenced server-side ({@code fencing=false}); see {@link YtMode} and the module README.
 *
 * <p><b>Tables</b>: a schema path starting with {@code //} is used as is (an external table: it must already match,
 * or it is created); any other path ({@code [A-Za-z0-9_.-]} segments) goes under the root. Tables are created as
 * sorted dynamic tables with the computed key column {@code hash = farm_hash(<key columns>)}, optionally resharded
 * into {@link Builder#tabletCount(int) uniform tablets}, then mounted; an existing table with another schema is
 * refused with {@link SchemaMismatchException} (expected vs actual).
 *
 * <p><b>Reads</b> never take an unreadable value for a missing one: an error reply, an answer that is not tabular JSON
 * or has another row count than keys asked, and a row that does not fit its schema or fails its checksum each fail
 * the read with a {@link StoreException} naming the table ({@link io.epochal.errors.StateCorruptedException}, naming
 * table and key, for a row that cannot be decoded; not retryable), as do malformed answers to the Cypress reads of
 * schemas and lease generations. Retryable are an unreachable proxy, a timeout, an answer cut short and a lost tablet
 * transaction; not retryable are refused credentials or permissions, a missing node, a schema mismatch and an
 * undecodable row (see {@link YtException}). A {@link Builder#readHook(ReadHook) read hook} is called before every
 * lookup and scan; in {@link YtMode#SINGLE_TABLE} mode, where the values are bytes of the client's own checksummed
 * encoding, it also gets each row's stored bytes; in pinned mode YTsaurus keeps typed columns, so there are none.
 *
 * <p><b>Atomicity</b>: the store transaction (see {@link TableStore}). <b>Limits</b>: at most 100,000 rows written
 * per transaction, a transaction must finish within {@link Builder#transactionTimeout(Duration)} of its last call.
 * <b>Thread-safety</b>: thread-safe. <b>Nulls</b>: rejected with {@link NullPointerException}.
 *
 * @since 0.1.0
 */
@io.epochal.api.Evolving
public final class YtTableStore implements TableStore {
  private static final Logger LOG = LoggerFactory.getLogger(YtTableStore.class);

  private final String proxy;
  private final String root;
  private final YtMode mode;
  private final Duration transactionTimeout;
  private final int tabletCount;
  private final String sharedTable;
  private final CommitHook hook;
  private final ReadHook readHook;
  private final YtHttpClient client;
  private final YtTableCatalog tables;
  private final ProxyPool pool;
  private final LeaseManager leases;
  private final ConsumerAdvances consumerAdvances = new ConsumerAdvances();
  private volatile boolean closed;

  private YtTableStore(Builder b) {
    this.proxy = b.proxy;
    this.root = b.root;
    this.mode = b.mode == null ? YtMode.PINNED : b.mode;
    this.transactionTimeout = b.transactionTimeout;
    this.tabletCount = b.tabletCount;
    this.hook = b.commitHook == null ? CommitHook.NONE : b.commitHook;
    this.readHook = b.readHook == null ? ReadHook.NONE : b.readHook;
    Optional<String> token = b.token != null ? Optional.of(b.token)
        : YtAuth.resolveToken(System.getenv(), Path.of(System.getProperty("user.home", ".")));
    this.client = new YtHttpClient(new YtHttpClient.Settings(token, b.connectTimeout, b.requestTimeout,
        b.maxAttempts, b.initialBackoff, b.maxBackoff, b.sleeper == null ? Sleeper.system() : b.sleeper));
    YtCypress cypress = new YtCypress(client, proxy, b.mountTimeout);
    this.sharedTable = b.singleTable != null ? b.singleTable : root + "/epochal_rows";
    this.tables = new YtTableCatalog(this, client, cypress, proxy, root, tabletCount,
        mode == YtMode.SINGLE_TABLE ? sharedTable : null);
    if (mode == YtMode.PINNED) {
      this.pool = new ProxyPool(client, proxy, b.discoverHeavyProxies);
      LOG.info("YTsaurus table store: pinned mode, entry proxy {}, heavy proxies {}, root {}", proxy,
          pool.proxies(), root);
    } else {
      this.pool = null;
      LOG.warn("YTsaurus table store in SINGLE-TABLE FALLBACK MODE (entry proxy {}, table {}): every epoch is one "
          + "insert_rows, atomic across states, but NOT fenced by YTsaurus: a single-request write cannot carry a "
          + "prerequisite transaction, so fencing is only a lease ping right before the write and conflicts are "
          + "only checked right before the write. A writer that pauses between that check and its write can "
          + "overwrite newer data after losing its lease. Use the pinned mode when the heavy proxies are reachable.",
          proxy, sharedTable);
      try {
        tables.ensureSharedTable();
      } catch (RuntimeException e) {
        client.close();
        throw e;
      }
    }
    this.leases = new LeaseManager(cypress, root, b.leaseTimeout);
  }

  /**
   * Starts a builder.
   *
   * @param proxy the HTTP proxy: {@code host}, {@code host:port} or {@code http(s)://host:port}; in pinned mode the
   *     heavy proxies are discovered through it
   * @return a builder
   * @throws NullPointerException if {@code proxy} is null
   * @throws IllegalArgumentException if it is blank
   */
  public static Builder builder(String proxy) {
    return new Builder(proxy);
  }

  /**
   * How the store commits epochs.
   *
   * @return the commit mode
   */
  public YtMode mode() {
    return mode;
  }

  /**
   * The store's Cypress root.
   *
   * @return the root under which relative table paths and the leases live
   */
  public String root() {
    return root;
  }

  /**
   * Resolves a table-store path to the Cypress table that holds its rows.
   *
   * @param path a table-store path
   * @return the Cypress path of its physical table (the shared table in single-table mode)
   */
  public String ytPath(String path) {
    return mode == YtMode.PINNED ? YtCypress.resolve(root, path) : sharedTable;
  }

  @Override
  public StoreCapabilities capabilities() {
    return mode == YtMode.PINNED ? StoreCapabilities.shared() : new StoreCapabilities(true, false, true);
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException(describe() + " is closed");
    }
  }

  @Override
  public Table openTable(TableSchema schema) {
    Objects.requireNonNull(schema, "schema");
    checkOpen();
    return tables.open(schema);
  }

  /** Pinned mode: the latest committed rows, one {@code lookup_rows} per chunk of keys and no transaction. */
  @Override
  public List<Optional<Row>> lookup(Table table, List<TableKey> keys) {
    checkOpen();
    return mode == YtMode.PINNED ? new LatestReads(this, client, pool, readHook, () -> closed).lookup(table, keys)
        : TableStore.super.lookup(table, keys);
  }

  @Override
  public Optional<Table> findTable(String path) {
    Objects.requireNonNull(path, "path");
    checkOpen();
    return tables.find(path);
  }

  @Override
  public Lease acquireLease(String name, String owner) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(owner, "owner");
    checkOpen();
    return leases.acquire(name, owner);
  }

  @Override
  public StoreTransaction begin() {
    checkOpen();
    return start(null);
  }

  @Override
  public StoreTransaction begin(Lease lease) {
    Objects.requireNonNull(lease, "lease");
    checkOpen();
    return start(leases.handle(lease));
  }

  private StoreTransaction start(LeaseManager.Handle handle) {
    if (mode == YtMode.PINNED) {
      return PinnedTransaction.begin(this, client, pool, transactionTimeout.toMillis(), handle, hook, readHook,
          () -> closed, consumerAdvances);
    }
    return new SingleTableTransaction(this, client, proxy, sharedTable, leases, handle, hook, readHook,
        () -> closed);
  }

  @Override
  public String describe() {
    return "YTsaurus table store (" + (mode == YtMode.PINNED ? "pinned" : "single-table") + " mode, proxy " + proxy
        + ", root " + root + ")";
  }

  /** Stops the lease pinger and releases the leases held (aborting their master transactions). Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      leases.close();
    } finally {
      client.close();
    }
  }

  @Override
  public String toString() {
    return describe();
  }

  /**
   * The queue-consumer advances staged for this store's epoch commits (pinned mode): what a queue spout configured
   * with {@link YtQueueSpoutConfig.Builder#advanceConsumerIn} hands to the tablet transaction of each epoch commit.
   */
  ConsumerAdvances consumerAdvances() {
    return consumerAdvances;
  }

  /**
   * The most rows one tablet transaction may write.
   *
   * @return the maximum number of rows one transaction may write (YTsaurus' default limit)
   */
  public static int maxRowsPerTransaction() {
    return YtTableStoreSupport.MAX_ROWS_PER_TRANSACTION;
  }

  /**
   * Builds a {@link YtTableStore}. Not thread-safe. Each option may be set once ({@link IllegalStateException}
   * otherwise); a bad value is {@link IllegalArgumentException}. {@link #build()} does not change the builder.
   *
   * @since 0.1.0
   */
  public static final class Builder {
    private final String proxy;
    private String root;
    private YtMode mode;
    private String token;
    private Boolean discoverHeavyProxiesSet;
    private boolean discoverHeavyProxies = true;
    private Duration transactionTimeout = Duration.ofSeconds(60);
    private boolean transactionTimeoutSet;
    private Duration leaseTimeout = Duration.ofSeconds(30);
    private boolean leaseTimeoutSet;
    private Duration requestTimeout = Duration.ofSeconds(60);
    private boolean requestTimeoutSet;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration mountTimeout = Duration.ofMinutes(2);
    private boolean mountTimeoutSet;
    private int maxAttempts = 5;
    private boolean retriesSet;
    private Duration initialBackoff = Duration.ofMillis(50);
    private Duration maxBackoff = Duration.ofSeconds(2);
    private int tabletCount = 1;
    private boolean tabletCountSet;
    private String singleTable;
    private CommitHook commitHook;
    private ReadHook readHook;
    private Sleeper sleeper;

    private Builder(String proxy) {
      Objects.requireNonNull(proxy, "proxy");
      if (proxy.isBlank()) {
        throw new IllegalArgumentException("proxy must not be blank");
      }
      this.proxy = proxy.trim();
    }

    /**
     * The Cypress directory for tables with relative paths and for the leases ({@code <root>/_epochal/...}).
     * Required.
     *
     * @param root e.g. {@code //home/my-app/epochal}
     * @return this
     */
    public Builder root(String root) {
      once(this.root != null, "root");
      Objects.requireNonNull(root, "root");
      String r = root.endsWith("/") && root.length() > 2 ? root.substring(0, root.length() - 1) : root;
      YtCypress.checkAbsolute(r);
      this.root = r;
      return this;
    }

    /**
     * Sets the commit mode.
     *
     * @param mode the commit mode; default {@link YtMode#PINNED}
     * @return this
     */
    public Builder mode(YtMode mode) {
      once(this.mode != null, "mode");
      this.mode = Objects.requireNonNull(mode, "mode");
      return this;
    }

    /**
     * Sets the OAuth token.
     *
     * @param token the OAuth token; default: {@code YT_TOKEN}, else {@code ~/.yt/token}, else none
     * @return this
     */
    public Builder token(String token) {
      once(this.token != null, "token");
      this.token = Objects.requireNonNull(token, "token");
      return this;
    }

    /**
     * Sets whether the store looks up heavy proxies with {@code /hosts}.
     *
     * @param discover whether to look up heavy proxies with {@code /hosts} (default true); false pins transactions to
     *     the given proxy itself (right for a local single-proxy cluster)
     * @return this
     */
    public Builder discoverHeavyProxies(boolean discover) {
      once(discoverHeavyProxiesSet != null, "discoverHeavyProxies");
      this.discoverHeavyProxiesSet = discover;
      this.discoverHeavyProxies = discover;
      return this;
    }

    /**
     * Sets the tablet transaction timeout.
     *
     * @param timeout the tablet transaction timeout: a store transaction must make its next call (and its commit)
     *     within it; default 60 s
     * @return this
     */
    public Builder transactionTimeout(Duration timeout) {
      once(transactionTimeoutSet, "transactionTimeout");
      this.transactionTimeout = positive(timeout, "transactionTimeout");
      transactionTimeoutSet = true;
      return this;
    }

    /**
     * Sets the lease's master transaction timeout.
     *
     * @param timeout the lease master transaction timeout, pinged every third of it; default 30 s
     * @return this
     */
    public Builder leaseTimeout(Duration timeout) {
      once(leaseTimeoutSet, "leaseTimeout");
      this.leaseTimeout = positive(timeout, "leaseTimeout");
      leaseTimeoutSet = true;
      return this;
    }

    /**
     * Bounds one HTTP exchange.
     *
     * @param timeout the timeout of one HTTP exchange; default 60 s
     * @return this
     */
    public Builder requestTimeout(Duration timeout) {
      once(requestTimeoutSet, "requestTimeout");
      this.requestTimeout = positive(timeout, "requestTimeout");
      requestTimeoutSet = true;
      return this;
    }

    /**
     * Bounds the wait for a table to become mounted.
     *
     * @param timeout how long to wait for a table to become mounted; default 2 min
     * @return this
     */
    public Builder mountTimeout(Duration timeout) {
      once(mountTimeoutSet, "mountTimeout");
      this.mountTimeout = positive(timeout, "mountTimeout");
      mountTimeoutSet = true;
      return this;
    }

    /**
     * Retries of calls before commit (commits are never retried).
     *
     * @param maxAttempts attempts per call, at least 1; default 5
     * @param initialBackoff first backoff, doubled per retry with jitter; default 50 ms
     * @param maxBackoff backoff cap; default 2 s
     * @return this
     */
    public Builder retries(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
      once(retriesSet, "retries");
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
      }
      this.maxAttempts = maxAttempts;
      this.initialBackoff = positive(initialBackoff, "initialBackoff");
      this.maxBackoff = positive(maxBackoff, "maxBackoff");
      retriesSet = true;
      return this;
    }

    /**
     * Uniform pre-sharding of newly created tables: {@code reshard_table(tablet_count, uniform=true)} over the
     * {@code hash} column before the first mount. Existing tables are left alone.
     *
     * @param tabletCount tablets per new table, 1..10000; default 1
     * @return this
     */
    public Builder tabletCount(int tabletCount) {
      once(tabletCountSet, "tabletCount");
      if (tabletCount < 1 || tabletCount > 10_000) {
        throw new IllegalArgumentException("tabletCount must be in 1..10000, got " + tabletCount);
      }
      this.tabletCount = tabletCount;
      tabletCountSet = true;
      return this;
    }

    /**
     * Sets the shared table of the single-table mode.
     *
     * @param path the shared table of {@link YtMode#SINGLE_TABLE}; default {@code <root>/epochal_rows}
     * @return this
     */
    public Builder singleTable(String path) {
      once(singleTable != null, "singleTable");
      YtCypress.checkAbsolute(Objects.requireNonNull(path, "path"));
      this.singleTable = path;
      return this;
    }

    /**
     * Sets a fault-injection hook for tests.
     *
     * @param hook a fault-injection hook called during commits (tests); default {@link CommitHook#NONE}
     * @return this
     */
    public Builder commitHook(CommitHook hook) {
      once(commitHook != null, "commitHook");
      this.commitHook = Objects.requireNonNull(hook, "hook");
      return this;
    }

    /**
     * A fault-injection hook on the read path (tests): {@link ReadHook#beforeRead} is called with the table's path
     * before every lookup and scan, and what it throws reaches the caller; in {@link YtMode#SINGLE_TABLE} mode every
     * row's stored value bytes pass through {@link ReadHook#storedBytes} before they are checked and decoded. In
     * pinned mode YTsaurus keeps typed columns, not bytes of the client's, so {@code storedBytes} is not called.
     * Default {@link ReadHook#NONE}.
     *
     * @param hook the hook
     * @return this
     * @since 0.2.0
     */
    public Builder readHook(ReadHook hook) {
      once(readHook != null, "readHook");
      this.readHook = Objects.requireNonNull(hook, "hook");
      return this;
    }

    /**
     * Sets how the client waits between attempts.
     *
     * @param sleeper how retries wait (tests inject a virtual one); default {@link Sleeper#system()}
     * @return this
     */
    public Builder sleeper(Sleeper sleeper) {
      once(this.sleeper != null, "sleeper");
      this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
      return this;
    }

    /**
     * Connects: discovers heavy proxies (pinned mode) or creates and mounts the shared table (single-table mode).
     *
     * @return the store
     * @throws IllegalStateException if {@link #root(String)} was not set, or {@link #singleTable(String)} was set
     *     for the pinned mode
     * @throws StoreException if YTsaurus cannot be reached or the shared table does not fit
     */
    public YtTableStore build() {
      if (root == null) {
        throw new IllegalStateException("root was not set: call root(\"//home/<app>/epochal\")");
      }
      if (singleTable != null && mode != YtMode.SINGLE_TABLE) {
        throw new IllegalStateException("singleTable(...) needs mode(YtMode.SINGLE_TABLE)");
      }
      return new YtTableStore(this);
    }
  }
}
