package io.epochal.errors;

import io.epochal.api.Stable;

/**
 * A record, key or value that the pipeline cannot process: a null key, a null record, a null field required by an
 * operation, a key without value equality (an array) or without a faithful encoding (a string with an unpaired
 * surrogate), an aggregator, reducer or updater that returned null or overflowed. Never dropped silently; the batch
 * fails with this error and is not retried (the same input gives the same failure). {@link #context()} names the
 * pipeline, the state, the key and the txid as far as known where it was thrown.
 *
 * @since 0.1.0
 */
@Stable
public final class InvalidRecordException extends EpochalException {
  private static final long serialVersionUID = 1L;

  /**
   * A non-retryable error without context.
   *
   * @param message what is wrong and what to do
   */
  public InvalidRecordException(String message) {
    super(message);
  }

  /**
   * A non-retryable error with context.
   *
   * @param message what is wrong and what to do
   * @param cause the underlying failure (e.g. an {@link ArithmeticException}), or null
   * @param context the pipeline, state, key and txid concerned
   */
  public InvalidRecordException(String message, Throwable cause, ErrorContext context) {
    super(message, cause, false, context);
  }
}
