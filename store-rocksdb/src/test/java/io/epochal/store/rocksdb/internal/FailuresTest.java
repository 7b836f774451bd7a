package io.epochal.store.rocksdb.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.EpochalException;
import io.epochal.errors.StoreException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import org.junit.jupiter.api.Test;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;

/**
 * I/O and RocksDB failures become store errors that say whether a retry can help: the operating system's unfixable
 * errors and RocksDB corruption never are retryable, other I/O errors are.
 */
class FailuresTest {
  private static RocksDBException rocks(Status.Code code, String state) {
    return new RocksDBException(code + ": " + state, new Status(code, Status.SubCode.None, state));
  }

  private static void assertNotRetryable(StoreException e) {
    assertFalse(e.retryable(), e::getMessage);
    assertFalse(EpochalException.isRetryable(e), e::getMessage);
  }

  @Test
  void shouldNeverRetryRocksDbErrorsOfAFullOrReadOnlyDiskNorCorruption() {
    StoreException full = Failures.rocks("commit to /s failed", rocks(Status.Code.IOError,
        "While appending to file: /s/db/000012.log: No space left on device"));
    assertNotRetryable(full);
    assertTrue(full.getMessage().contains("free disk space"), full.getMessage());
    assertNotRetryable(Failures.rocks("open", rocks(Status.Code.IOError,
        "While open a file for appending: /s/db/LOCK: Read-only file system")));
    StoreException corrupt = Failures.rocks("lookup", rocks(Status.Code.Corruption, "block checksum mismatch"));
    assertNotRetryable(corrupt);
    assertTrue(corrupt.getMessage().contains("restore"), corrupt.getMessage());
    assertTrue(Failures.rocks("lookup", rocks(Status.Code.TimedOut, "lock timeout")).retryable());
    assertTrue(Failures.rocks("lookup", rocks(Status.Code.IOError, "Resource temporarily unavailable"))
        .retryable());
  }

  @Test
  void shouldNeverRetryFileErrorsOfAReadOnlyFileSystemOrMissingPermission() {
    assertNotRetryable(Failures.io("cannot write /s/LEASE", new FileSystemException("/s/LEASE.tmp", null,
        "Read-only file system")));
    StoreException denied = Failures.io("cannot write /s/LEASE", new AccessDeniedException("/s/LEASE.tmp"));
    assertNotRetryable(denied);
    assertTrue(denied.getMessage().contains("Permission denied") && denied.getMessage().contains("/s/LEASE.tmp"),
        denied.getMessage());
    assertNotRetryable(Failures.io("x", new IOException("No space left on device")));
    assertTrue(Failures.io("x", new IOException("Connection reset")).retryable());
  }
}
