package io.epochal.store.rocksdb;

import static io.epochal.store.rocksdb.MetaKeys.DATABASE_ID_KEY;
import static io.epochal.store.rocksdb.MetaKeys.INITIALISED_KEY;
import static io.epochal.store.rocksdb.MetaKeys.TABLE_CF_PREFIX;
import static io.epochal.store.rocksdb.StateDirectory.sleep;

import io.epochal.errors.ErrorContext;
import io.epochal.errors.StoreException;
import io.epochal.store.rocksdb.internal.Failures;
import io.epochal.store.rocksdb.internal.FormatFile;
import io.epochal.store.rocksdb.internal.LeaseFile;
import io.epochal.store.rocksdb.internal.Watermark;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the database of a state directory, for writing or read-only, with every check of the format, the database
 * id and the watermark (see <i>Damage</i> and <i>Format versions</i> of {@link RocksDbTableStore}): creates the
 * database of a new directory, completes an interrupted creation, upgrades a format-1 directory, and refuses a
 * directory that lost its database or data. One opener serves one open of a store; not thread-safe.
 */
final class DatabaseOpener {
  private static final Logger LOG = LoggerFactory.getLogger(RocksDbTableStore.class);

  private final Path dir;
  private final NativeOptions options;
  private final Durability durability;
  /** The column family handles of the database being opened, the default one first. */
  private final List<ColumnFamilyHandle> handles = new ArrayList<>();
  /** Column families of tables, by path (registered as tables once their schema rows are read). */
  private final Map<String, ColumnFamilyHandle> unregistered = new HashMap<>();

  /**
   * What opening the database found.
   *
   * @param handles every column family handle, the default one first
   * @param unregistered the column families of tables, by path
   * @param databaseId the database's id; empty only for a format-1 directory opened read-only
   * @param legacyCells whether cells of the unchecked format-1 encoding may be read
   * @param created whether the database was created by this open
   */
  record Opened(RocksDB db, List<ColumnFamilyHandle> handles, Map<String, ColumnFamilyHandle> unregistered,
      Optional<String> databaseId, boolean legacyCells, boolean created) {
  }

  DatabaseOpener(Path dir, NativeOptions options, Durability durability) {
    this.dir = dir;
    this.options = options;
    this.durability = durability;
  }

  /**
   * Opens the database: read-only, or for writing (under the lease lock {@code lf}, waiting until {@code deadline}
   * while RocksDB's own lock is held by another store).
   */
  Opened open(boolean readOnly, LeaseFile lf, long deadline, Duration timeout) {
    Path dbDir = dir.resolve(RocksDbTableStore.DB_DIR);
    NativeOptions o = options;
    return readOnly ? openReadOnly(dbDir, o.dbOptions, o.cfOptions, o.readOptions)
        : openForWriting(dbDir, o.dbOptions, o.cfOptions, o.readOptions, o.metaWriteOptions, lf, deadline, timeout);
  }

  private Opened opened(RocksDB rdb, Optional<String> databaseId, boolean legacyCells, boolean created) {
    return new Opened(rdb, handles, unregistered, databaseId, legacyCells, created);
  }

  private Opened openForWriting(Path dbDir, DBOptions dbo, ColumnFamilyOptions cfo, ReadOptions ro,
      WriteOptions mwo, LeaseFile lf, long deadline, Duration timeout) {
    long backoffMillis = 10;
    while (true) {
      try {
        return lf.locked(() -> openOrCreate(dbDir, dbo, cfo, ro, mwo));
      } catch (LockedByAnother e) {
        if (System.nanoTime() >= deadline) {
          throw StateDirectory.busy(dir, timeout, null, e.getCause());
        }
        backoffMillis = sleep(dir, backoffMillis);
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
        return opened(rdb, Optional.of(dbId), false, true);
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
      return opened(rdb, Optional.of(dbId), legacy, false);
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
      return opened(rdb, Optional.of(id), false, true);
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
    durability.known(mark.get().sequence());
  }

  private StoreException lost(String what, Throwable cause) {
    return lost(dir, what, cause);
  }

  /**
   * The refusal of an initialised directory that lost (part of) its database: not retryable, with what to do.
   *
   * @param what what is wrong, after "is initialised but"
   */
  static StoreException lost(Path dir, String what, Throwable cause) {
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
      return opened(rdb, f.databaseId(), f.legacyCells(), false);
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
    handles.addAll(opened); // the default column family first
    for (int i = 1; i < opened.size(); i++) {
      String cf = new String(descriptors.get(i).getName(), StandardCharsets.UTF_8);
      if (cf.startsWith(TABLE_CF_PREFIX)) {
        unregistered.put(cf.substring(TABLE_CF_PREFIX.length()), opened.get(i));
      }
    }
  }

  private void closeDb(RocksDB rdb) {
    for (ColumnFamilyHandle h : handles) {
      h.close();
    }
    handles.clear();
    unregistered.clear();
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

  private static long latestSequence(RocksDB rdb) {
    return rdb.getLatestSequenceNumber();
  }
}
