package io.epochal.store.rocksdb;

import io.epochal.errors.ErrorContext;
import io.epochal.errors.StoreException;
import io.epochal.store.rocksdb.internal.DirectoryLock;
import io.epochal.store.rocksdb.internal.Failures;
import io.epochal.store.rocksdb.internal.FormatFile;
import io.epochal.store.rocksdb.internal.LeaseFile;
import io.epochal.store.rocksdb.internal.Watermark;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state directory itself, before and around its database: creating it, taking its lock (waiting up to the open
 * timeout, with what to do when another process holds it), and deleting its state ({@link RocksDbTableStore#destroy}).
 * Stateless and thread-safe.
 */
final class StateDirectory {
  private static final Logger LOG = LoggerFactory.getLogger(RocksDbTableStore.class);

  private StateDirectory() {
  }

  /** Checks that {@code dir} is (or, when writing, can be created as) a directory. */
  static void prepare(Path dir, boolean readOnly) {
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

  /** Takes the directory's exclusive lock, retrying until {@code deadline} ({@link System#nanoTime()}). */
  static DirectoryLock lockDirectory(Path dir, Duration timeout, long deadline) {
    long backoffMillis = 10;
    while (true) {
      String[] busy = new String[1];
      Optional<DirectoryLock> lock = DirectoryLock.tryExclusive(dir, busy);
      if (lock.isPresent()) {
        return lock.get();
      }
      if (System.nanoTime() >= deadline) {
        throw busy(dir, timeout, busy[0], null);
      }
      backoffMillis = sleep(dir, backoffMillis);
    }
  }

  /** The error of a directory still held by another store or process when the open timeout ran out. */
  static StoreException busy(Path dir, Duration timeout, String why, Throwable cause) {
    return new StoreException("RocksDB state directory " + dir + " is open in another process (or another store "
        + "of this one" + (why == null ? "" : "; here " + why) + ") and was not released within " + timeout
        + "; RocksDB allows one process per directory. Leases: " + leaseSummary(dir) + ". To replace a hung worker, "
        + "take its lease over with RocksDbTableStore.takeOverLease (it then fails its next commit and lets go) "
        + "and open with a longer openTimeout.", cause);
  }

  /**
   * Sleeps {@code backoffMillis}.
   *
   * @return the next backoff (doubled, at most 200 ms)
   */
  static long sleep(Path dir, long backoffMillis) {
    try {
      Thread.sleep(backoffMillis);
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      throw new StoreException("interrupted while waiting for RocksDB state directory " + dir, ie);
    }
    return Math.min(backoffMillis * 2, 200);
  }

  private static String leaseSummary(Path dir) {
    try {
      LeaseFile.Contents c = LeaseFile.read(dir.resolve(LeaseFile.LEASE_FILE));
      return c.status() == LeaseFile.Status.OK ? c.leases().values().toString() : c.problem();
    } catch (RuntimeException e) {
      return "unreadable (" + e.getMessage() + ")";
    }
  }

  /** {@link RocksDbTableStore#destroy}: deletes the state of {@code dir} after taking its locks. */
  static void destroy(Path dir) {
    Objects.requireNonNull(dir, "dir");
    Path d = dir.toAbsolutePath().normalize();
    if (!Files.exists(d)) {
      return;
    }
    if (!Files.isDirectory(d)) {
      throw new StoreException("cannot delete the state of " + d + ": it is not a directory", null, false,
          ErrorContext.NONE);
    }
    if (!Files.exists(d.resolve(FormatFile.NAME)) && !Files.exists(d.resolve(RocksDbTableStore.DB_DIR))
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
          deleteTree(d.resolve(RocksDbTableStore.DB_DIR));
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
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
