package io.epochal.store.rocksdb.internal;

import io.epochal.errors.StoreException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * A mutual-exclusion lock over a lock file that holds across threads AND processes: the critical section runs while
 * this JVM holds an in-process {@link ReentrantLock} for the file and an exclusive {@link FileChannel#lock()}
 * (a POSIX {@code fcntl} record lock on Linux, so every process that locks the same file waits for it).
 *
 * <p>Why a JVM-wide registry: POSIX record locks belong to the process, not to a channel. Two channels of one JVM on
 * the same file would either get {@link java.nio.channels.OverlappingFileLockException} or, worse, the close of one
 * channel would silently release the lock held through the other. So every {@code ProcessLock} of one JVM on one file
 * shares one entry (one channel, one in-process lock), reference-counted by {@link #open} and {@link #close()}. The
 * registry holds nothing else and is emptied when the last handle of a file is closed.
 *
 * <p>The OS releases the file lock when the process dies (including SIGKILL), so a crashed holder never blocks the
 * directory. Thread-safe.
 */
public final class ProcessLock implements AutoCloseable {
  private static final Map<Path, Entry> ENTRIES = new HashMap<>(); // guarded by ENTRIES

  private final Entry entry;
  private boolean closed; // guarded by this

  private ProcessLock(Entry entry) {
    this.entry = entry;
  }

  /**
   * Opens (creating if needed) the lock file and returns a handle on it.
   *
   * @param lockFile the lock file's path; handles opened on the same file (by its real path) in this JVM share one
   *     in-JVM lock
   * @return a new handle on the lock, to close when no longer needed; it holds nothing until {@link #locked} runs
   * @throws StoreException if the file cannot be created or opened
   */
  public static ProcessLock open(Path lockFile) {
    Path key;
    try {
      if (!Files.exists(lockFile)) {
        try {
          Files.createFile(lockFile);
        } catch (java.nio.file.FileAlreadyExistsException raced) {
          // another worker created it first
        }
      }
      key = lockFile.toRealPath();
    } catch (IOException e) {
      throw Failures.io("cannot create lock file " + lockFile, e);
    }
    synchronized (ENTRIES) {
      Entry e = ENTRIES.computeIfAbsent(key, Entry::new);
      e.refs++;
      return new ProcessLock(e);
    }
  }

  /**
   * Runs {@code action} while holding the lock in this JVM and in the file system. Blocks until both are free.
   * Re-entrant: a nested call of the same thread runs at once.
   *
   * @param <T> the type of the action's result
   * @param action what to do while holding the lock; the lock is released when it returns or throws
   * @return what {@code action} returned
   * @throws StoreException if the file lock cannot be taken (I/O error, or interrupted while waiting); then
   *     {@code action} did not run
   * @throws IllegalStateException if this handle is closed
   */
  public <T> T locked(Supplier<T> action) {
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("lock on " + entry.path + " is closed");
      }
    }
    entry.lock.lock();
    try {
      if (entry.lock.getHoldCount() > 1) {
        return action.get(); // re-entered: this thread already holds the file lock
      }
      FileLock fileLock = entry.lockFile();
      try {
        return action.get();
      } finally {
        try {
          if (fileLock.isValid()) {
            fileLock.release();
          }
        } catch (IOException e) {
          // The channel was closed (interrupt): the lock is gone with it.
        }
      }
    } finally {
      entry.lock.unlock();
    }
  }

  /**
   * Tells whether the calling thread holds this lock.
   *
   * @return whether the calling thread is inside {@link #locked} of this lock file
   */
  public boolean isHeldByCurrentThread() {
    return entry.lock.isHeldByCurrentThread();
  }

  /** Releases this handle; the file channel is closed with the last handle of this JVM on the file. Idempotent. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    synchronized (ENTRIES) {
      if (--entry.refs == 0) {
        ENTRIES.remove(entry.path);
        entry.lock.lock();
        try {
          entry.closeChannel();
        } finally {
          entry.lock.unlock();
        }
      }
    }
  }

  /** One lock file of this JVM. */
  private static final class Entry {
    final Path path;
    final ReentrantLock lock = new ReentrantLock();
    int refs; // guarded by ENTRIES
    private FileChannel channel; // guarded by lock

    Entry(Path path) {
      this.path = path;
    }

    /** Takes the file lock; called with {@link #lock} held. Reopens the channel if an interrupt closed it. */
    FileLock lockFile() {
      try {
        if (channel == null || !channel.isOpen()) {
          channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
              StandardOpenOption.CREATE);
        }
        return channel.lock();
      } catch (java.nio.channels.ClosedByInterruptException e) {
        Thread.currentThread().interrupt();
        throw new StoreException("interrupted while waiting for the lock on " + path, e);
      } catch (IOException e) {
        throw Failures.io("cannot lock " + path, e);
      }
    }

    void closeChannel() {
      if (channel != null) {
        try {
          channel.close();
        } catch (IOException e) {
          // nothing to do: closing releases the lock anyway
        }
        channel = null;
      }
    }
  }
}
