package io.epochal.errors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Retryability is a property of the error (issue 10, finding 11); a known txid is never reported unknown (12). */
class ErrorsTest {

  @Test
  void shouldTellRetryableFromUnfixableFailures() {
    assertTrue(EpochalException.isRetryable(new IllegalStateException("user code")));
    assertTrue(EpochalException.isRetryable(new StoreException("timeout")));
    assertTrue(EpochalException.isRetryable(new CommitConflictException("conflict")));
    assertFalse(EpochalException.isRetryable(new InvalidRecordException("null key")));
    assertFalse(EpochalException.isRetryable(new LeaseLostException("fenced")));
    assertFalse(EpochalException.isRetryable(new SourceChangedException("truncated")));
    assertFalse(EpochalException.isRetryable(new StateAheadException("t", "k", 5, 3)));
    assertFalse(EpochalException.isRetryable(new AssertionError("crash")));
    assertFalse(EpochalException.isRetryable(new ArithmeticException("long overflow")));
    assertFalse(EpochalException.isRetryable(
        new RuntimeException(new UncheckedIOException(new IOException("No space left on device")))));
    assertFalse(EpochalException.isRetryable(new StoreException("write failed",
        new IOException("Read-only file system"))), "a retryable type around an unfixable cause");
    assertTrue(StoreException.isUnfixableIo(new IOException("x: Disk quota exceeded")));
    assertFalse(StoreException.isUnfixableIo(new IOException("Connection reset")));
  }

  /** Stores wrap their native error with initCause after construction (the YTsaurus client does). */
  @Test
  void shouldLeaveANullCauseSettable() {
    java.io.IOException nativeError = new java.io.IOException("row lock conflict");
    CommitConflictException conflict = new CommitConflictException("conflict");
    conflict.initCause(nativeError);
    assertEquals(nativeError, conflict.getCause());
    LeaseLostException lost = new LeaseLostException("fenced");
    lost.initCause(nativeError);
    assertEquals(nativeError, lost.getCause());
    assertEquals(nativeError, new StoreException("x", nativeError).getCause());
  }

  @Test
  void shouldRecordAKnownTxidInTheContext() {
    assertEquals(OptionalLong.of(12), new StateCorruptedException("t", "k", "12", null).context().txid());
    assertEquals(OptionalLong.empty(), new StateCorruptedException("t", "k", "unknown", null).context().txid());
    StateCorruptedException note = new StateCorruptedException("t", "k", "no txid column; read in epoch 7",
        OptionalLong.of(7), new IllegalStateException("bad"));
    assertEquals(OptionalLong.of(7), note.context().txid());
    assertTrue(note.getMessage().contains("no txid column; read in epoch 7"), note.getMessage());
  }
}
