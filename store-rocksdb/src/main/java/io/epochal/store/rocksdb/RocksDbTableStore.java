package io.epochal.store.rocksdb;

import io.epochal.errors.CommitConflictException;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.LeaseLostException;
import io.epochal.errors.SchemaMismatchException;
import io.epochal.errors.StateCorruptedException;
import io.epochal.errors.StoreException;
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
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.rocksdb.RocksDB;
import org.rocksdb.TickerType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded, durable {@link TableStore}: sorted tables in one RocksDB database, one column family per table, with
 * atomic multi-table commits and lease fencing that holds across processes. Build one with
 * {@link #builder(Path)}; it declares {@link StoreCapabilities#full()}, so the coordinator uses the epoch protocol
 * over it (every dirty state row, the spout metadata and the committed txid of an epoch in one commit).
 *
 * <h2>State directory</h2>
 * <ul>
 *   <li>{@code format.properties}: the on-disk format (version, key/value/schema encodings) and the id of the
 *       database, written once the database has been created: the mark that the directory is <i>initialised</i>.
 *       Checked on every open: a directory written in another format is refused with a {@link StoreException}
 *       naming the directory, the expected and the found value;</li>
 *   <li>{@code db/}: the RocksDB database. Column family {@code t:<path>} holds table {@code <path>}; the default
 *       column family holds each table's schema (canonical text, whose attributes carry the codec ids and layout
 *       version of state tables), the database id and a copy of the leases. {@link #openTable} of an existing
 *       table with another schema fails with a {@link SchemaMismatchException} naming the directory and both
 *       schemas (with their fingerprints);</li>
 *   <li>{@code WATERMARK}: a RocksDB sequence number the database is known to have made durable (see
 *       <i>Damage</i>);</li>
 *   <li>{@code LEASE}, {@code lease.lock} and {@code open.lock}: the writer leases and locks (see <i>Fencing</i>).</li>
 * </ul>
 *
 * <h2>Rows</h2>
 * Keys are encoded so that RocksDB's bytewise order is YTsaurus' key order: the {@code hash} column (uint64,
 * big-endian), then each key column (int64 sign-flipped big-endian, doubles by the order-preserving bit transform,
 * booleans as one byte, strings and bytes with an escaped, order-preserving terminator). Values are a version byte,
 * one tagged, compact cell per value column and a CRC32C over the table's path, the encoded key and the value, so
 * that any damaged bit of a stored row, or a row moved to another key or table, fails its check. Bytes that fail the
 * check or do not decode raise {@link StateCorruptedException} naming the table, the key and the txid the row
 * claims; nothing is overwritten.
 *
 * <h2>Reading: missing is not unreadable</h2>
 * A lookup never reports a row it could not read as missing: RocksDB's {@code MultiGet} (whose Java binding drops
 * per-key errors and returns {@code null}, facebook/rocksdb#12741) is used for the rows it finds, and every key it
 * reports missing is read again with {@code Get}, which reports a damaged block as an error; so a damaged block is
 * {@link StateCorruptedException} naming the table and key, an I/O error a {@link StoreException}, never
 * "absent". Scans check the iterator's status. A {@link ReadHook} (for fault-injection tests) sees every read.
 *
 * <h2>Damage: never silently re-created</h2>
 * Once initialised, a directory is opened without RocksDB's {@code create_if_missing}, and refused with a
 * non-retryable {@link StoreException} that names the directory and what to do when it lost its database
 * ({@code db/CURRENT} missing), its database was replaced (its id differs from the one {@code format.properties}
 * records), its database lost committed data (its latest sequence number after recovery is below the
 * {@code WATERMARK}: a deleted or truncated {@code MANIFEST}, WAL or SST file), a table lost its schema row or its
 * column family. A crash never causes such a refusal: RocksDB recovers at least to every point the watermark
 * records (after opening, after each flush, after a clean close).
 *
 * <h2>Format versions</h2>
 * This version writes format 2. A format-1 directory (written by 0.1, no database id, unchecked cells) is upgraded
 * when first opened for writing: it gets a database id and a watermark, its existing cells are read as before
 * (without a checksum to verify) and every row written from then on is checksummed; the upgraded directory can no
 * longer be opened by 0.1. {@link Builder#readOnly} reads a format-1 directory without upgrading it.
 *
 * <h2>Atomicity and durability</h2>
 * Each {@link StoreTransaction#commit()} is one RocksDB {@code WriteBatch} across all column families it touches,
 * written with the write-ahead log: after any crash, all of it or none of it is visible. The {@link SyncPolicy}
 * decides whether the WAL is {@code fsync}ed per commit (default {@link SyncPolicy#WAL}: no, which survives any
 * process crash, while a machine crash may lose the last commits whole). The database uses atomic flush and
 * point-in-time WAL recovery, so column families never recover to different points.
 *
 * <h2>Errors</h2>
 * I/O errors that no retry can fix (no space left on device, a read-only file system, a disk quota, permission
 * denied) and RocksDB corruption reports are non-retryable {@link StoreException}s saying what to do
 * ({@link StoreException#retryable()} is false), so a pipeline stops at their first occurrence; other I/O errors are
 * retryable.
 *
 * <h2>Isolation and conflicts</h2>
 * Lookups and scans read the latest committed data (a scan reads one consistent view), never uncommitted writes.
 * Write-write conflicts are detected in memory: the store numbers its commits and remembers, for every row written
 * since it was opened (pruned once no open transaction can conflict with it), the number of the commit that last
 * wrote it. A transaction whose commit finds that a row it writes was committed after it began fails with
 * {@link CommitConflictException} and writes nothing. Only one process can open the database, so the in-memory map
 * sees every commit. Two shortcuts keep a single writer's commits off the map without hiding a conflict: a commit
 * made when no commit happened since its transaction began checks nothing (no row can have been written after it
 * began), and a commit made while no other transaction is open remembers nothing (a transaction that begins later
 * cannot conflict with it) and empties the map. A transaction's writes are staged as one list per table and applied
 * in order in the {@code WriteBatch}, so the last write of a key wins.
 *
 * <h2>Fencing across processes</h2>
 * A store holds {@code open.lock} (an {@code fcntl} lock, released by the OS when the process dies) for as long as
 * it is open, so only one store, in one process, writes a directory; {@link #destroy} refuses a directory whose lock
 * is held. Leases live next to the database, in the {@code LEASE} file, which records the database id and every
 * lease's generation and owner, is replaced atomically and only while holding {@code lease.lock}
 * ({@code FileChannel.lock()} plus an in-JVM lock); the database keeps a copy of each generation. {@link #acquireLease}
 * takes a lease over by writing a generation above every one the file or the database knows. A commit under a lease
 * runs its whole critical section (read the lease file, compare its database id, generation and owner with its own,
 * check conflicts, write the batch) while holding the same lock, so it is ordered entirely before or after any
 * takeover: after a takeover, the old holder's commit throws {@link LeaseLostException} and writes nothing. Because
 * the file names the database, a directory deleted and re-created under a running writer (or a {@code LEASE} file
 * replaced, deleted or edited) fences that writer too instead of validating its lease again; a damaged or missing
 * {@code LEASE} file is rebuilt from the database's copy with every lease moved one generation up (every earlier
 * holder fenced). The state directory must be on a local file system (POSIX record locks and atomic renames are
 * relied upon).
 *
 * <p>The takeover does not need the database: a new worker can fence a hung one that still holds the directory with
 * the static {@link #takeOverLease(Path, String, String)}, then open the store (the builder's
 * {@link Builder#openTimeout} waits for the old worker to release the directory, which it does when its pipeline
 * stops on the {@link LeaseLostException} and closes the store, or when its process dies), and begin transactions
 * under the lease it took. A worker that merely restarts after a crash just opens the store and calls
 * {@link #acquireLease}.
 *
 * <h2>Read-only</h2>
 * {@link Builder#readOnly} opens a directory without writing a byte to it (RocksDB's read-only mode, no lock file,
 * no upgrade), so it works on a copy without write permission; it runs the same checks, reads like a writer and
 * refuses writes, leases and new tables with a {@link StoreException}.
 *
 * <h2>Thread-safety</h2>
 * Thread-safe. Transactions may run concurrently; commits of one directory are serialised (in this JVM and across
 * processes). {@link #close()} waits for running calls, then releases every native handle; transactions still open
 * can no longer commit.
 *
 * @since 0.1.0
 */
@io.epochal.api.Evolving
public final class RocksDbTableStore implements TableStore {
  private static final Logger LOG = LoggerFactory.getLogger(RocksDbTableStore.class);

  /** The RocksDB database's directory inside the state directory. */
  static final String DB_DIR = "db";

  static {
    RocksDB.loadLibrary();
  }

  private final Path dir;
  private final SyncPolicy sync;
  private final boolean readOnly;
  private final StoreLife life;
  private final OpenDatabase database;
  private final Durability durability;
  private final TableCatalog tables;
  /** The leases; null when read-only. */
  private final LeaseKeeper leases;
  private final Commits commits;
  private final RowReader reader;

  private RocksDbTableStore(Builder b) {
    this.dir = b.dir;
    this.sync = b.sync == null ? SyncPolicy.WAL : b.sync;
    this.readOnly = b.readOnly;
    this.life = new StoreLife(describe());
    this.durability = new Durability(dir, readOnly);
    this.database = OpenDatabase.open(dir, sync, readOnly, b.openTimeout == null ? Duration.ZERO : b.openTimeout,
        durability);
    this.tables = new TableCatalog(this, database);
    this.leases = readOnly ? null : new LeaseKeeper(database, tables.defaultCf());
    this.commits = new Commits(database, tables.defaultCf(), b.hook == null ? CommitHook.NONE : b.hook, leases,
        durability);
    this.reader = new RowReader(database, b.readHook == null ? ReadHook.NONE : b.readHook, life);
    try {
      commits.restoreMarker(tables.load());
      if (!readOnly) {
        leases.reconcile(database.opened.created());
        durability.advance(database.db.getLatestSequenceNumber());
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    LOG.info("opened {}", describe());
  }

  /**
   * Starts configuring a store over the state directory {@code dir} (created if missing).
   *
   * @param dir the state directory, on a local file system (made absolute and normalized); one store per directory
   *     writes at a time
   * @return a new builder with the default settings, on which {@link Builder#build()} opens the store
   * @throws NullPointerException if {@code dir} is null
   */
  public static Builder builder(Path dir) {
    return new Builder(dir);
  }

  /**
   * Takes the lease {@code name} over for {@code owner} in the state directory {@code dir} without opening the
   * database for writing, so it works while another process still holds the directory open: from now on, every
   * transaction begun under an older generation of the lease, in any process, fails its commit with
   * {@link LeaseLostException} and writes nothing. Then open the store (with {@link Builder#openTimeout} to wait for
   * the fenced worker to let go) and {@linkplain #begin(Lease) begin} transactions under the returned lease. If the
   * {@code LEASE} file is missing, damaged or of another database, the generations are read from the database's own
   * copy (RocksDB's read-only mode) and every other lease is moved one generation up as well.
   *
   * @param dir the state directory, initialised by an earlier open of a store
   * @param name the lease's name, e.g. the pipeline's
   * @param owner who takes the lease over (a worker id, used in error messages)
   * @return the new lease, one generation above the previous holder's
   * @throws StoreException if {@code dir} is not an initialised state directory, or the lease cannot be written
   *     (not retryable if no retry can fix it)
   * @throws NullPointerException if an argument is null
   */
  public static Lease takeOverLease(Path dir, String name, String owner) {
    return LeaseKeeper.takeOver(dir, name, owner);
  }

  /**
   * Deletes the state of the directory {@code dir}: its database, {@code format.properties} and {@code WATERMARK},
   * after taking its locks, so a directory in use is never deleted under its user. The {@code LEASE} file and the
   * lock files are kept (a store created here later moves every lease above the generations it records, and a
   * waiting process keeps locking the same lock file); other files in {@code dir} are left alone. Does nothing if
   * {@code dir} does not exist. Works on a damaged directory too (that is what it is for).
   *
   * @throws StoreException if the directory is open in this JVM or in another process (nothing deleted; not
   *     retryable: stop that process first), is not a directory, or cannot be deleted (not retryable if no retry can
   *     fix it)
   * @param dir the state directory to delete the state of
   * @throws NullPointerException if {@code dir} is null
   */
  public static void destroy(Path dir) {
    StateDirectory.destroy(dir);
  }

  /**
   * Names the directory the store keeps its state in.
   *
   * @return the state directory, absolute and normalized
   */
  public Path directory() {
    return dir;
  }

  /**
   * Tells how this store's commits reach the disk ({@link Builder#sync}).
   *
   * @return the sync policy of commits
   */
  public SyncPolicy syncPolicy() {
    return sync;
  }

  /**
   * Tells whether this store refuses writes, leases and new tables.
   *
   * @return whether this store was opened read-only ({@link Builder#readOnly})
   */
  public boolean isReadOnly() {
    return readOnly;
  }

  /** Atomic multi-table commit and fencing: {@link StoreCapabilities#full()}. */
  @Override
  public StoreCapabilities capabilities() {
    return StoreCapabilities.full();
  }

  /**
   * {@inheritDoc}
   *
   * <p>Creating a table creates its column family and records its schema durably (fsync), even under
   * {@link SyncPolicy#WAL}.
   *
   * @throws SchemaMismatchException if the table exists with another schema; the message names the state directory
   *     and both schemas with their fingerprints
   * @throws StoreException if the table does not exist and the store is read-only
   */
  @Override
  public Table openTable(TableSchema schema) {
    Objects.requireNonNull(schema, "schema");
    return life.whileOpen(() -> tables.open(schema, readOnly));
  }

  @Override
  public Optional<Table> findTable(String path) {
    Objects.requireNonNull(path, "path");
    return life.whileOpen(() -> tables.find(path).map(Table.class::cast));
  }

  /**
   * Lists every table the state directory holds, whether or not it was opened through this store.
   *
   * @return the paths of every table of the database, sorted
   */
  public List<String> tablePaths() {
    return life.whileOpen(tables::paths);
  }

  /**
   * {@inheritDoc}
   *
   * <p>The new generation is written to the state directory's {@code LEASE} file (fsynced) under its file lock, so it
   * fences holders of the lease in other processes too, and to the database's copy of the leases.
   *
   * @throws StoreException if the store is read-only, or the lease cannot be written
   */
  @Override
  public Lease acquireLease(String name, String owner) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(owner, "owner");
    life.checkOpen();
    checkWritable("acquire lease '" + name + "'");
    return life.whileOpen(() -> {
      durability.checkNotReplaced("acquire lease '" + name + "'");
      return leases.acquire(name, owner);
    });
  }

  @Override
  public StoreTransaction begin() {
    return start(null);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Fails fast with {@link LeaseLostException} if the lease file already shows a newer generation, another owner,
   * or another database.
   *
   * @throws IllegalArgumentException if the lease's generation was never issued in this state directory
   * @throws StoreException if the store is read-only
   */
  @Override
  public StoreTransaction begin(Lease lease) {
    Objects.requireNonNull(lease, "lease");
    life.checkOpen();
    checkWritable("begin a transaction under " + lease);
    leases.checkBegin(lease);
    return start(lease);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Reads the latest committed rows, as a transaction's lookup does, without beginning one: no transaction is
   * registered, so a lookup running while a commit is made does not count as an open transaction that the commit's
   * rows could conflict with.
   *
   * @throws IllegalArgumentException if {@code table} is not a table of this store or a key is not of its schema
   */
  @Override
  public List<Optional<Row>> lookup(Table table, List<TableKey> keys) {
    Objects.requireNonNull(keys, "keys");
    TableHandle h = handleOf(table);
    return life.whileOpen(() -> {
      if (keys.isEmpty()) {
        return List.of();
      }
      List<byte[]> encoded = new ArrayList<>(keys.size());
      for (TableKey key : keys) {
        Objects.requireNonNull(key, "key");
        if (!key.schema().equals(h.schema)) {
          throw new IllegalArgumentException("key " + key + " does not match the schema of table " + h.schema.path());
        }
        encoded.add(h.encodeKey(key));
      }
      return reader.lookup(h, keys, encoded);
    });
  }

  private StoreTransaction start(Lease lease) {
    return life.whileOpen(() -> new RocksDbTransaction(this, reader, commits, life, commits.begin(), lease));
  }

  /**
   * Reads every stored row of {@code table} in key order, reporting each row that cannot be read instead of
   * stopping at the first: for inspection tools (the examples' {@code state dump}). Each row reaches {@code sink} as
   * an {@link InspectedRow}: the decoded row, or the {@link StateCorruptedException} naming its key. If RocksDB
   * cannot read on (a damaged block), a last {@code InspectedRow} names the key after which reading stopped.
   * Streams: rows are not collected.
   *
   * @param table a table opened on this store
   * @param sink receives each row in key order, on the calling thread, before {@code inspect} returns
   * @throws NullPointerException if {@code sink} is null
   * @throws StoreException if the store cannot be read at all (an I/O error)
   * @throws IllegalArgumentException if {@code table} is not a table of this store
   */
  public void inspect(Table table, Consumer<InspectedRow> sink) {
    TableHandle h = handleOf(table);
    Objects.requireNonNull(sink, "sink");
    reader.inspect(h, sink);
  }

  @Override
  public String describe() {
    return "RocksDB table store at " + dir + " (sync " + sync + (readOnly ? ", read-only" : "") + ")";
  }

  @Override
  public String toString() {
    return describe();
  }

  /**
   * Closes the database and releases every native handle (column families, options, statistics) and the locks.
   * Waits for calls in progress; transactions still open can no longer commit. Flushes the WAL to disk first, so a
   * clean close is durable under any {@link SyncPolicy}, and records that in the watermark. Idempotent.
   *
   * @throws StoreException if RocksDB reports an error while closing (the handles are released anyway)
   */
  @Override
  public void close() {
    life.writeLock().lock();
    try {
      if (!life.markClosed() || !database.close(tables)) {
        return;
      }
    } finally {
      life.writeLock().unlock();
      database.releaseLocks();
    }
    LOG.info("closed {}", describe());
  }

  /** WAL syncs since open (RocksDB ticker {@code WAL_FILE_SYNCED}); for tests of the sync policy. */
  long walSyncCount() {
    return life.whileOpen(() -> database.options.statistics.getTickerCount(TickerType.WAL_FILE_SYNCED));
  }

  /** Flushes every table to SST files (for tests that damage SST files). */
  void flushForTest() {
    life.whileOpen(() -> {
      tables.flush();
      return null;
    });
  }

  private void checkWritable(String what) {
    if (readOnly) {
      throw new StoreException("cannot " + what + ": " + describe() + " was opened read-only", null, false,
          ErrorContext.NONE);
    }
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
   * Configures and opens a {@link RocksDbTableStore}. Each option may be set once ({@link IllegalStateException}
   * otherwise) and is validated at once ({@link IllegalArgumentException}). {@link #build()} never changes the
   * builder, so it may build again (after the previous store was closed). Not thread-safe.
   *
   * @since 0.1.0
   */
  public static final class Builder {
    private final Path dir;
    private SyncPolicy sync;
    private Duration openTimeout;
    private CommitHook hook;
    private ReadHook readHook;
    private boolean readOnly;
    private boolean readOnlySet;

    private Builder(Path dir) {
      this.dir = Objects.requireNonNull(dir, "dir").toAbsolutePath().normalize();
    }

    /**
     * How commits reach the disk (default {@link SyncPolicy#WAL}: WAL on, no fsync per commit).
     *
     * @param sync the durability of each commit against a process or a machine crash
     * @return this builder
     * @throws NullPointerException if {@code sync} is null
     * @throws IllegalStateException if the sync policy was already set
     */
    public Builder sync(SyncPolicy sync) {
      if (this.sync != null) {
        throw new IllegalStateException("sync was already set to " + this.sync);
      }
      this.sync = Objects.requireNonNull(sync, "sync");
      return this;
    }

    /**
     * How long {@link #build()} waits for another process (or another store of this JVM) to release the
     * directory, RocksDB allowing one at a time (default zero: fail at once).
     *
     * @param openTimeout the longest wait for the directory; zero or positive
     * @return this builder
     * @throws NullPointerException if {@code openTimeout} is null
     * @throws IllegalArgumentException if negative
     * @throws IllegalStateException if the open time-out was already set
     */
    public Builder openTimeout(Duration openTimeout) {
      if (this.openTimeout != null) {
        throw new IllegalStateException("openTimeout was already set to " + this.openTimeout);
      }
      Objects.requireNonNull(openTimeout, "openTimeout");
      if (openTimeout.isNegative()) {
        throw new IllegalArgumentException("openTimeout must not be negative, was " + openTimeout);
      }
      this.openTimeout = openTimeout;
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
      if (this.hook != null) {
        throw new IllegalStateException("commitHook was already set to " + this.hook);
      }
      this.hook = Objects.requireNonNull(hook, "hook");
      return this;
    }

    /**
     * A fault-injection hook on the read path, for tests (default {@link ReadHook#NONE}): called once per lookup,
     * scan and {@link RocksDbTableStore#inspect} before reading, and with every stored cell's bytes before they are
     * checked and decoded. What it throws reaches the caller.
     *
     * @param readHook the hook, given the table's path before each read and each stored cell's bytes after it
     * @return this builder
     * @throws NullPointerException if {@code readHook} is null
     * @throws IllegalStateException if a read hook was already set
     * @since 0.2.0
     */
    public Builder readHook(ReadHook readHook) {
      if (this.readHook != null) {
        throw new IllegalStateException("readHook was already set to " + this.readHook);
      }
      this.readHook = Objects.requireNonNull(readHook, "readHook");
      return this;
    }

    /**
     * Opens the directory read-only (default false): nothing is ever written to it (RocksDB's read-only mode, no
     * lock file, no format upgrade), so it works on a copy without write permission, also while another process
     * writes the directory. Lookups and scans read as usual (the latest data recovered at open); writes, leases and
     * new tables are refused with a {@link StoreException}. The directory must be initialised.
     *
     * @param readOnly whether to open the directory read-only
     * @return this builder
     * @throws IllegalStateException if read-only was already set
     * @since 0.2.0
     */
    public Builder readOnly(boolean readOnly) {
      if (this.readOnlySet) {
        throw new IllegalStateException("readOnly was already set to " + this.readOnly);
      }
      this.readOnlySet = true;
      this.readOnly = readOnly;
      return this;
    }

    /**
     * Opens the store: creates the state directory if missing (unless read-only), waits up to
     * {@link #openTimeout} for the directory to be free, checks its format, opens (or, if the directory was never
     * initialised, creates) the database and every table in it.
     *
     * @throws StoreException if the directory was written in another format, is held by another process past the
     *     timeout, lost its database or data (see the class documentation; not retryable), or cannot be opened
     * @return the open store; closing it releases the directory
     */
    public RocksDbTableStore build() {
      return new RocksDbTableStore(this);
    }
  }
}
