package io.epochal.store.rocksdb;

import io.epochal.errors.CommitConflictException;
import io.epochal.errors.LeaseLostException;
import io.epochal.errors.SchemaMismatchException;
import io.epochal.errors.StateCorruptedException;
import io.epochal.errors.StoreException;
import io.epochal.store.rocksdb.internal.ByteKey;
import io.epochal.store.rocksdb.internal.FormatFile;
import io.epochal.store.rocksdb.internal.KeyEncoding;
import io.epochal.store.rocksdb.internal.LeaseFile;
import io.epochal.store.rocksdb.internal.SchemaText;
import io.epochal.store.rocksdb.internal.ValueEncoding;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.Lease;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreCapabilities;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.internal.StagedTransaction;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
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
 *   <li>{@code format.properties}: the on-disk format (version, key/value/schema encodings), written when the
 *       directory is created and checked on every open: a directory written in another format is refused with a
 *       {@link StoreException} naming the directory, the expected and the found value;</li>
 *   <li>{@code db/}: the RocksDB database. Column family {@code t:<path>} holds table {@code <path>}; the default
 *       column family holds each table's schema (canonical text, whose attributes carry the codec ids and layout
 *       version of state tables). {@link #openTable} of an existing table with another schema fails with a
 *       {@link SchemaMismatchException} naming the directory and both schemas (with their fingerprints);</li>
 *   <li>{@code LEASE} and {@code lease.lock}: the writer leases (see <i>Fencing</i>).</li>
 * </ul>
 *
 * <h2>Rows</h2>
 * Keys are encoded so that RocksDB's bytewise order is YTsaurus' key order: the {@code hash} column (uint64,
 * big-endian), then each key column (int64 sign-flipped big-endian, doubles by the order-preserving bit transform,
 * booleans as one byte, strings and bytes with an escaped, order-preserving terminator). Values are a version byte
 * and one tagged, compact cell per value column. Bytes that do not decode raise {@link StateCorruptedException}
 * naming the table and key; nothing is overwritten.
 *
 * <h2>Atomicity and durability</h2>
 * Each {@link StoreTransaction#commit()} is one RocksDB {@code WriteBatch} across all column families it touches,
 * written with the write-ahead log: after any crash, all of it or none of it is visible. The {@link SyncPolicy}
 * decides whether the WAL is {@code fsync}ed per commit (default {@link SyncPolicy#WAL}: no, which survives any
 * process crash, while a machine crash may lose the last commits whole). The database uses atomic flush and
 * point-in-time WAL recovery, so column families never recover to different points.
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
 * RocksDB lets only one process open a database directory. Leases live next to it, in the {@code LEASE} file, which
 * is replaced atomically and only while holding {@code lease.lock} ({@code FileChannel.lock()}, a POSIX record lock
 * released by the OS when the holder dies, plus an in-JVM lock). {@link #acquireLease} takes a lease over by
 * writing its generation plus one. A commit under a lease runs its whole critical section (read the lease's
 * generation, compare it with its own, check conflicts, write the batch) while holding the same lock, so it is
 * ordered entirely before or after any takeover: after a takeover, the old holder's commit throws
 * {@link LeaseLostException} and writes nothing. Generations only grow, so a fenced holder can never commit again.
 * The state directory must be on a local file system (POSIX record locks and atomic renames are relied upon).
 *
 * <p>The takeover does not need the database: a new worker can fence a hung one that still holds the directory with
 * the static {@link #takeOverLease(Path, String, String)}, then open the store (the builder's
 * {@link Builder#openTimeout} waits for the old worker to release the directory, which it does when its pipeline
 * stops on the {@link LeaseLostException} and closes the store, or when its process dies), and begin transactions
 * under the lease it took. A worker that merely restarts after a crash just opens the store and calls
 * {@link #acquireLease}.
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
  private static final int PRUNE_EVERY = 1024;

  static {
    RocksDB.loadLibrary();
  }

  private final Path dir;
  private final SyncPolicy sync;
  private final CommitHook hook;
  private final LeaseFile leases;
  private final Statistics statistics;
  private final DBOptions dbOptions;
  private final ColumnFamilyOptions cfOptions;
  private final WriteOptions writeOptions;
  private final WriteOptions metaWriteOptions;
  private final ReadOptions readOptions;
  private final RocksDB db;
  private final ColumnFamilyHandle defaultCf;
  /** Every column family handle, the default one first; closed by {@link #close()}. Guarded by tablesLock. */
  private final List<ColumnFamilyHandle> handles = new ArrayList<>();
  /** Read lock: any use of a native handle. Write lock: {@link #close()}. */
  private final ReentrantReadWriteLock life = new ReentrantReadWriteLock();
  private volatile boolean closed;

  private final Object tablesLock = new Object();
  private final Map<String, Handle> tables = new HashMap<>(); // guarded by tablesLock
  /** Column families of tables whose schema row is missing (a crash between creating both). */
  private final Map<String, ColumnFamilyHandle> unregistered = new HashMap<>(); // guarded by tablesLock

  /** Guards the conflict state below; only taken inside the directory's commit lock. */
  private final Object conflicts = new Object();
  private long commitSeq; // guarded by conflicts
  private final HashMap<ByteKey, Long> lastWrite = new HashMap<>(); // guarded by conflicts
  private long commitsSincePrune; // guarded by conflicts
  private int pruneAtSize = 4 * PRUNE_EVERY; // guarded by conflicts
  /** The transactions open now, by the commit number they began after. Guarded by conflicts. */
  private final StagedTransaction.OpenTransactions active = new StagedTransaction.OpenTransactions();

  private RocksDbTableStore(Builder b) {
    this.dir = b.dir;
    this.sync = b.sync == null ? SyncPolicy.WAL : b.sync;
    this.hook = b.hook == null ? CommitHook.NONE : b.hook;
    Duration openTimeout = b.openTimeout == null ? Duration.ZERO : b.openTimeout;
    Path dbDir = dir.resolve(DB_DIR);
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new StoreException("cannot create the RocksDB state directory " + dir + ": " + e, e);
    }
    this.leases = LeaseFile.open(dir);
    boolean ok = false;
    Statistics stats = null;
    DBOptions dbo = null;
    ColumnFamilyOptions cfo = null;
    WriteOptions wo = null;
    WriteOptions mwo = null;
    ReadOptions ro = null;
    RocksDB opened = null;
    try {
      leases.locked(() -> {
        FormatFile.checkOrCreate(dir, dbDir);
        return null;
      });
      stats = new Statistics();
      stats.setStatsLevel(StatsLevel.EXCEPT_DETAILED_TIMERS);
      dbo = new DBOptions()
          .setCreateIfMissing(true)
          .setCreateMissingColumnFamilies(true)
          .setAtomicFlush(true)
          .setWalRecoveryMode(WALRecoveryMode.PointInTimeRecovery)
          .setMaxTotalWalSize(64L << 20)
          .setKeepLogFileNum(3)
          .setMaxLogFileSize(1L << 20)
          .setInfoLogLevel(InfoLogLevel.WARN_LEVEL)
          .setStatistics(stats);
      cfo = new ColumnFamilyOptions().setWriteBufferSize(8L << 20);
      wo = new WriteOptions().setSync(sync == SyncPolicy.FSYNC);
      mwo = new WriteOptions().setSync(true);
      ro = new ReadOptions();
      Files.createDirectories(dbDir);
      opened = openDb(dbDir, dbo, cfo, openTimeout);
      ok = true;
    } catch (IOException e) {
      throw new StoreException("cannot create " + dbDir + ": " + e, e);
    } finally {
      if (!ok) {
        closeQuietly(ro, mwo, wo, cfo, dbo, stats);
        leases.close();
      }
    }
    this.statistics = stats;
    this.dbOptions = dbo;
    this.cfOptions = cfo;
    this.writeOptions = wo;
    this.metaWriteOptions = mwo;
    this.readOptions = ro;
    this.db = opened;
    this.defaultCf = handles.get(0);
    try {
      loadSchemas();
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
   * database, so it works while another process still holds the directory open: from now on, every transaction
   * begun under an older generation of the lease, in any process, fails its commit with
   * {@link LeaseLostException} and writes nothing. Then open the store (with {@link Builder#openTimeout} to wait for
   * the fenced worker to let go) and {@linkplain #begin(Lease) begin} transactions under the returned lease.
   *
   * @return the new lease, one generation above the previous holder's
   * @throws StoreException if {@code dir} is not an existing state directory, or the lease cannot be written
   * @throws NullPointerException if an argument is null
   */
  public static Lease takeOverLease(Path dir, String name, String owner) {
    Objects.requireNonNull(dir, "dir");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(owner, "owner");
    if (!Files.isDirectory(dir)) {
      throw new StoreException("cannot take over lease '" + name + "': " + dir + " is not a state directory");
    }
    try (LeaseFile file = LeaseFile.open(dir)) {
      LeaseFile.Lease l = file.takeOver(name, owner);
      LOG.info("took over lease '{}' in {}: generation {} for {}", name, dir, l.generation(), owner);
      return new Lease(name, owner, l.generation());
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
      throw new StoreException("cannot create table " + schema.path() + " in RocksDB state directory " + dir + ": "
          + e.getMessage(), e);
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

  /**
   * {@inheritDoc}
   *
   * <p>The new generation is written to the state directory's {@code LEASE} file (fsynced) under its file lock, so it
   * fences holders of the lease in other processes too.
   */
  @Override
  public Lease acquireLease(String name, String owner) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(owner, "owner");
    checkOpen();
    LeaseFile.Lease l = leases.takeOver(name, owner);
    return new Lease(name, owner, l.generation());
  }

  @Override
  public StoreTransaction begin() {
    return start(null);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Fails fast with {@link LeaseLostException} if the lease file already shows a newer generation.
   *
   * @throws IllegalArgumentException if the lease's generation was never issued in this state directory
   */
  @Override
  public StoreTransaction begin(Lease lease) {
    Objects.requireNonNull(lease, "lease");
    checkOpen();
    LeaseFile.Lease current = leases.current(lease.name());
    if (lease.generation() > current.generation()) {
      throw new IllegalArgumentException(lease + " was not issued in RocksDB state directory " + dir
          + " (its current generation of lease '" + lease.name() + "' is " + current.generation() + ")");
    }
    if (lease.generation() < current.generation()) {
      throw leaseLost(lease, current, "Cannot begin a transaction");
    }
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

  @Override
  public String describe() {
    return "RocksDB table store at " + dir + " (sync " + sync + ")";
  }

  @Override
  public String toString() {
    return describe();
  }

  /**
   * Closes the database and releases every native handle (column families, options, statistics) and the lease
   * lock file. Waits for calls in progress; transactions still open can no longer commit. Flushes the WAL to disk
   * first, so a clean close is durable under any {@link SyncPolicy}. Idempotent.
   *
   * @throws StoreException if RocksDB reports an error while closing (the handles are released anyway)
   */
  @Override
  public void close() {
    life.writeLock().lock();
    RocksDBException failure = null;
    try {
      if (closed) {
        return;
      }
      closed = true;
      if (db != null) {
        try {
          db.syncWal();
        } catch (RocksDBException e) {
          failure = e;
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
          failure = failure == null ? e : failure;
        }
      }
      closeQuietly(readOptions, metaWriteOptions, writeOptions, cfOptions, dbOptions, statistics);
    } finally {
      life.writeLock().unlock();
      leases.close();
    }
    if (failure != null) {
      throw new StoreException("closing RocksDB state directory " + dir + " failed: " + failure.getMessage(),
          failure);
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

  // ------------------------------------------------------------------------------------------------ opening

  private RocksDB openDb(Path dbDir, DBOptions dbo, ColumnFamilyOptions cfo, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    long backoffMillis = 10;
    while (true) {
      List<ColumnFamilyHandle> opened = new ArrayList<>();
      try {
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
        RocksDB rdb = RocksDB.open(dbo, dbDir.toString(), descriptors, opened);
        handles.addAll(opened); // the default column family first
        for (int i = 1; i < opened.size(); i++) {
          String cf = new String(descriptors.get(i).getName(), StandardCharsets.UTF_8);
          if (cf.startsWith(TABLE_CF_PREFIX)) {
            unregistered.put(cf.substring(TABLE_CF_PREFIX.length()), opened.get(i));
          }
        }
        return rdb;
      } catch (RocksDBException e) {
        for (ColumnFamilyHandle h : opened) {
          h.close();
        }
        handles.clear();
        unregistered.clear();
        if (!isLockedByAnother(e)) {
          throw new StoreException("cannot open RocksDB state directory " + dir + ": " + e.getMessage(), e);
        }
        if (System.nanoTime() >= deadline) {
          throw new StoreException("RocksDB state directory " + dir + " is open in another process (or another "
              + "store of this one) and was not released within " + timeout + "; RocksDB allows one process per "
              + "directory. Leases: " + leaseSummary() + ". To replace a hung worker, take its lease over with "
              + "RocksDbTableStore.takeOverLease (it then fails its next commit and lets go) and open with a "
              + "longer openTimeout.", e);
        }
        try {
          Thread.sleep(backoffMillis);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new StoreException("interrupted while waiting for RocksDB state directory " + dir, ie);
        }
        backoffMillis = Math.min(backoffMillis * 2, 200);
      }
    }
  }

  private static boolean isLockedByAnother(RocksDBException e) {
    String m = String.valueOf(e.getMessage());
    return m.contains("/LOCK") || m.contains("lock hold by current process") || m.contains("No locks available");
  }

  private String leaseSummary() {
    try {
      return leases.describeAll();
    } catch (RuntimeException e) {
      return "unreadable (" + e.getMessage() + ")";
    }
  }

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
                + "damaged", e);
          }
          ColumnFamilyHandle cf = unregistered.remove(path);
          if (cf == null) {
            cf = db.createColumnFamily(new ColumnFamilyDescriptor(cfName(path), cfOptions));
            handles.add(cf);
          }
          tables.put(path, new Handle(this, schema, cf));
        }
        it.status();
      }
    } catch (RocksDBException e) {
      throw new StoreException("cannot read the table schemas of RocksDB state directory " + dir + ": "
          + e.getMessage(), e);
    } finally {
      life.readLock().unlock();
    }
  }

  // ------------------------------------------------------------------------------------------------ helpers

  private static byte[] cfName(String path) {
    return (TABLE_CF_PREFIX + path).getBytes(StandardCharsets.UTF_8);
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

    Handle(RocksDbTableStore owner, TableSchema schema, ColumnFamilyHandle cf) {
      this.owner = owner;
      this.schema = schema;
      this.cf = cf;
      this.keyKinds = SchemaText.kinds(schema.keyColumns());
      this.valueKinds = SchemaText.kinds(schema.valueColumns());
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

    Row decodeRow(TableKey key, byte[] value) {
      try {
        return Row.of(key, ValueEncoding.decode(valueKinds, value));
      } catch (IllegalArgumentException | NullPointerException e) {
        throw new StateCorruptedException(schema.path(), key.describeParts(), "unknown", e);
      }
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
        throw new StateCorruptedException(schema.path(), java.util.HexFormat.of().formatHex(bytes), "unknown", e);
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
      List<byte[]> values;
      life.readLock().lock();
      try {
        checkOpen();
        values = db.multiGetAsList(readOptions, Collections.nCopies(encoded.size(), h.cf), encoded);
      } catch (RocksDBException e) {
        throw new StoreException("RocksDB lookup of " + keys.size() + " key(s) of table " + h.schema.path()
            + " (first " + keys.get(0) + ") in state directory " + dir + " failed: " + e.getMessage(), e);
      } finally {
        life.readLock().unlock();
      }
      List<Optional<Row>> out = new ArrayList<>(keys.size());
      for (int i = 0; i < keys.size(); i++) {
        byte[] v = values.get(i);
        out.add(v == null ? Optional.empty() : Optional.of(h.decodeRow(keys.get(i), v)));
      }
      return Collections.unmodifiableList(out);
    }

    @Override
    public List<Row> scan(Table table) {
      Handle h = handleOf(table);
      checkNotOver();
      List<Row> out = new ArrayList<>();
      life.readLock().lock();
      try (RocksIterator it = db.newIterator(h.cf, readOptions)) {
        checkOpen();
        for (it.seekToFirst(); it.isValid(); it.next()) {
          TableKey key = h.decodeKey(it.key());
          out.add(h.decodeRow(key, it.value()));
        }
        it.status();
      } catch (RocksDBException e) {
        throw new StoreException("RocksDB scan of table " + h.schema.path() + " in state directory " + dir
            + " failed: " + e.getMessage(), e);
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
      byte[] value = ValueEncoding.encode(h.valueKinds, row.values());
      stage(h, row.key(), value);
    }

    @Override
    public void delete(Table table, TableKey key) {
      Objects.requireNonNull(key, "key");
      Handle h = handleOf(table);
      checkKey(h.schema, key);
      stage(h, key, null);
    }

    private void stage(Handle h, TableKey key, byte[] value) {
      ByteKey k = new ByteKey(h.schema.path(), h.encodeKey(key));
      stage(h.schema.path(), h, k, new Write(key, value));
    }

    @Override
    public void commit() {
      endForCommit();
      try {
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
        LeaseFile.Lease current = leases.current(lease.name());
        if (current.generation() != lease.generation()) {
          throw leaseLost(lease, current, "Commit refused");
        }
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
        try (WriteBatch batch = new WriteBatch()) {
          for (Map.Entry<String, LinkedHashMap<ByteKey, Write>> e : writes.entrySet()) {
            hook.beforeTableWrite(e.getKey());
            ColumnFamilyHandle cf = table(e.getKey()).cf;
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
          recordWrites(); // the outcome is unknown: treat the rows as written, for conflict detection
          throw new StoreException("RocksDB commit of " + rows + " row(s) to table(s) " + writes.keySet()
              + " in state directory " + dir + " failed: " + e.getMessage() + "; the outcome is unknown (the "
              + "write is atomic: all or nothing), re-read to find out", e);
        }
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
     * Opens the store: creates the state directory if missing, checks (or writes) its format, waits up to
     * {@link #openTimeout} for the directory to be free, opens the database and every table in it.
     *
     * @throws StoreException if the directory was written in another format, is held by another process past the
     *     timeout, or cannot be opened
     */
    public RocksDbTableStore build() {
      return new RocksDbTableStore(this);
    }
  }
}
