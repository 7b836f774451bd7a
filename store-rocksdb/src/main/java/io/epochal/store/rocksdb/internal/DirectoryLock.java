package io.epochal.store.rocksdb.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The lock a store holds on its state directory for as long as it is open ({@value #FILE}): exclusive for a store
 * that writes, shared (where the file can be read) for a read-only one. {@code RocksDbTableStore.destroy} takes it
 * exclusively, so a directory that is open anywhere (in this JVM or another process) is never deleted under its
 * user.
 *
 * <p>Across processes this is an {@code fcntl} record lock ({@link FileChannel#tryLock}), released by the OS when the
 * holder dies. Within one JVM such locks do not exclude each other (they belong to the process, and closing any
 * channel on the file releases them all), so the JVM keeps one registry entry per lock file: one channel, the lock
 * mode and the count of holders. The registry holds nothing else and an entry is removed with its last holder.
 *
 * <p>Thread-safe.
 */
public final class DirectoryLock implements AutoCloseable {
  /** The lock file's name in the state directory. */
  public static final String FILE = "open.lock";

  private static final Map<Path, Entry> HELD = new HashMap<>(); // guarded by HELD

  private final Entry entry; // null: a shared lock that could not be taken (read-only directory)
  private boolean closed; // guarded by HELD

  private DirectoryLock(Entry entry) {
    this.entry = entry;
  }

  /**
   * Takes the directory exclusively, creating the lock file if it is missing.
   *
   * @param dir the state directory, which must exist
   * @param busy an array of at least one element; when the result is empty, {@code busy[0]} is set to why (open in
   *     this JVM or in another process), else it is left alone
   * @return the lock, or empty with nothing taken if the directory is open in this JVM or another process (then
   *     {@code busy[0]} says which)
   * @throws io.epochal.errors.StoreException if the lock file cannot be created or locked (an I/O error)
   */
  public static Optional<DirectoryLock> tryExclusive(Path dir, String[] busy) {
    Path file = dir.resolve(FILE);
    synchronized (HELD) {
      Path key;
      try {
        if (!Files.exists(file)) {
          try {
            Files.createFile(file);
          } catch (java.nio.file.FileAlreadyExistsException raced) {
            // another process created it first
          }
        }
        key = file.toRealPath();
      } catch (IOException e) {
        throw Failures.io("cannot create the lock file " + file, e);
      }
      if (HELD.containsKey(key)) {
        busy[0] = "it is open in this JVM";
        return Optional.empty();
      }
      FileChannel ch = null;
      try {
        ch = FileChannel.open(key, StandardOpenOption.READ, StandardOpenOption.WRITE);
        FileLock lock;
        try {
          lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
          lock = null;
        }
        if (lock == null) {
          ch.close();
          busy[0] = "it is open in another process";
          return Optional.empty();
        }
        Entry e = new Entry(key, ch, lock);
        HELD.put(key, e);
        return Optional.of(new DirectoryLock(e));
      } catch (IOException e) {
        closeQuietly(ch);
        throw Failures.io("cannot lock " + key, e);
      }
    }
  }

  /**
   * Takes the directory shared, as far as possible without writing anything: joins this JVM's lock on the directory
   * if there is one, else takes a shared file lock if the lock file exists and can be read. Never fails: a read-only
   * store may read a directory another process writes (RocksDB allows it).
   *
   * @param dir the state directory
   * @return the hold, to close when the store closes; it holds no file lock if none could be taken without writing
   */
  public static DirectoryLock shared(Path dir) {
    Path file = dir.resolve(FILE);
    synchronized (HELD) {
      Path key;
      try {
        key = file.toRealPath();
      } catch (IOException e) {
        return new DirectoryLock(null); // no lock file (or not readable): nothing to share
      }
      Entry e = HELD.get(key);
      if (e != null) {
        e.holders++;
        return new DirectoryLock(e);
      }
      FileChannel ch = null;
      try {
        ch = FileChannel.open(key, StandardOpenOption.READ);
        FileLock lock = ch.tryLock(0, Long.MAX_VALUE, true);
        if (lock == null) {
          ch.close();
          return new DirectoryLock(null); // a writer in another process holds it: reading is still allowed
        }
        Entry n = new Entry(key, ch, lock);
        HELD.put(key, n);
        return new DirectoryLock(n);
      } catch (IOException | OverlappingFileLockException | UnsupportedOperationException ex) {
        closeQuietly(ch);
        return new DirectoryLock(null);
      }
    }
  }

  /** Releases this hold; the file lock is released with the JVM's last hold of the directory. Idempotent. */
  @Override
  public void close() {
    synchronized (HELD) {
      if (closed) {
        return;
      }
      closed = true;
      if (entry != null && --entry.holders == 0) {
        HELD.remove(entry.path);
        try {
          entry.lock.release();
        } catch (IOException e) {
          // closing the channel releases it anyway
        }
        closeQuietly(entry.channel);
      }
    }
  }

  private static void closeQuietly(FileChannel ch) {
    if (ch != null) {
      try {
        ch.close();
      } catch (IOException e) {
        // nothing to do
      }
    }
  }

  /** One locked file of this JVM. */
  private static final class Entry {
    final Path path;
    final FileChannel channel;
    final FileLock lock;
    int holders = 1; // guarded by HELD

    Entry(Path path, FileChannel channel, FileLock lock) {
      this.path = path;
      this.channel = channel;
      this.lock = lock;
    }
  }
}
