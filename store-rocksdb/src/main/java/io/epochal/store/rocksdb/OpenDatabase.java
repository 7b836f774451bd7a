package io.epochal.store.rocksdb;

import io.epochal.store.rocksdb.internal.DirectoryLock;
import io.epochal.store.rocksdb.internal.Failures;
import io.epochal.store.rocksdb.internal.LeaseFile;
import java.nio.file.Path;
import java.time.Duration;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The native resources of an open store and their lifecycle: the directory lock, the lease file, the RocksDB
 * options and the database, acquired in order by {@link #open} (everything acquired so far released if a step
 * fails) and released by {@link #close} and {@link #releaseLocks}. Not thread-safe: the store calls {@link #close}
 * under its life lock.
 */
final class OpenDatabase {
  private static final Logger LOG = LoggerFactory.getLogger(RocksDbTableStore.class);

  final Path dir;
  private final boolean readOnly;
  private final Durability durability;
  private final DirectoryLock dirLock;
  /** The lease file; null when read-only. */
  final LeaseFile leaseFile;
  final NativeOptions options;
  final DatabaseOpener.Opened opened;
  final RocksDB db;

  private OpenDatabase(Path dir, boolean readOnly, Durability durability, DirectoryLock dirLock, LeaseFile leaseFile,
      NativeOptions options, DatabaseOpener.Opened opened) {
    this.dir = dir;
    this.readOnly = readOnly;
    this.durability = durability;
    this.dirLock = dirLock;
    this.leaseFile = leaseFile;
    this.options = options;
    this.opened = opened;
    this.db = opened.db();
  }

  /**
   * Prepares and locks the state directory (waiting up to {@code openTimeout} for another store to release it) and
   * opens its database with every check ({@link DatabaseOpener}); then starts the {@code durability} watermark.
   */
  static OpenDatabase open(Path dir, SyncPolicy sync, boolean readOnly, Duration openTimeout,
      Durability durability) {
    StateDirectory.prepare(dir, readOnly);
    long deadline = System.nanoTime() + openTimeout.toNanos();
    DirectoryLock dirLock = readOnly ? DirectoryLock.shared(dir)
        : StateDirectory.lockDirectory(dir, openTimeout, deadline);
    boolean ok = false;
    LeaseFile lf = null;
    NativeOptions o = null;
    try {
      lf = readOnly ? null : LeaseFile.open(dir);
      o = new NativeOptions(sync, readOnly ? null : durability.flushListener());
      DatabaseOpener.Opened opened = new DatabaseOpener(dir, o, durability).open(readOnly, lf, deadline, openTimeout);
      ok = true;
      durability.started(opened.databaseId());
      return new OpenDatabase(dir, readOnly, durability, dirLock, lf, o, opened);
    } finally {
      if (!ok) {
        NativeOptions.closeQuietly(o, lf);
        dirLock.close();
      }
    }
  }

  /**
   * Flushes the WAL to disk (when writing) and records that in the watermark, then closes every column family of
   * {@code tables}, the database and the options; the locks stay held until {@link #releaseLocks}. If the state
   * directory was deleted or replaced meanwhile, leaves the database open instead (see the comment inside).
   *
   * @return whether the database was closed
   * @throws RuntimeException the first failure, once everything was released
   */
  boolean close(TableCatalog tables) {
    RuntimeException failure = null;
    if (!readOnly && durability.directoryReplaced()) {
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
      return false;
    }
    if (!readOnly) {
      try {
        db.syncWal();
        durability.advance(db.getLatestSequenceNumber());
      } catch (RocksDBException e) {
        failure = Failures.rocks("closing RocksDB state directory " + dir + " failed", e);
      } catch (RuntimeException e) {
        failure = e;
      }
    }
    tables.closeAll();
    try {
      db.closeE();
    } catch (RocksDBException e) {
      failure = failure == null ? Failures.rocks("closing RocksDB state directory " + dir + " failed", e)
          : failure;
    }
    options.close();
    if (failure != null) {
      throw failure;
    }
    return true;
  }

  /** Releases the lease file and the directory lock (idempotent). */
  void releaseLocks() {
    if (leaseFile != null) {
      leaseFile.close();
    }
    dirLock.close();
  }
}
