package io.epochal.store.rocksdb;

import static io.epochal.store.rocksdb.MetaKeys.LEASE_KEY_PREFIX;
import static io.epochal.store.rocksdb.MetaKeys.leaseKey;
import static io.epochal.store.rocksdb.MetaKeys.startsWith;

import io.epochal.errors.ErrorContext;
import io.epochal.errors.LeaseLostException;
import io.epochal.errors.StoreException;
import io.epochal.store.rocksdb.internal.Failures;
import io.epochal.store.rocksdb.internal.FormatFile;
import io.epochal.store.rocksdb.internal.LeaseFile;
import io.epochal.store.table.Lease;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writer leases of a writing store (see <i>Fencing across processes</i> of {@link RocksDbTableStore}): the
 * {@code LEASE} file, the database's copy of every generation and the highest generation this store has seen;
 * acquiring, checking and reconciling them, rebuilding a damaged or foreign file with every lease one generation up,
 * and the static takeover without opening the database. Thread-safe: lease changes and commit checks run under the
 * lease file's lock ({@link #locked}).
 */
final class LeaseKeeper {
  private static final Logger LOG = LoggerFactory.getLogger(RocksDbTableStore.class);
  private static final String REBUILT_OWNER = "(fenced: the LEASE file was rebuilt)";

  private final Path dir;
  private final LeaseFile leases;
  private final RocksDB db;
  private final ColumnFamilyHandle defaultCf;
  private final ReadOptions readOptions;
  private final WriteOptions metaWriteOptions;
  /** The database's id; present (a writing store always has one). */
  private final Optional<String> databaseId;
  /** Whether the database is a format-1 directory being upgraded (its unchecked cells may be read). */
  private final boolean legacyCells;
  /**
   * The highest generation of each lease this store has issued or seen in the lease file: a file showing a lower one
   * was rolled back (an old copy restored), and fences every holder. Guarded by itself.
   */
  private final Map<String, Long> highestSeen = new HashMap<>();

  /** @param defaultCf the default column family of {@code database} (where the copy of the leases is kept) */
  LeaseKeeper(OpenDatabase database, ColumnFamilyHandle defaultCf) {
    this.dir = database.dir;
    this.leases = database.leaseFile;
    this.db = database.db;
    this.defaultCf = defaultCf;
    this.readOptions = database.options.readOptions;
    this.metaWriteOptions = database.options.metaWriteOptions;
    this.databaseId = database.opened.databaseId();
    this.legacyCells = database.opened.legacyCells();
  }

  /** Runs {@code work} under the directory's lease lock (in this JVM and across processes). */
  <T> T locked(Supplier<T> work) {
    return leases.locked(work);
  }

  /** Throws unless the lease file shows exactly {@code lease} now; call under {@link #locked}. */
  void checkCurrent(Lease lease, String what) {
    checkLease(leases.read(), lease, what);
  }

  /** {@link RocksDbTableStore#takeOverLease}: takes lease {@code name} over without opening the database. */
  static Lease takeOver(Path dir, String name, String owner) {
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
   * {@link RocksDbTableStore#acquireLease}: the next generation of lease {@code name}, above every one the file, the
   * database or this store knows, written to the lease file and the database's copy under the lease lock.
   */
  Lease acquire(String name, String owner) {
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
  }

  /**
   * The checks of {@link RocksDbTableStore#begin(Lease)}: the lease was issued here and is still current.
   *
   * @throws IllegalArgumentException if the lease's generation was never issued in this state directory
   * @throws LeaseLostException if the lease file shows a newer generation, another owner, or another database
   */
  void checkBegin(Lease lease) {
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
  }

  /**
   * At open, under the lease lock: makes the lease file and the database's copy agree, never lowering a
   * generation. A file of this database is the authority (a static takeover wrote only the file); a copy above the
   * file means the file was rolled back, so that lease moves up (fencing its holders). A missing, damaged or foreign
   * file is rebuilt from the copy with every lease one generation up.
   *
   * @param created whether the database was created by this open
   */
  void reconcile(boolean created) {
    leases.locked(() -> {
      reconcileLocked(created);
      return null;
    });
  }

  private void reconcileLocked(boolean created) {
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
    Path dbDir = dir.resolve(RocksDbTableStore.DB_DIR);
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
      db.put(defaultCf, metaWriteOptions, leaseKey(l.name()), LeaseFile.toRow(l));
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


  private LeaseLostException leaseLost(Lease lease, LeaseFile.Lease current, String what) {
    return new LeaseLostException(what + ": " + lease + " was taken over by generation " + current.generation()
        + " held by " + current.owner() + " (RocksDB state directory " + dir + "); this writer is fenced off and "
        + "nothing it wrote was applied");
  }
}
