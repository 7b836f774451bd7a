package io.epochal.store.rocksdb.internal;

import io.epochal.errors.ErrorContext;
import io.epochal.errors.StoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;

/**
 * Turns I/O and RocksDB failures into {@link StoreException}s that say whether a retry can help: the operating
 * system's "no space left", "read-only file system", "disk quota" and "permission denied" are never retryable
 * ({@link StoreException#io}), nor is a RocksDB {@code Corruption}; and writes the directory's small files
 * atomically. Stateless and thread-safe.
 */
public final class Failures {
  private Failures() {
  }

  /**
   * A store failure from a file-system error: not retryable when no retry can fix it (see
   * {@link StoreException#io}). Java reports {@code EACCES} as an {@link AccessDeniedException} whose message is just
   * the path: it is named "Permission denied" here so that it is recognised.
   *
   * @param what what the store was doing, naming the file or directory
   * @param e the file-system error, kept as the cause
   * @return the failure to throw, retryable unless the error is one no retry fixes
   */
  public static StoreException io(String what, IOException e) {
    if (e instanceof AccessDeniedException && (e.getMessage() == null || !e.getMessage().contains("denied"))) {
      String where = e.getMessage() == null || what.contains(e.getMessage()) ? what
          : what + " (at " + e.getMessage() + ")";
      return StoreException.io(where, new IOException("Permission denied: " + e.getMessage(), e));
    }
    return StoreException.io(what, e);
  }

  /**
   * A store failure from a RocksDB error. {@code Corruption}: not retryable, with what to do; {@code IOError} and the
   * rest: as {@link StoreException#io} decides from the message (no space, read-only, quota, permission: not
   * retryable; else retryable).
   *
   * @param what what the store was doing, naming the directory and table
   * @param e the RocksDB error, kept as the cause
   * @return the failure to throw
   */
  public static StoreException rocks(String what, RocksDBException e) {
    if (isCorruption(e)) {
      return new StoreException(what + ": " + e.getMessage() + ". The state directory is damaged: restore it from a "
          + "backup, or start over in a new one; no retry can fix this.", e, false, ErrorContext.NONE);
    }
    return StoreException.io(what, e);
  }

  /**
   * Tells whether a RocksDB error reports damaged data, by its status code or its message.
   *
   * @param e the RocksDB error
   * @return whether RocksDB reported corrupt data ({@code Corruption} status or a checksum mismatch)
   */
  public static boolean isCorruption(RocksDBException e) {
    Status s = e.getStatus();
    if (s != null && s.getCode() == Status.Code.Corruption) {
      return true;
    }
    String m = String.valueOf(e.getMessage());
    return m.startsWith("Corruption") || m.contains("checksum mismatch");
  }

  /**
   * Replaces {@code dir/name} by {@code bytes}: writes a temporary file, fsyncs it, renames it atomically and fsyncs
   * the directory, so a reader (and a restart after a machine crash) sees the old or the new content, never a torn
   * file.
   *
   * @param dir the directory holding the file; {@code name + ".tmp"} in it is overwritten
   * @param name the file's name in {@code dir}
   * @param bytes the file's whole new content
   * @throws StoreException if the file cannot be written (not retryable for no space, read-only, permission)
   */
  public static void writeAtomically(Path dir, String name, byte[] bytes) {
    Path file = dir.resolve(name);
    Path tmp = dir.resolve(name + ".tmp");
    try {
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
          StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
      }
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw new StoreException("the file system of " + dir + " cannot rename atomically; the RocksDB store needs "
            + "it (use a local file system)", e, false, ErrorContext.NONE);
      }
      fsyncDirectory(dir);
    } catch (IOException e) {
      throw io("cannot write " + file, e);
    }
  }

  /** Makes a rename in {@code dir} durable (Linux: fsync of the directory). */
  static void fsyncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // Some file systems refuse to open a directory for reading; the rename is still atomic there.
      if (!(e instanceof AccessDeniedException) && !(e instanceof FileSystemException fs
          && String.valueOf(fs.getReason()).contains("Is a directory"))
          && !(e.getMessage() != null && e.getMessage().contains("Is a directory"))) {
        throw e;
      }
    }
  }
}
