package io.epochal.store.rocksdb;

import io.epochal.errors.CommitConflictException;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.LeaseLostException;
import io.epochal.errors.SchemaMismatchException;
import io.epochal.errors.StateCorruptedException;
import io.epochal.errors.StoreException;
import io.epochal.store.rocksdb.internal.ByteKey;
import io.epochal.store.rocksdb.internal.DirectoryLock;
import io.epochal.store.rocksdb.internal.Failures;
import io.epochal.store.rocksdb.internal.FormatFile;
import io.epochal.store.rocksdb.internal.KeyEncoding;
import io.epochal.store.rocksdb.internal.LeaseFile;
import io.epochal.store.rocksdb.internal.SchemaText;
import io.epochal.store.rocksdb.internal.ValueEncoding;
import io.epochal.store.rocksdb.internal.Watermark;
import io.epochal.store.table.Column;
import io.epochal.store.table.ColumnType;
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
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushJobInfo;
import org.rocksdb.FlushOptions;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Statistics;
import org.rocksdb.StatsLevel;
import org.rocksdb.TickerType;
import org.rocksdb.WALRecoveryMode;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
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
 * sees every commit.
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
public final class RocksDbTableStore implements TableStore {
  private static final Logger LOG = LoggerFactory.getLogger(RocksDbTableStore.class);

  /** The RocksDB database's directory inside the state directory. */
  static final String DB_DIR = "db";
  private static final String TABLE_CF_PREFIX = "t:";
  private static final String SCHEMA_KEY_PREFIX = "schema/";
  private static final String LEASE_KEY_PREFIX = "lease/";
  private static final byte[] DATABASE_ID_KEY = "meta/database-id".getBytes(StandardCharsets.UTF_8);
  /** Written once format.properties exists: a database with it but no format file lost that file. */
  private static final byte[] INITIALISED_KEY = "meta/initialised".getBytes(StandardCharsets.UTF_8);
  /**
   * The key of each table's commit marker, in the table's column family: the number of the last commit that wrote
   * the table. It sorts before every row key (those start with a type tag, 0x02 or more).
   */
  private static final byte[] MARKER_KEY = {0x00};
  /** Where scans of a table's rows start: after its marker. */
  private static final byte[] FIRST_ROW_KEY = {0x01};
  /** The default column family's copy of each table's marker: {@code written/<path>}. */
  private static final String WRITTEN_KEY_PREFIX = "written/";
  private static final String REBUILT_OWNER = "(fenced: the LEASE file was rebuilt)";
  private static final int PRUNE_EVERY = 1024;

  static {
    RocksDB.loadLibrary();
  }

  private final Path dir;
  private final SyncPolicy sync;
  private final CommitHook hook;
  private final ReadHook readHook;
  private final boolean readOnly;
  private final DirectoryLock dirLock;
  /** The lease file; null when read-only. */
  private final LeaseFile leases;
  private final Statistics statistics;
  private final DBOptions dbOptions;
  private final ColumnFamilyOptions cfOptions;
  private final WriteOptions writeOptions;
  private final WriteOptions metaWriteOptions;
  private final ReadOptions readOptions;
  private final FlushListener flushListener;
  private final RocksDB db;
  private final ColumnFamilyHandle defaultCf;
  /** The database's id; empty only for a format-1 directory opened read-only. */
  private final Optional<String> databaseId;
  /** Whether cells of the unchecked format-1 encoding may be read. */
  private final boolean legacyCells;
  /** The file key (device and inode) of {@code db/} at open, or null where the file system has none. */
  private final Object dbDirKey;
  /** Every column family handle, the default one first; closed by {@link #close()}. Guarded by tablesLock. */
  private final List<ColumnFamilyHandle> handles = new ArrayList<>();
  /** Read lock: any use of a native handle. Write lock: {@link #close()}. */
  private final ReentrantReadWriteLock life = new ReentrantReadWriteLock();
  private volatile boolean closed;

  private final Object tablesLock = new Object();
  private final Map<String, Handle> tables = new HashMap<>(); // guarded by tablesLock
  /** Column families of tables whose schema row is missing (a crash between creating both); all empty. */
  private final Map<String, ColumnFamilyHandle> unregistered = new HashMap<>(); // guarded by tablesLock

  /**
   * The highest generation of each lease this store has issued or seen in the lease file: a file showing a lower one
   * was rolled back (an old copy restored), and fences every holder. Guarded by itself.
   */
  private final Map<String, Long> highestSeen = new HashMap<>();

  /** Guards the watermark; never held while waiting for anything else. */
  private final Object watermarkLock = new Object();
  private long watermark = -1; // guarded by watermarkLock; the sequence number last written to WATERMARK

  /** Guards the conflict state below; only taken inside the directory's commit lock. */
  private final Object conflicts = new Object();
  private long commitSeq; // guarded by conflicts
  /** The number of the last commit that wrote rows (durable in the markers); guarded by conflicts. */
  private long lastMarker;
  private final HashMap<ByteKey, Long> lastWrite = new HashMap<>(); // guarded by conflicts
  private long commitsSincePrune; // guarded by conflicts
  private int pruneAtSize = 4 * PRUNE_EVERY; // guarded by conflicts
  /** The transactions open now, by the commit number they began after. Guarded by conflicts. */
  private final StagedTransaction.OpenTransactions active = new StagedTransaction.OpenTransactions();

  /** What opening the database found. */
  private record Opened(RocksDB db, Optional<String> databaseId, boolean legacyCells, boolean created) {
  }

