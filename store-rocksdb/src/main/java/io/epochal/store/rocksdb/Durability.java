package io.epochal.store.rocksdb;

import io.epochal.errors.ErrorContext;
import io.epochal.errors.StoreException;
import io.epochal.store.rocksdb.internal.FormatFile;
import io.epochal.store.rocksdb.internal.Watermark;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.FlushJobInfo;
import org.rocksdb.RocksDB;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a writing store knows to be durable, and whether its directory is still its own: keeps the
 * {@code WATERMARK} file (the highest RocksDB sequence number made durable: after opening, after each flush, after a
 * clean close) and detects a state directory deleted or replaced under the open store. Thread-safe.
 */
final class Durability {
  private static final Logger LOG = LoggerFactory.getLogger(RocksDbTableStore.class);

  private final Path dir;
  private final boolean readOnly;
  /** Guards the watermark; never held while waiting for anything else. */
  private final Object watermarkLock = new Object();
  private long watermark = -1; // guarded by watermarkLock; the sequence number last written to WATERMARK
  /** The database's id; null until {@link #started} (while the store still opens the database). */
  private volatile String databaseId;
  /** The file key (device and inode) of {@code db/} at open, or null where the file system has none. */
  private volatile Object dbDirKey;

  Durability(Path dir, boolean readOnly) {
    this.dir = dir;
    this.readOnly = readOnly;
  }

  /** Records that the open database is known durable up to {@code sequence} (what WATERMARK says at open). */
  void known(long sequence) {
    synchronized (watermarkLock) {
      watermark = sequence;
    }
  }

  /**
   * Called once the database is open: from now on the watermark moves (for a database with an id, when writing).
   *
   * @param databaseId the database's id; empty only for a format-1 directory opened read-only
   */
  void started(Optional<String> databaseId) {
    this.dbDirKey = fileKey(dir.resolve(RocksDbTableStore.DB_DIR));
    this.databaseId = databaseId.orElse(null);
  }

  /** Records {@code sequence} as durable in WATERMARK if it is above the last recorded one. */
  void advance(long sequence) {
    String id = databaseId;
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

  /**
   * @return whether the database directory this store opened was deleted or replaced meanwhile (e.g. the state
   *     directory was deleted and re-created by hand while this store had it open)
   */
  boolean directoryReplaced() {
    Path dbDir = dir.resolve(RocksDbTableStore.DB_DIR);
    try {
      Object now = Files.readAttributes(dbDir, BasicFileAttributes.class).fileKey();
      Object atOpen = dbDirKey;
      return atOpen != null && !atOpen.equals(now);
    } catch (NoSuchFileException e) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** @throws StoreException (not retryable) if the directory was deleted or replaced under this open store */
  void checkNotReplaced(String what) {
    if (directoryReplaced()) {
      throw new StoreException("cannot " + what + ": RocksDB state directory " + dir + " was deleted or replaced "
          + "while this store had it open; nothing was written. Stop this process (another one owns the directory "
          + "now).", null, false, ErrorContext.NONE);
    }
  }

  /** @return a listener that moves the watermark after each completed flush */
  AbstractEventListener flushListener() {
    return new FlushListener();
  }

  private static Object fileKey(Path p) {
    try {
      return Files.readAttributes(p, BasicFileAttributes.class).fileKey();
    } catch (IOException e) {
      return null;
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
        if (databaseId != null) { // null while the store still opens the database
          advance(info.getLargestSeqno());
        }
      } catch (RuntimeException e) {
        LOG.warn("cannot move the watermark of {} after a flush (it stays behind, which is safe): {}", dir,
            e.getMessage());
      }
    }
  }
}
