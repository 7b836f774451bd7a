package io.epochal.errors;

import io.epochal.api.Stable;

/**
 * A store transaction could not commit because an overlapping transaction wrote the same row first.
 * Nothing of the failed transaction is visible; the batch is replayed.
 *
 * @since 0.1.0
 */
@Stable
public final class CommitConflictException extends EpochalException {
  private static final long serialVersionUID = 1L;

  /**
   * A retryable conflict: the replay reads the other transaction's writes and can commit.
   *
   * @param message which store transaction conflicted, and on what
   */
  public CommitConflictException(String message) {
    super(message, null, true, ErrorContext.NONE);
  }

  /**
   * A retryable conflict on {@code table}, {@code key}.
   *
   * @param message which store transaction conflicted, and on what
   * @param table the path of the table of the conflicting row, or null if unknown
   * @param key the key of the conflicting row, or null if unknown (kept as {@code String.valueOf(key)})
   */
  public CommitConflictException(String message, String table, Object key) {
    super(message, null, true, ErrorContext.of(table, key));
  }
}