  private RocksDbTableStore(Builder b) {
    this.dir = b.dir;
    this.sync = b.sync == null ? SyncPolicy.WAL : b.sync;
    this.hook = b.hook == null ? CommitHook.NONE : b.hook;
    this.readHook = b.readHook == null ? ReadHook.NONE : b.readHook;
    this.readOnly = b.readOnly;
    Duration openTimeout = b.openTimeout == null ? Duration.ZERO : b.openTimeout;
    Path dbDir = dir.resolve(DB_DIR);
    prepareDirectory();
    long deadline = System.nanoTime() + openTimeout.toNanos();
    this.dirLock = readOnly ? DirectoryLock.shared(dir) : lockDirectory(openTimeout, deadline);
    boolean ok = false;
    LeaseFile lf = null;
    Statistics stats = null;
    DBOptions dbo = null;
    ColumnFamilyOptions cfo = null;
    WriteOptions wo = null;
    WriteOptions mwo = null;
    ReadOptions ro = null;
    FlushListener listener = null;
    Opened opened = null;
    try {
      lf = readOnly ? null : LeaseFile.open(dir);
      stats = new Statistics();
      stats.setStatsLevel(StatsLevel.EXCEPT_DETAILED_TIMERS);
      listener = readOnly ? null : new FlushListener();
      dbo = new DBOptions()
          .setCreateIfMissing(false)
          .setCreateMissingColumnFamilies(false)
          .setAtomicFlush(true)
          .setWalRecoveryMode(WALRecoveryMode.PointInTimeRecovery)
          .setMaxTotalWalSize(64L << 20)
          .setKeepLogFileNum(3)
          .setMaxLogFileSize(1L << 20)
          .setInfoLogLevel(InfoLogLevel.WARN_LEVEL)
          .setStatistics(stats);
      if (listener != null) {
        dbo.setListeners(List.of(listener));
      }
      cfo = new ColumnFamilyOptions().setWriteBufferSize(8L << 20);
      wo = new WriteOptions().setSync(sync == SyncPolicy.FSYNC);
      mwo = new WriteOptions().setSync(true);
      ro = new ReadOptions().setVerifyChecksums(true);
      opened = readOnly ? openReadOnly(dbDir, dbo, cfo, ro)
          : openForWriting(dbDir, dbo, cfo, ro, mwo, lf, deadline, openTimeout);
      ok = true;
    } finally {
      if (!ok) {
        closeQuietly(ro, mwo, wo, cfo, dbo, listener, stats);
        if (lf != null) {
          lf.close();
        }
        dirLock.close();
      }
    }
    this.leases = lf;
    this.statistics = stats;
    this.dbOptions = dbo;
    this.cfOptions = cfo;
    this.writeOptions = wo;
    this.metaWriteOptions = mwo;
    this.readOptions = ro;
    this.flushListener = listener;
    this.db = opened.db();
    this.databaseId = opened.databaseId();
    this.legacyCells = opened.legacyCells();
    this.dbDirKey = fileKey(dbDir);
    this.defaultCf = handles.get(0);
    boolean created = opened.created();
    try {
      loadSchemas();
      if (!readOnly) {
        leases.locked(() -> {
          reconcileLeases(created);
          return null;
        });
        advanceWatermark(latestSequence());
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
   * @return the new lease, one generation above the previous holder's
   * @throws StoreException if {@code dir} is not an initialised state directory, or the lease cannot be written
   *     (not retryable if no retry can fix it)
   * @throws NullPointerException if an argument is null
   */
  public static Lease takeOverLease(Path dir, String name, String owner) {
    Objects.requireNonNull(dir, "dir");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(owner, "owner");
    Path d = dir.toAbsolutePath().normalize();
    if (!Files.isDirectory(d)) {
      throw new StoreException("cannot take over lease '" + name + "': " + d + " is not a state directory", null,
          false, ErrorContext.NONE);
    }
    Optional<FormatFile.Format> format = FormatFile.read(d);
    if (format.isEmpty()) {
      throw new StoreException("cannot take over lease '" + name + "': " + d + " is not an initialised state "
          + "directory (no " + FormatFile.NAME + "); open the store first", null, false, ErrorContext.NONE);
    }
    Optional<String> id = format.get().databaseId();
    try (LeaseFile file = LeaseFile.open(d)) {
      LeaseFile.Lease l = file.locked(() -> {
        LeaseFile.Contents c = file.read();
        Map<String, LeaseFile.Lease> all;
        long floor = 0;
        if (c.status() == LeaseFile.Status.OK && c.databaseId().equals(id)) {
          all = new TreeMap<>(c.leases());
        } else {
          Map<String, LeaseFile.Lease> rows = readLeaseRowsReadOnly(d);
          LOG.warn("{}: {}; rebuilding it from the database's copy of the leases, every lease one generation up",
              file.path(), c.status() == LeaseFile.Status.OK ? "it belongs to another database" : c.problem());
          all = fenced(rows, c);
          floor = rows.containsKey(name) ? rows.get(name).generation() : 0;
        }
        long next = Math.max(all.containsKey(name) ? all.get(name).generation() : 0, floor) + 1;
        LeaseFile.Lease taken = new LeaseFile.Lease(name, next, owner);
        all.put(name, taken);
        file.write(id, all);
        return taken;
      });
      LOG.info("took over lease '{}' in {}: generation {} for {}", name, d, l.generation(), owner);
      return new Lease(name, owner, l.generation());
    }
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
   * @throws NullPointerException if {@code dir} is null
   */
  public static void destroy(Path dir) {
    Objects.requireNonNull(dir, "dir");
    Path d = dir.toAbsolutePath().normalize();
    if (!Files.exists(d)) {
      return;
    }
    if (!Files.isDirectory(d)) {
      throw new StoreException("cannot delete the state of " + d + ": it is not a directory", null, false,
          ErrorContext.NONE);
    }
    if (!Files.exists(d.resolve(FormatFile.NAME)) && !Files.exists(d.resolve(DB_DIR))
        && !Files.exists(d.resolve(Watermark.NAME))) {
      return; // no state here
    }
    String[] busy = new String[1];
    Optional<DirectoryLock> lock = DirectoryLock.tryExclusive(d, busy);
    if (lock.isEmpty()) {
      throw new StoreException("refusing to delete the state of RocksDB state directory " + d + ": " + busy[0]
          + ". Stop the process using it (or close its store) first; nothing was deleted.", null, false,
          ErrorContext.NONE);
    }
    try (DirectoryLock held = lock.get(); LeaseFile file = LeaseFile.open(d)) {
      file.locked(() -> {
        try {
          Files.deleteIfExists(d.resolve(FormatFile.NAME));
          Files.deleteIfExists(d.resolve(Watermark.NAME));
          deleteTree(d.resolve(DB_DIR));
          Files.deleteIfExists(d.resolve(FormatFile.NAME + ".tmp"));
          Files.deleteIfExists(d.resolve(Watermark.NAME + ".tmp"));
        } catch (IOException e) {
          throw Failures.io("cannot delete the state of RocksDB state directory " + d, e);
        }
        return null;
      });
    }
    LOG.info("deleted the state of RocksDB state directory {}", d);
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** @return the state directory */
  public Path directory() {
    return dir;
  }

  /** @return the sync policy of commits */
  public SyncPolicy syncPolicy() {
    return sync;
  }

  /** @return whether this store was opened read-only ({@link Builder#readOnly}) */
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
    life.readLock().lock();
    try {
      checkOpen();
      synchronized (tablesLock) {
        Handle existing = tables.get(schema.path());
        if (existing != null) {
          if (!existing.schema.equals(schema)) {
            throw new SchemaMismatchException(schema.path() + " in RocksDB state directory " + dir,
                schema + " (fingerprint " + SchemaText.fingerprint(schema) + ")",
                existing.schema + " (fingerprint " + SchemaText.fingerprint(existing.schema) + ")");
          }
          return existing;
        }
        if (readOnly) {
          throw new StoreException("table " + schema.path() + " does not exist in RocksDB state directory " + dir
              + ", opened read-only: it cannot be created", null, false, ErrorContext.NONE.withTable(schema.path()));
        }
        ColumnFamilyHandle cf = unregistered.remove(schema.path());
        if (cf == null) {
          cf = db.createColumnFamily(new ColumnFamilyDescriptor(cfName(schema.path()), cfOptions));
          handles.add(cf);
        }
        db.put(defaultCf, metaWriteOptions, schemaKey(schema.path()),
            SchemaText.write(schema).getBytes(StandardCharsets.UTF_8));
        Handle h = new Handle(this, schema, cf);
        tables.put(schema.path(), h);
        return h;
      }
    } catch (RocksDBException e) {
      throw Failures.rocks("cannot create table " + schema.path() + " in RocksDB state directory " + dir, e);
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
      synchronized (tablesLock) {
        return Optional.ofNullable(tables.get(path));
      }
    } finally {
      life.readLock().unlock();
    }
  }

  /** @return the paths of every table of the database, sorted */
  public List<String> tablePaths() {
    life.readLock().lock();
    try {
      checkOpen();
      synchronized (tablesLock) {
        return List.copyOf(new java.util.TreeSet<>(tables.keySet()));
      }
    } finally {
      life.readLock().unlock();
    }
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
    checkOpen();
    checkWritable("acquire lease '" + name + "'");
    life.readLock().lock();
    try {
      checkOpen();
      checkNotReplaced("acquire lease '" + name + "'");
      LeaseFile.Lease l = leases.locked(() -> {
        LeaseFile.Contents c = leases.read();
        Map<String, LeaseFile.Lease> rows = leaseRows();
        Map<String, LeaseFile.Lease> all;
        if (c.belongsTo(databaseId.orElseThrow())) {
          all = new TreeMap<>(c.leases());
        } else if (c.status() == LeaseFile.Status.MISSING && rows.isEmpty()) {
          all = new TreeMap<>(); // the first lease of a new directory
        } else {
          LOG.warn("{}: {}; rebuilding it from the database's copy, every lease one generation up", leases.path(),
              c.status() == LeaseFile.Status.OK ? "it belongs to another database" : c.problem());
          all = fenced(rows, c);
          for (LeaseFile.Lease rebuilt : all.values()) {
            putLeaseRow(rebuilt);
          }
        }
        long fromFile = all.containsKey(name) ? all.get(name).generation() : 0;
        long fromDb = rows.containsKey(name) ? rows.get(name).generation() : 0;
        long fromMemory;
        synchronized (highestSeen) {
          fromMemory = highestSeen.getOrDefault(name, 0L);
        }
        LeaseFile.Lease next = new LeaseFile.Lease(name, Math.max(Math.max(fromFile, fromDb), fromMemory) + 1,
            owner);
        all.put(name, next);
        leases.write(databaseId, all);
        putLeaseRow(next);
        seen(all);
        return next;
      });
      return new Lease(name, owner, l.generation());
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
   * <p>Fails fast with {@link LeaseLostException} if the lease file already shows a newer generation, another owner,
   * or another database.
   *
   * @throws IllegalArgumentException if the lease's generation was never issued in this state directory
   * @throws StoreException if the store is read-only
   */
  @Override
  public StoreTransaction begin(Lease lease) {
    Objects.requireNonNull(lease, "lease");
    checkOpen();
    checkWritable("begin a transaction under " + lease);
    LeaseFile.Contents c = leases.read();
    if (c.belongsTo(databaseId.orElseThrow())) {
      LeaseFile.Lease current = c.get(lease.name());
      long seen;
      synchronized (highestSeen) {
        seen = highestSeen.getOrDefault(lease.name(), 0L);
      }
      if (lease.generation() > current.generation() && lease.generation() > seen) {
        throw new IllegalArgumentException(lease + " was not issued in RocksDB state directory " + dir
            + " (its current generation of lease '" + lease.name() + "' is " + current.generation() + ")");
      }
    }
    checkLease(c, lease, "Cannot begin a transaction");
    return start(lease);
  }

  private StoreTransaction start(Lease lease) {
    life.readLock().lock();
    try {
      checkOpen();
      long begin;
      synchronized (conflicts) {
        begin = commitSeq;
        active.opened(begin);
      }
      return new Tx(begin, lease);
    } finally {
      life.readLock().unlock();
    }
  }

  /**
   * Reads every stored row of {@code table} in key order, reporting each row that cannot be read instead of
   * stopping at the first: for inspection tools (the examples' {@code state dump}). Each row reaches {@code sink} as
   * an {@link InspectedRow}: the decoded row, or the {@link StateCorruptedException} naming its key. If RocksDB
   * cannot read on (a damaged block), a last {@code InspectedRow} names the key after which reading stopped.
   * Streams: rows are not collected.
   *
   * @throws StoreException if the store cannot be read at all (an I/O error)
   * @throws IllegalArgumentException if {@code table} is not a table of this store
   */
  public void inspect(Table table, Consumer<InspectedRow> sink) {
    Handle h = handleOf(table);
    Objects.requireNonNull(sink, "sink");
    String path = h.schema.path();
    readHook.beforeRead(path);
    life.readLock().lock();
    try (RocksIterator it = db.newIterator(h.cf, readOptions)) {
      checkOpen();
      String last = null;
      for (it.seek(FIRST_ROW_KEY); it.isValid(); it.next()) {
        byte[] keyBytes = it.key();
        TableKey key;
        try {
          key = h.decodeKey(keyBytes);
        } catch (StateCorruptedException e) {
          last = "0x" + HexFormat.of().formatHex(keyBytes);
          sink.accept(new InspectedRow(last, Optional.empty(), Optional.of(e)));
          continue;
        }
        last = key.describeParts();
        try {
          sink.accept(new InspectedRow(last, Optional.of(h.decodeRow(key, keyBytes,
              readHook.storedBytes(path, it.value()))), Optional.empty()));
        } catch (StateCorruptedException e) {
          sink.accept(new InspectedRow(last, Optional.empty(), Optional.of(e)));
        }
      }
      try {
        it.status();
      } catch (RocksDBException e) {
        if (!Failures.isCorruption(e)) {
          throw Failures.rocks("RocksDB scan of table " + path + " in state directory " + dir + " failed", e);
        }
        String where = last == null ? "(before the first row)" : "(after " + last + ")";
        sink.accept(new InspectedRow(where, Optional.empty(), Optional.of(h.unreadable(where, e))));
      }
    } finally {
      life.readLock().unlock();
    }
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
    RuntimeException failure = null;
    try {
      if (closed) {
        return;
      }
      closed = true;
      if (db != null && !readOnly && directoryReplaced()) {
        // The state directory was deleted and re-created under this open store: RocksDB's close would write a
        // MANIFEST and CURRENT into the directory that replaced it (by path). Leave the database open, its
        // background work paused; the process releases it when it exits.
        try {
          db.pauseBackgroundWork();
        } catch (RocksDBException e) {
          LOG.debug("pausing the background work of {} failed", dir, e);
        }
        LOG.error("RocksDB state directory {} was deleted or replaced while this store had it open: the database "
            + "is not closed (closing would write into the new directory); stop this process", dir);
        return;
      }
      if (db != null) {
        if (!readOnly) {
          try {
            db.syncWal();
            advanceWatermark(db.getLatestSequenceNumber());
          } catch (RocksDBException e) {
            failure = Failures.rocks("closing RocksDB state directory " + dir + " failed", e);
          } catch (RuntimeException e) {
            failure = e;
          }
        }
        synchronized (tablesLock) {
          for (ColumnFamilyHandle h : handles) {
            h.close();
          }
          handles.clear();
          unregistered.clear();
          tables.clear();
        }
        try {
          db.closeE();
        } catch (RocksDBException e) {
          failure = failure == null ? Failures.rocks("closing RocksDB state directory " + dir + " failed", e)
              : failure;
        }
      }
      closeQuietly(readOptions, metaWriteOptions, writeOptions, cfOptions, dbOptions, flushListener, statistics);
    } finally {
      life.writeLock().unlock();
      if (leases != null) {
        leases.close();
      }
      dirLock.close();
    }
    if (failure != null) {
      throw failure;
    }
    LOG.info("closed {}", describe());
  }

  /** WAL syncs since open (RocksDB ticker {@code WAL_FILE_SYNCED}); for tests of the sync policy. */
  long walSyncCount() {
    life.readLock().lock();
    try {
      checkOpen();
      return statistics.getTickerCount(TickerType.WAL_FILE_SYNCED);
    } finally {
      life.readLock().unlock();
    }
  }

  /** Flushes every table to SST files (for tests that damage SST files). */
  void flushForTest() {
    life.readLock().lock();
    try (FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
      checkOpen();
      synchronized (tablesLock) {
        db.flush(fo, new ArrayList<>(handles));
      }
    } catch (RocksDBException e) {
      throw Failures.rocks("flush of " + dir + " failed", e);
    } finally {
      life.readLock().unlock();
    }
  }

  // ------------------------------------------------------------------------------------------------ opening

  private void prepareDirectory() {
    if (Files.exists(dir) && !Files.isDirectory(dir)) {
      throw new StoreException("RocksDB state directory " + dir + " is not a directory (a file of that name "
          + "exists); pass a directory", null, false, ErrorContext.NONE);
    }
    if (readOnly) {
      if (!Files.isDirectory(dir)) {
        throw new StoreException("RocksDB state directory " + dir + " does not exist (opening it read-only)", null,
            false, ErrorContext.NONE);
      }
      return;
    }
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw Failures.io("cannot create the RocksDB state directory " + dir, e);
    }
  }

  private DirectoryLock lockDirectory(Duration timeout, long deadline) {
    long backoffMillis = 10;
    while (true) {
      String[] busy = new String[1];
      Optional<DirectoryLock> lock = DirectoryLock.tryExclusive(dir, busy);
      if (lock.isPresent()) {
        return lock.get();
      }
      if (System.nanoTime() >= deadline) {
        throw busy(timeout, busy[0], null);
      }
      backoffMillis = sleep(backoffMillis);
    }
  }

  private StoreException busy(Duration timeout, String why, Throwable cause) {
    return new StoreException("RocksDB state directory " + dir + " is open in another process (or another store "
        + "of this one" + (why == null ? "" : "; here " + why) + ") and was not released within " + timeout
        + "; RocksDB allows one process per directory. Leases: " + leaseSummary() + ". To replace a hung worker, "
        + "take its lease over with RocksDbTableStore.takeOverLease (it then fails its next commit and lets go) "
        + "and open with a longer openTimeout.", cause);
  }

  private long sleep(long backoffMillis) {
    try {
      Thread.sleep(backoffMillis);
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      throw new StoreException("interrupted while waiting for RocksDB state directory " + dir, ie);
    }
    return Math.min(backoffMillis * 2, 200);
  }

  private Opened openForWriting(Path dbDir, DBOptions dbo, ColumnFamilyOptions cfo, ReadOptions ro,
      WriteOptions mwo, LeaseFile lf, long deadline, Duration timeout) {
    long backoffMillis = 10;
    while (true) {
      try {
        return lf.locked(() -> openOrCreate(dbDir, dbo, cfo, ro, mwo));
      } catch (LockedByAnother e) {
        if (System.nanoTime() >= deadline) {
          throw busy(timeout, null, e.getCause());
        }
        backoffMillis = sleep(backoffMillis);
      }
    }
  }

  /** Runs under the lease lock and the directory lock: no other store opens, creates or destroys it meanwhile. */
  private Opened openOrCreate(Path dbDir, DBOptions dbo, ColumnFamilyOptions cfo, ReadOptions ro,
      WriteOptions mwo) {
    Optional<FormatFile.Format> format = FormatFile.read(dir);
    boolean hasDb = Files.exists(dbDir.resolve("CURRENT"));
    if (format.isEmpty()) {
      if (!hasDb) {
        return create(dbDir, dbo, cfo, mwo);
      }
      // A database without format file: our own creation, interrupted before the format was written, or a foreign
      // database. Only an empty database with our id (or nothing at all) is ours.
      RocksDB rdb = open(dbDir, dbo, cfo, false);
      boolean ok = false;
      try {
        Optional<String> id = readDatabaseId(rdb, ro);
        if (handles.size() > 1 || hasKeysOtherThan(rdb, ro, DATABASE_ID_KEY)) { // e.g. INITIALISED_KEY
          throw new StoreException("RocksDB state directory " + dir + " holds a database but no " + FormatFile.NAME
              + ": it was not written by epochal-store-rocksdb, or the file was removed. Expected " + FormatFile.NAME
              + " with " + FormatFile.EXPECTED + " and a database.id. Nothing was changed; restore the file from a "
              + "backup of the directory.", null, false, ErrorContext.NONE);
        }
        String dbId = id.isPresent() ? id.get() : newDatabaseId(rdb, mwo);
        finishCreation(rdb, dbId, false, mwo);
        ok = true;
        return new Opened(rdb, Optional.of(dbId), false, true);
      } finally {
        if (!ok) {
          closeDb(rdb);
        }
      }
    }
    FormatFile.Format f = format.get();
    if (!hasDb) {
      throw lost("its database is missing (no " + dbDir.resolve("CURRENT") + "): the database's metadata was deleted "
          + "or lost", null);
    }
    RocksDB rdb = open(dbDir, dbo, cfo, true);
    boolean ok = false;
    try {
      Optional<String> id = readDatabaseId(rdb, ro);
      String dbId;
      boolean legacy = f.legacyCells();
      if (f.version() == FormatFile.VERSION) {
        dbId = checkDatabaseId(f, id);
        checkWatermark(dbId, latestSequence(rdb));
        markInitialised(rdb, mwo); // a no-op unless the creation stopped right after writing the format file
      } else {
        // format 1: upgrade (a database id, a watermark, format 2 reading the old cells)
        dbId = id.isPresent() ? id.get() : newDatabaseId(rdb, mwo);
        finishCreation(rdb, dbId, true, mwo);
        LOG.info("upgraded RocksDB state directory {} from format {} to {}: rows written from now on are "
            + "checksummed, older rows are read as before", dir, FormatFile.LEGACY_VERSION, FormatFile.VERSION);
        legacy = true;
      }
      ok = true;
      return new Opened(rdb, Optional.of(dbId), legacy, false);
    } finally {
      if (!ok) {
        closeDb(rdb);
      }
    }
  }

  private Opened create(Path dbDir, DBOptions dbo, ColumnFamilyOptions cfo, WriteOptions mwo) {
    try {
      Files.createDirectories(dbDir);
    } catch (IOException e) {
      throw Failures.io("cannot create " + dbDir, e);
    }
    RocksDB rdb;
    dbo.setCreateIfMissing(true);
    try {
      rdb = open(dbDir, dbo, cfo, false);
    } finally {
      dbo.setCreateIfMissing(false);
    }
    boolean ok = false;
    try {
      String id = newDatabaseId(rdb, mwo);
      finishCreation(rdb, id, false, mwo);
      ok = true;
      LOG.info("created RocksDB state directory {} (database {})", dir, id);
      return new Opened(rdb, Optional.of(id), false, true);
    } finally {
      if (!ok) {
        closeDb(rdb);
      }
    }
  }

  private String newDatabaseId(RocksDB rdb, WriteOptions mwo) {
    String id = UUID.randomUUID().toString();
    try (FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
      rdb.put(handles.get(0), mwo, DATABASE_ID_KEY, id.getBytes(StandardCharsets.UTF_8));
      rdb.flush(fo, List.of(handles.get(0)));
    } catch (RocksDBException e) {
      throw Failures.rocks("cannot initialise the database of RocksDB state directory " + dir, e);
    }
    return id;
  }

  /**
   * The last steps of creating (or upgrading) a directory: the watermark, the format file, then the mark in the
   * database that the format file exists. A crash before the format file leaves a database holding only its id,
   * which the next open completes; after it, the directory is initialised.
   */
  private void finishCreation(RocksDB rdb, String id, boolean legacyCells, WriteOptions mwo) {
    Watermark.write(dir, new Watermark.Mark(id, latestSequence(rdb)));
    FormatFile.write(dir, id, legacyCells);
    markInitialised(rdb, mwo);
  }

  private void markInitialised(RocksDB rdb, WriteOptions mwo) {
    try {
      if (rdb.get(handles.get(0), INITIALISED_KEY) == null) {
        rdb.put(handles.get(0), mwo, INITIALISED_KEY, new byte[] {1});
      }
    } catch (RocksDBException e) {
      throw Failures.rocks("cannot initialise the database of RocksDB state directory " + dir, e);
    }
  }

  private String checkDatabaseId(FormatFile.Format f, Optional<String> id) {
    String expected = f.databaseId().orElseThrow();
    if (id.isEmpty()) {
      throw lost("its database lost its metadata rows (the database id " + expected + " is not in it): files of "
          + "the database are missing or damaged", null);
    }
    if (!id.get().equals(expected)) {
      throw lost("it holds database " + id.get() + ", but " + FormatFile.NAME + " records database " + expected
          + ": the database was replaced or re-created", null);
    }
    return expected;
  }

  private void checkWatermark(String id, long latest) {
    Optional<Watermark.Mark> mark;
    try {
      mark = Watermark.read(dir);
    } catch (IllegalArgumentException e) {
      throw lost(Watermark.NAME + " is damaged (" + e.getMessage() + ")", e);
    }
    if (mark.isEmpty()) {
      throw lost(Watermark.NAME + " is missing: how far the database is known durable cannot be checked", null);
    }
    if (!id.equals(mark.get().databaseId())) {
      throw lost(Watermark.NAME + " belongs to database " + mark.get().databaseId() + ", not to this one (" + id
          + "): the database was replaced or re-created", null);
    }
    if (latest < mark.get().sequence()) {
      throw lost("its database lost committed data: it recovered to RocksDB sequence number " + latest + ", but it "
          + "had made sequence number " + mark.get().sequence() + " durable (" + Watermark.NAME + "); its MANIFEST, "
          + "CURRENT, WAL or SST files are missing, truncated or damaged", null);
    }
    synchronized (watermarkLock) {
      watermark = mark.get().sequence();
    }
  }

  private StoreException lost(String what, Throwable cause) {
    return new StoreException("RocksDB state directory " + dir + " is initialised (" + FormatFile.NAME + ") but "
        + what + ". It is refused rather than read as an older or empty state; nothing was opened for writing or "
        + "changed. Restore the directory from a backup, or, to start over and lose its state, delete it with "
        + "RocksDbTableStore.destroy (CLI: --fresh true).", cause, false, ErrorContext.NONE);
  }

  private Opened openReadOnly(Path dbDir, DBOptions dbo, ColumnFamilyOptions cfo, ReadOptions ro) {
    Optional<FormatFile.Format> format = FormatFile.read(dir);
    if (format.isEmpty()) {
      throw new StoreException(dir + " is not an initialised RocksDB state directory (no " + FormatFile.NAME + ")",
          null, false, ErrorContext.NONE);
    }
    FormatFile.Format f = format.get();
    if (!Files.exists(dbDir.resolve("CURRENT"))) {
      throw lost("its database is missing (no " + dbDir.resolve("CURRENT") + ")", null);
    }
    RocksDB rdb;
    List<ColumnFamilyHandle> opened = new ArrayList<>();
    List<ColumnFamilyDescriptor> descriptors;
    try {
      descriptors = descriptors(dbDir, cfo);
      rdb = RocksDB.openReadOnly(dbo, dbDir.toString(), descriptors, opened, false);
    } catch (RocksDBException e) {
      opened.forEach(ColumnFamilyHandle::close);
      StoreException s = Failures.rocks("cannot open RocksDB state directory " + dir + " read-only", e);
      throw s.retryable() ? lost("its database cannot be opened (" + e.getMessage() + ")", e) : s;
    }
    register(descriptors, opened);
    boolean ok = false;
    try {
      Optional<String> id = readDatabaseId(rdb, ro);
      if (f.version() == FormatFile.VERSION) {
        checkDatabaseId(f, id);
        checkWatermark(id.get(), latestSequence(rdb));
      }
      ok = true;
      return new Opened(rdb, f.databaseId(), f.legacyCells(), false);
    } finally {
      if (!ok) {
        closeDb(rdb);
      }
    }
  }

  /** Signals that RocksDB's own lock of the directory is held by someone else (retried until the timeout). */
  private static final class LockedByAnother extends RuntimeException {
    private static final long serialVersionUID = 1L;

    LockedByAnother(RocksDBException cause) {
      super(cause);
    }
  }

  private static List<ColumnFamilyDescriptor> descriptors(Path dbDir, ColumnFamilyOptions cfo)
      throws RocksDBException {
    List<byte[]> names;
    try (Options listOptions = new Options()) {
      names = Files.exists(dbDir.resolve("CURRENT"))
          ? RocksDB.listColumnFamilies(listOptions, dbDir.toString()) : List.of();
    }
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfo));
    for (byte[] name : names) {
      if (!Arrays.equals(name, RocksDB.DEFAULT_COLUMN_FAMILY)) {
        descriptors.add(new ColumnFamilyDescriptor(name, cfo));
      }
    }
    return descriptors;
  }

  private RocksDB open(Path dbDir, DBOptions dbo, ColumnFamilyOptions cfo, boolean initialised) {
    List<ColumnFamilyHandle> opened = new ArrayList<>();
    try {
      List<ColumnFamilyDescriptor> descriptors = descriptors(dbDir, cfo);
      RocksDB rdb = RocksDB.open(dbo, dbDir.toString(), descriptors, opened);
      register(descriptors, opened);
      return rdb;
    } catch (RocksDBException e) {
      for (ColumnFamilyHandle h : opened) {
        h.close();
      }
      if (isLockedByAnother(e)) {
        throw new LockedByAnother(e);
      }
      StoreException s = Failures.rocks("cannot open RocksDB state directory " + dir, e);
      if (initialised && s.retryable()) {
        // an initialised directory whose database does not open (a missing MANIFEST, a CURRENT naming nothing):
        // no retry brings the files back
        throw lost("its database cannot be opened (" + e.getMessage() + ")", e);
      }
      throw s;
    }
  }

  private void register(List<ColumnFamilyDescriptor> descriptors, List<ColumnFamilyHandle> opened) {
    synchronized (tablesLock) {
      handles.addAll(opened); // the default column family first
      for (int i = 1; i < opened.size(); i++) {
        String cf = new String(descriptors.get(i).getName(), StandardCharsets.UTF_8);
        if (cf.startsWith(TABLE_CF_PREFIX)) {
          unregistered.put(cf.substring(TABLE_CF_PREFIX.length()), opened.get(i));
        }
      }
    }
  }

  private void closeDb(RocksDB rdb) {
    synchronized (tablesLock) {
      for (ColumnFamilyHandle h : handles) {
        h.close();
      }
      handles.clear();
      unregistered.clear();
      tables.clear();
    }
    try {
      rdb.closeE();
    } catch (RocksDBException e) {
      LOG.debug("closing {} after a failed open failed", dir, e);
    }
  }

  private static boolean isLockedByAnother(RocksDBException e) {
    String m = String.valueOf(e.getMessage());
    return m.contains("/LOCK") || m.contains("lock hold by current process") || m.contains("No locks available");
  }

  private Optional<String> readDatabaseId(RocksDB rdb, ReadOptions ro) {
    try {
      byte[] id = rdb.get(handles.get(0), ro, DATABASE_ID_KEY);
      return id == null ? Optional.empty() : Optional.of(new String(id, StandardCharsets.UTF_8));
    } catch (RocksDBException e) {
      throw Failures.rocks("cannot read the database id of RocksDB state directory " + dir, e);
    }
  }

  private boolean hasKeysOtherThan(RocksDB rdb, ReadOptions ro, byte[] key) {
    try (RocksIterator it = rdb.newIterator(handles.get(0), ro)) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        if (!Arrays.equals(it.key(), key)) {
          return true;
        }
      }
      it.status();
      return false;
    } catch (RocksDBException e) {
      throw Failures.rocks("cannot read RocksDB state directory " + dir, e);
    }
  }

  private long latestSequence() {
    return latestSequence(db);
  }

  private static long latestSequence(RocksDB rdb) {
    return rdb.getLatestSequenceNumber();
  }

  private static Object fileKey(Path p) {
    try {
      return Files.readAttributes(p, BasicFileAttributes.class).fileKey();
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * @return whether the database directory this store opened was deleted or replaced meanwhile (e.g. the state
   *     directory was deleted and re-created by hand while this store had it open)
   */
  private boolean directoryReplaced() {
    Path dbDir = dir.resolve(DB_DIR);
    try {
      Object now = Files.readAttributes(dbDir, BasicFileAttributes.class).fileKey();
      return dbDirKey != null && !dbDirKey.equals(now);
    } catch (NoSuchFileException e) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** @throws StoreException (not retryable) if the directory was deleted or replaced under this open store */
  private void checkNotReplaced(String what) {
    if (directoryReplaced()) {
      throw new StoreException("cannot " + what + ": RocksDB state directory " + dir + " was deleted or replaced "
          + "while this store had it open; nothing was written. Stop this process (another one owns the directory "
          + "now).", null, false, ErrorContext.NONE);
    }
  }

  /** Records {@code sequence} as durable in WATERMARK if it is above the last recorded one. */
  private void advanceWatermark(long sequence) {
    String id = databaseId.orElse(null);
    if (id == null || readOnly) {
      return;
    }
    synchronized (watermarkLock) {
      if (sequence > watermark) {
        Optional<String> recorded;
        try {
          recorded = FormatFile.read(dir).flatMap(FormatFile.Format::databaseId);
        } catch (RuntimeException e) {
          recorded = Optional.empty();
        }
        if (directoryReplaced() || !recorded.equals(Optional.of(id))) {
          LOG.warn("not moving the watermark of {}: the directory no longer holds this store's database {} (it was "
              + "deleted or replaced while open)", dir, id);
          return;
        }
        Watermark.write(dir, new Watermark.Mark(id, sequence));
        watermark = sequence;
      }
    }
  }

  /** Moves the watermark after each completed flush (the flushed data and the MANIFEST are synced by then). */
  private final class FlushListener extends AbstractEventListener {
    FlushListener() {
      super(EnabledEventCallback.ON_FLUSH_COMPLETED);
    }

    @Override
    public void onFlushCompleted(RocksDB rdb, FlushJobInfo info) {
      try {
        if (databaseId != null) { // null while the constructor still opens the database
          advanceWatermark(info.getLargestSeqno());
        }
      } catch (RuntimeException e) {
        LOG.warn("cannot move the watermark of {} after a flush (it stays behind, which is safe): {}", dir,
            e.getMessage());
      }
    }
  }

  private String leaseSummary() {
    try {
      LeaseFile.Contents c = LeaseFile.read(dir.resolve(LeaseFile.LEASE_FILE));
      return c.status() == LeaseFile.Status.OK ? c.leases().values().toString() : c.problem();
    } catch (RuntimeException e) {
      return "unreadable (" + e.getMessage() + ")";
    }
  }

  /**
   * Registers every table of the database, checking that none lost its schema row or its column family (either
   * means files of the database are missing or damaged).
   */
  private void loadSchemas() {
    life.readLock().lock();
    try (RocksIterator it = db.newIterator(defaultCf, readOptions)) {
      byte[] prefix = SCHEMA_KEY_PREFIX.getBytes(StandardCharsets.UTF_8);
      synchronized (tablesLock) {
        for (it.seek(prefix); it.isValid(); it.next()) {
          byte[] key = it.key();
          if (!startsWith(key, prefix)) {
            break;
          }
          String path = new String(key, prefix.length, key.length - prefix.length, StandardCharsets.UTF_8);
          TableSchema schema;
          try {
            schema = SchemaText.read(new String(it.value(), StandardCharsets.UTF_8));
          } catch (RuntimeException e) {
            throw new StoreException("RocksDB state directory " + dir + ": the stored schema of table " + path
                + " cannot be read (" + e.getMessage() + "); the directory was written by another format or is "
                + "damaged", e, false, ErrorContext.NONE.withTable(path));
          }
          ColumnFamilyHandle cf = unregistered.remove(path);
          if (cf == null) {
            throw lost("table " + path + " has a schema but no column family: its rows are lost (files of the "
                + "database are missing or damaged)", null);
          }
          tables.put(path, new Handle(this, schema, cf));
        }
        it.status();
        checkMarkers();
        for (Map.Entry<String, ColumnFamilyHandle> e : unregistered.entrySet()) {
          try (RocksIterator rows = db.newIterator(e.getValue(), readOptions)) {
            rows.seekToFirst();
            if (rows.isValid()) {
              throw lost("table " + e.getKey() + " holds rows but lost its schema row (files of the database are "
                  + "missing or damaged)", null);
            }
            rows.status();
          }
        }
      }
    } catch (RocksDBException e) {
      throw Failures.rocks("cannot read the table schemas of RocksDB state directory " + dir, e);
    } finally {
      life.readLock().unlock();
    }
  }

  /**
   * Every commit writes, in one batch with its rows, its number into each table it writes (the marker) and into the
   * default column family's copy; so after any crash both agree. A table whose marker differs from the copy lost
   * (or kept from elsewhere) rows that the database's metadata no longer or not yet references: files of the
   * database are missing, truncated or damaged (e.g. a truncated MANIFEST that dropped a table's SST files). Called
   * under tablesLock.
   */
  private void checkMarkers() throws RocksDBException {
    long highest = 0;
    for (Handle h : tables.values()) {
      String path = h.schema.path();
      byte[] copy = db.get(defaultCf, readOptions, writtenKey(path));
      byte[] marker;
      try {
        marker = db.get(h.cf, readOptions, MARKER_KEY);
      } catch (RocksDBException e) {
        if (Failures.isCorruption(e)) {
          throw h.unreadable("(the table's commit marker, in its first block)", e);
        }
        throw e;
      }
      long expected;
      long found;
      try {
        expected = copy == null ? 0 : bytesLong(copy);
        found = marker == null ? 0 : bytesLong(marker);
      } catch (IllegalArgumentException e) {
        throw lost("the commit marker of table " + path + " is damaged (" + e.getMessage() + ")", e);
      }
      if (expected != found) {
        throw lost("table " + path + " does not hold the rows of the commits that wrote it: the database records "
            + "commit #" + expected + " as the table's last write, the table holds "
            + (found == 0 ? "no commit" : "commit #" + found) + " (its rows were lost: files of the database are "
            + "missing, truncated or damaged)", null);
      }
      highest = Math.max(highest, expected);
    }
    synchronized (conflicts) {
      lastMarker = highest;
    }
  }

  // ------------------------------------------------------------------------------------------------ leases

  /**
   * At open, under the lease lock: makes the lease file and the database's copy agree, never lowering a
   * generation. A file of this database is the authority (a static takeover wrote only the file); a copy above the
   * file means the file was rolled back, so that lease moves up (fencing its holders). A missing, damaged or foreign
   * file is rebuilt from the copy with every lease one generation up.
   */
  private void reconcileLeases(boolean created) {
    String id = databaseId.orElseThrow();
    LeaseFile.Contents c = leases.read();
    Map<String, LeaseFile.Lease> rows = leaseRows();
    if (c.belongsTo(id)) {
      Map<String, LeaseFile.Lease> all = new TreeMap<>(c.leases());
      boolean fileChanged = false;
      for (LeaseFile.Lease row : rows.values()) {
        LeaseFile.Lease inFile = all.get(row.name());
        if (inFile == null || inFile.generation() < row.generation()) {
          LOG.warn("{}: lease '{}' is at generation {} but the database recorded {}: the file was rolled back; "
              + "moving the lease up", leases.path(), row.name(), inFile == null ? 0 : inFile.generation(),
              row.generation());
          all.put(row.name(), new LeaseFile.Lease(row.name(), row.generation() + 1, REBUILT_OWNER));
          fileChanged = true;
        }
      }
      if (fileChanged) {
        leases.write(databaseId, all);
      }
      seen(all);
      for (LeaseFile.Lease l : all.values()) {
        LeaseFile.Lease row = rows.get(l.name());
        if (row == null || !row.equals(l)) {
          putLeaseRow(l);
        }
      }
      return;
    }
    if (c.status() == LeaseFile.Status.MISSING && rows.isEmpty()) {
      return; // a new directory: the first acquireLease writes the file
    }
    boolean upgrade = c.status() == LeaseFile.Status.OK && c.databaseId().isEmpty() && rows.isEmpty() && legacyCells;
    Map<String, LeaseFile.Lease> all;
    if (upgrade) {
      all = new TreeMap<>(c.leases()); // a format-1 directory: its leases carry over unchanged
    } else {
      if (created) {
        LOG.info("{} belongs to an earlier database of this directory; every lease moves one generation up",
            leases.path());
      } else {
        LOG.warn("{}: {}; rebuilding it from the database's copy of the leases, every lease one generation up",
            leases.path(), c.status() == LeaseFile.Status.OK ? "it belongs to another database" : c.problem());
      }
      all = fenced(rows, c);
    }
    leases.write(databaseId, all);
    all.values().forEach(this::putLeaseRow);
    seen(all);
  }

  /** Every lease known to {@code rows} or a readable {@code file}, one generation above the highest. */
  private static Map<String, LeaseFile.Lease> fenced(Map<String, LeaseFile.Lease> rows, LeaseFile.Contents file) {
    Map<String, Long> highest = new TreeMap<>();
    rows.values().forEach(l -> highest.merge(l.name(), l.generation(), Math::max));
    if (file.status() == LeaseFile.Status.OK) {
      file.leases().values().forEach(l -> highest.merge(l.name(), l.generation(), Math::max));
    }
    Map<String, LeaseFile.Lease> out = new TreeMap<>();
    highest.forEach((name, g) -> out.put(name, new LeaseFile.Lease(name, g + 1, REBUILT_OWNER)));
    return out;
  }

  private Map<String, LeaseFile.Lease> leaseRows() {
    return leaseRows(db, defaultCf, readOptions);
  }

  private static Map<String, LeaseFile.Lease> leaseRows(RocksDB rdb, ColumnFamilyHandle cf, ReadOptions ro) {
    Map<String, LeaseFile.Lease> out = new TreeMap<>();
    byte[] prefix = LEASE_KEY_PREFIX.getBytes(StandardCharsets.UTF_8);
    try (RocksIterator it = rdb.newIterator(cf, ro)) {
      for (it.seek(prefix); it.isValid(); it.next()) {
        byte[] key = it.key();
        if (!startsWith(key, prefix)) {
          break;
        }
        String name = new String(key, prefix.length, key.length - prefix.length, StandardCharsets.UTF_8);
        out.put(name, LeaseFile.fromRow(name, it.value()));
      }
      it.status();
    } catch (RocksDBException e) {
      throw Failures.rocks("cannot read the leases kept in the database", e);
    } catch (IllegalArgumentException e) {
      throw new StoreException("a lease row of the database is damaged: " + e.getMessage(), e, false,
          ErrorContext.NONE);
    }
    return out;
  }

  /** The database's copy of the leases, read in RocksDB's read-only mode (while another process may write it). */
  private static Map<String, LeaseFile.Lease> readLeaseRowsReadOnly(Path dir) {
    Path dbDir = dir.resolve(DB_DIR);
    RocksDBException last = null;
    for (int attempt = 0; attempt < 3; attempt++) {
      List<ColumnFamilyHandle> hs = new ArrayList<>();
      try (DBOptions o = new DBOptions(); ReadOptions ro = new ReadOptions();
          RocksDB rdb = RocksDB.openReadOnly(o, dbDir.toString(),
              List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY)), hs, false)) {
        try {
          return leaseRows(rdb, hs.get(0), ro);
        } finally {
          hs.forEach(ColumnFamilyHandle::close);
        }
      } catch (RocksDBException e) {
        last = e; // the writer may have just deleted an obsolete file: read again
      }
    }
    throw Failures.rocks("cannot read the leases kept in the database of " + dir + " (read-only)", last);
  }

  private void putLeaseRow(LeaseFile.Lease l) {
    try {
      db.put(defaultCf, metaWriteOptions, (LEASE_KEY_PREFIX + l.name()).getBytes(StandardCharsets.UTF_8),
          LeaseFile.toRow(l));
    } catch (RocksDBException e) {
      throw Failures.rocks("cannot record lease '" + l.name() + "' in RocksDB state directory " + dir, e);
    }
  }

  /** Throws unless the lease file {@code c} shows exactly {@code lease} for this store's database. */
  private void checkLease(LeaseFile.Contents c, Lease lease, String what) {
    String id = databaseId.orElseThrow();
    if (!c.belongsTo(id)) {
      String why = c.status() == LeaseFile.Status.OK
          ? "the lease file " + leases.path() + " belongs to database " + c.databaseId().orElse("(none)")
              + ", not to the database this store opened (" + id + "): the state directory was re-created or "
              + "replaced"
          : c.problem();
      throw new LeaseLostException(what + ": " + lease + " is no longer valid in RocksDB state directory " + dir
          + ": " + why + "; this writer is fenced off and nothing it wrote was applied");
    }
    LeaseFile.Lease current = c.get(lease.name());
    long seen;
    synchronized (highestSeen) {
      seen = highestSeen.merge(lease.name(), current.generation(), Math::max);
    }
    if (current.generation() < seen) {
      throw new LeaseLostException(what + ": " + lease + " is no longer valid in RocksDB state directory " + dir
          + ": the lease file " + leases.path() + " shows generation " + current.generation() + ", but generation "
          + seen + " was issued: the file was rolled back (an old copy restored); this writer is fenced off and "
          + "nothing it wrote was applied");
    }
    if (current.generation() != lease.generation() || !current.owner().equals(lease.owner())) {
      throw leaseLost(lease, current, what);
    }
  }

  private void seen(Map<String, LeaseFile.Lease> all) {
    synchronized (highestSeen) {
      all.values().forEach(l -> highestSeen.merge(l.name(), l.generation(), Math::max));
    }
  }

  // ------------------------------------------------------------------------------------------------ helpers

  private static byte[] cfName(String path) {
    return (TABLE_CF_PREFIX + path).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] writtenKey(String path) {
    return (WRITTEN_KEY_PREFIX + path).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] longBytes(long v) {
    return java.nio.ByteBuffer.allocate(8).putLong(v).array();
  }

  private static long bytesLong(byte[] b) {
    if (b.length != 8) {
      throw new IllegalArgumentException(b.length + " bytes, not 8");
    }
    return java.nio.ByteBuffer.wrap(b).getLong();
  }

  private static byte[] schemaKey(String path) {
    return (SCHEMA_KEY_PREFIX + path).getBytes(StandardCharsets.UTF_8);
  }

  private static boolean startsWith(byte[] b, byte[] prefix) {
    return b.length >= prefix.length && Arrays.equals(b, 0, prefix.length, prefix, 0, prefix.length);
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException(describe() + " is closed");
    }
  }

  private void checkWritable(String what) {
    if (readOnly) {
      throw new StoreException("cannot " + what + ": " + describe() + " was opened read-only", null, false,
          ErrorContext.NONE);
    }
  }

  private Handle handleOf(Table table) {
    Objects.requireNonNull(table, "table");
    if (!(table instanceof Handle h) || h.owner != this) {
      throw new IllegalArgumentException(table + " does not belong to " + describe());
    }
    return h;
  }

  private LeaseLostException leaseLost(Lease lease, LeaseFile.Lease current, String what) {
    return new LeaseLostException(what + ": " + lease + " was taken over by generation " + current.generation()
        + " held by " + current.owner() + " (RocksDB state directory " + dir + "); this writer is fenced off and "
        + "nothing it wrote was applied");
  }

  private static void closeQuietly(AutoCloseable... resources) {
    for (AutoCloseable r : resources) {
      if (r != null) {
        try {
          r.close();
        } catch (Exception e) {
          LOG.debug("closing {} failed", r, e);
        }
      }
    }
  }

  private void finished(long begin) {
    synchronized (conflicts) {
      active.finished(begin);
    }
  }

  /**
   * Drops conflict entries that no open or future transaction can conflict with: those written at or before the
   * beginning of the oldest open transaction. Runs every {@value #PRUNE_EVERY} commits, or when the map doubled since
   * the last pruning (so a long-open transaction cannot make every commit scan the map). Called under
   * {@code conflicts}.
   */
  private void maybePrune() {
    if (++commitsSincePrune < PRUNE_EVERY && lastWrite.size() < pruneAtSize) {
      return;
    }
    commitsSincePrune = 0;
    long horizon = active.horizon(commitSeq);
    lastWrite.values().removeIf(seq -> seq <= horizon);
    pruneAtSize = Math.max(4 * PRUNE_EVERY, 2 * lastWrite.size());
  }

  /** An open table: its schema and column family. */
  private static final class Handle implements Table {
    final RocksDbTableStore owner;
    final TableSchema schema;
    final ColumnFamilyHandle cf;
    final List<KeyEncoding.Kind> keyKinds;
    final List<KeyEncoding.Kind> valueKinds;
    final byte[] pathBytes;
    /** Index of the value column holding the row's txid (an int64 named txid or *_txid), or -1. */
    final int txidColumn;

    Handle(RocksDbTableStore owner, TableSchema schema, ColumnFamilyHandle cf) {
      this.owner = owner;
      this.schema = schema;
      this.cf = cf;
      this.keyKinds = SchemaText.kinds(schema.keyColumns());
      this.valueKinds = SchemaText.kinds(schema.valueColumns());
      this.pathBytes = schema.path().getBytes(StandardCharsets.UTF_8);
      int t = -1;
      List<Column> values = schema.valueColumns();
      for (int i = 0; i < values.size() && t < 0; i++) {
        Column c = values.get(i);
        if (c.type() == ColumnType.INT64 && (c.name().equals("txid") || c.name().endsWith("_txid"))) {
          t = i;
        }
      }
      this.txidColumn = t;
    }

    @Override
    public TableSchema schema() {
      return schema;
    }

    byte[] encodeKey(TableKey key) {
      Object[] values = new Object[key.size() + 1];
      values[0] = key.hash();
      for (int i = 0; i < key.size(); i++) {
        values[i + 1] = key.get(i);
      }
      return KeyEncoding.encode(keyKinds, values);
    }

    byte[] encodeValue(byte[] keyBytes, List<Object> values) {
      return ValueEncoding.encode(valueKinds, values, pathBytes, keyBytes);
    }

    Row decodeRow(TableKey key, byte[] keyBytes, byte[] value) {
      try {
        return Row.of(key, ValueEncoding.decode(valueKinds, value, pathBytes, keyBytes, owner.legacyCells));
      } catch (IllegalArgumentException | NullPointerException e) {
        throw new StateCorruptedException(schema.path(), key.describeParts(), claimedTxid(value), e);
      }
    }

    /** The txid the (damaged) cell claims, if it decodes at all: for the error message. */
    private OptionalLong claimedTxid(byte[] value) {
      if (txidColumn < 0) {
        return OptionalLong.empty();
      }
      return ValueEncoding.decodeUnverified(valueKinds, value)
          .filter(v -> v[txidColumn] instanceof Long)
          .map(v -> OptionalLong.of((Long) v[txidColumn]))
          .orElse(OptionalLong.empty());
    }

    /** The error for a row RocksDB could not read (a damaged block): named by its key, no txid readable. */
    StateCorruptedException unreadable(String key, RocksDBException e) {
      return new StateCorruptedException(schema.path(), key, OptionalLong.empty(),
          new IllegalStateException("RocksDB cannot read it from state directory " + owner.dir + ": "
              + e.getMessage(), e));
    }

    TableKey decodeKey(byte[] bytes) {
      try {
        Object[] values = KeyEncoding.decode(keyKinds, bytes);
        TableKey key = TableKey.of(schema, Arrays.copyOfRange(values, 1, values.length));
        if (key.hash() != (Long) values[0]) {
          throw new IllegalArgumentException("stored hash " + Long.toUnsignedString((Long) values[0])
              + " is not farm_hash of the key, " + Long.toUnsignedString(key.hash()));
        }
        return key;
      } catch (RuntimeException e) {
        throw new StateCorruptedException(schema.path(), "0x" + HexFormat.of().formatHex(bytes),
            OptionalLong.empty(), e);
      }
    }

    @Override
    public String toString() {
      return "Table[" + schema.path() + "]";
    }
  }

  /** A staged write: an upsert (value non-null) or a delete. */
  private record Write(TableKey key, byte[] value) {
  }

  private final class Tx extends StagedTransaction<Handle, ByteKey, Write> {
    private final long begin;

    Tx(long begin, Lease lease) {
      super(lease);
      this.begin = begin;
    }

    @Override
    public List<Optional<Row>> lookup(Table table, List<TableKey> keys) {
      Objects.requireNonNull(keys, "keys");
      Handle h = handleOf(table);
      checkNotOver();
      if (keys.isEmpty()) {
        return List.of();
      }
      List<byte[]> encoded = new ArrayList<>(keys.size());
      for (TableKey key : keys) {
        checkKey(h.schema, key);
        encoded.add(h.encodeKey(key));
      }
      String path = h.schema.path();
      readHook.beforeRead(path);
      List<byte[]> values;
      life.readLock().lock();
      try {
        checkOpen();
        try {
          values = new ArrayList<>(db.multiGetAsList(readOptions, Collections.nCopies(encoded.size(), h.cf),
              encoded));
        } catch (RocksDBException e) {
          throw lookupFailed(h, keys, 0, e);
        }
        // MultiGet reports an unreadable key as null (facebook/rocksdb#12741): Get tells missing from unreadable.
        for (int i = 0; i < values.size(); i++) {
          if (values.get(i) == null) {
            try {
              values.set(i, db.get(h.cf, readOptions, encoded.get(i)));
            } catch (RocksDBException e) {
              throw lookupFailed(h, keys, i, e);
            }
          }
        }
      } finally {
        life.readLock().unlock();
      }
      List<Optional<Row>> out = new ArrayList<>(keys.size());
      for (int i = 0; i < keys.size(); i++) {
        byte[] v = values.get(i);
        out.add(v == null ? Optional.empty()
            : Optional.of(h.decodeRow(keys.get(i), encoded.get(i), readHook.storedBytes(path, v))));
      }
      return Collections.unmodifiableList(out);
    }

    private RuntimeException lookupFailed(Handle h, List<TableKey> keys, int i, RocksDBException e) {
      if (Failures.isCorruption(e)) {
        return h.unreadable(keys.get(i).describeParts(), e);
      }
      StoreException s = Failures.rocks("RocksDB lookup of " + keys.size() + " key(s) of table " + h.schema.path()
          + " (at " + keys.get(i) + ") in state directory " + dir + " failed", e);
      return new StoreException(s.getMessage(), e, s.retryable(), ErrorContext.of(h.schema.path(),
          keys.get(i).describeParts()));
    }

    @Override
    public List<Row> scan(Table table) {
      Handle h = handleOf(table);
      checkNotOver();
      String path = h.schema.path();
      readHook.beforeRead(path);
      List<Row> out = new ArrayList<>();
      life.readLock().lock();
      try (RocksIterator it = db.newIterator(h.cf, readOptions)) {
        checkOpen();
        for (it.seek(FIRST_ROW_KEY); it.isValid(); it.next()) {
          byte[] keyBytes = it.key();
          TableKey key = h.decodeKey(keyBytes);
          out.add(h.decodeRow(key, keyBytes, readHook.storedBytes(path, it.value())));
        }
        try {
          it.status();
        } catch (RocksDBException e) {
          if (Failures.isCorruption(e)) {
            throw h.unreadable(out.isEmpty() ? "(before the first row)"
                : "(after " + out.get(out.size() - 1).key().describeParts() + ")", e);
          }
          StoreException s = Failures.rocks("RocksDB scan of table " + path + " in state directory " + dir
              + " failed", e);
          throw new StoreException(s.getMessage(), e, s.retryable(), ErrorContext.NONE.withTable(path));
        }
      } finally {
        life.readLock().unlock();
      }
      return Collections.unmodifiableList(out);
    }

    @Override
    public void upsert(Table table, Row row) {
      Objects.requireNonNull(row, "row");
      Handle h = handleOf(table);
      checkKey(h.schema, row.key());
      byte[] key = h.encodeKey(row.key());
      stage(h, row.key(), key, h.encodeValue(key, row.values()));
    }

    @Override
    public void delete(Table table, TableKey key) {
      Objects.requireNonNull(key, "key");
      Handle h = handleOf(table);
      checkKey(h.schema, key);
      stage(h, key, h.encodeKey(key), null);
    }

    private void stage(Handle h, TableKey key, byte[] keyBytes, byte[] value) {
      ByteKey k = new ByteKey(h.schema.path(), keyBytes);
      stage(h.schema.path(), h, k, new Write(key, value));
    }

    @Override
    public void commit() {
      endForCommit();
      try {
        if (readOnly) {
          if (!writes().isEmpty()) {
            throw new StoreException("cannot commit writes to " + writes().keySet() + ": " + describe()
                + " was opened read-only; nothing was written", null, false, ErrorContext.NONE);
          }
          return;
        }
        life.readLock().lock();
        try {
          checkOpen();
          leases.locked(() -> {
            commitLocked();
            return null;
          });
        } finally {
          life.readLock().unlock();
        }
      } finally {
        finished();
      }
    }

    /** The commit critical section: runs under the directory's lock (in this JVM and across processes). */
    private void commitLocked() {
      Lease lease = leaseOrNull();
      LinkedHashMap<String, LinkedHashMap<ByteKey, Write>> writes = writes();
      if (lease != null) {
        checkLease(leases.read(), lease, "Commit refused");
      }
      if (!writes.isEmpty()) {
        checkNotReplaced("commit to " + writes.keySet());
      }
      synchronized (conflicts) {
        for (Map.Entry<String, LinkedHashMap<ByteKey, Write>> e : writes.entrySet()) {
          for (Map.Entry<ByteKey, Write> w : e.getValue().entrySet()) {
            Long seq = lastWrite.get(w.getKey());
            if (seq != null && seq > begin) {
              TableKey key = w.getValue().key();
              throw new CommitConflictException("Commit conflict on table " + e.getKey() + " key "
                  + key.describeParts() + " (" + key + ") in RocksDB state directory " + dir + ": the row was "
                  + "written by commit #" + seq + ", after this transaction began (at commit #" + begin
                  + "); nothing of this transaction was applied");
            }
          }
        }
        if (writes.isEmpty()) {
          return;
        }
        int rows = 0;
        long marker = lastMarker + 1;
        byte[] markerBytes = longBytes(marker);
        try (WriteBatch batch = new WriteBatch()) {
          for (Map.Entry<String, LinkedHashMap<ByteKey, Write>> e : writes.entrySet()) {
            hook.beforeTableWrite(e.getKey());
            ColumnFamilyHandle cf = table(e.getKey()).cf;
            batch.put(cf, MARKER_KEY, markerBytes);
            batch.put(defaultCf, writtenKey(e.getKey()), markerBytes);
            for (Map.Entry<ByteKey, Write> w : e.getValue().entrySet()) {
              if (w.getValue().value() == null) {
                batch.delete(cf, w.getKey().bytes());
              } else {
                batch.put(cf, w.getKey().bytes(), w.getValue().value());
              }
              rows++;
            }
          }
          db.write(writeOptions, batch);
        } catch (RocksDBException e) {
          lastMarker = marker; // the outcome is unknown: never reuse the number
          recordWrites(); // the outcome is unknown: treat the rows as written, for conflict detection
          StoreException s = Failures.rocks("RocksDB commit of " + rows + " row(s) to table(s) " + writes.keySet()
              + " in state directory " + dir + " failed; the outcome is unknown (the write is atomic: all or "
              + "nothing), re-read to find out", e);
          throw new StoreException(s.getMessage(), e, s.retryable(),
              ErrorContext.NONE.withTable(String.join(", ", writes.keySet())));
        }
        lastMarker = marker;
        recordWrites();
      }
    }

    private void recordWrites() {
      long seq = ++commitSeq;
      for (LinkedHashMap<ByteKey, Write> table : writes().values()) {
        for (ByteKey k : table.keySet()) {
          lastWrite.put(k, seq);
        }
      }
      maybePrune();
    }

    @Override
    protected void finished() {
      RocksDbTableStore.this.finished(begin);
    }

    @Override
    public String toString() {
      Lease lease = leaseOrNull();
      return "RocksDB transaction begun after commit #" + begin + (lease == null ? "" : " under " + lease)
          + " in " + dir;
    }
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

    /** How commits reach the disk (default {@link SyncPolicy#WAL}: WAL on, no fsync per commit). */
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
     * @throws IllegalArgumentException if negative
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

    /** A fault-injection hook called during commits, for tests (default {@link CommitHook#NONE}). */
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
     */
    public RocksDbTableStore build() {
      return new RocksDbTableStore(this);
    }
  }
}
