package io.epochal.errors;

/**
 * A store transaction could not commit because an overlapping transaction wrote the same row first.
 * Nothing of the failed transaction is visible; the batch is replayed.
 */
public final class CommitConflictException extends EpochalException {
  private static final long serialVersionUID = 1L;

  public CommitConflictException(String message) {
    super(message);
  }
}
