package io.epochal.errors;

import io.epochal.api.Stable;
import java.util.Objects;

/**
 * Base of every exception Epochal throws for a detected protocol, data, configuration or environment problem.
 *
 * <p>Each carries an {@link ErrorContext} (pipeline, table, key, txid, as far as known where it was thrown) and a
 * {@linkplain #retryable() retryable} flag: whether replaying the same batch can succeed (an unreachable store, a
 * write-write conflict) or cannot (corrupt bytes, a state ahead of the coordinator, a full disk, a lost lease). The
 * engine replays a failed batch only when {@link #isRetryable(Throwable)} says so; a non-retryable error stops the
 * pipeline at its first occurrence. Retryability is a property of the error's type and construction, never of a list
 * kept elsewhere.
 *
 * <p>Unchecked. Immutable once thrown; safe to pass between threads.
 *
 * @since 0.1.0
 */
@Stable
public class EpochalException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Whether replaying the failed batch can succeed; fixed at construction. */
  private final boolean retryable;
  /** The pipeline, table, key and txid concerned, as far as known where the error was thrown; never null. */
  private final ErrorContext context;

  /**
   * A non-retryable error without context.
   *
   * @param message what happened and what to do
   */
  public EpochalException(String message) {
    this(message, null, false, ErrorContext.NONE);
  }

  /**
   * A non-retryable error without context, caused by another failure.
   *
   * @param message what happened and what to do
   * @param cause the underlying failure, or null
   */
  public EpochalException(String message, Throwable cause) {
    this(message, cause, false, ErrorContext.NONE);
  }

  /**
   * An error with explicit retryability and context.
   *
   * @param message what happened and what to do
   * @param cause the underlying failure, or null
   * @param retryable whether replaying the batch can succeed
   * @param context where it happened
   */
  public EpochalException(String message, Throwable cause, boolean retryable, ErrorContext context) {
    super(message);
    if (cause != null) {
      initCause(cause); // without a cause, initCause stays possible (stores attach their native failure later)
    }
    this.retryable = retryable;
    this.context = Objects.requireNonNull(context, "context");
  }

  /** @return true if replaying the failed batch (after a backoff) can succeed; false if no retry can fix it */
  public boolean retryable() {
    return retryable;
  }

  /** @return the pipeline, table, key and txid concerned, as far as known */
  public ErrorContext context() {
    return context;
  }

  /**
   * Whether a failure may be retried. {@link Error}s never; an {@link EpochalException} (the outermost one in the
   * cause chain) as its {@link #retryable()} says; an {@link ArithmeticException} (an overflow, a division by zero:
   * the same input gives the same failure) never; an I/O failure that no retry fixes (no space left on device, a
   * read-only file system, a disk quota, permission denied), found anywhere in the cause chain, never; anything else
   * (an exception of user code, a network timeout) may be.
   *
   * @param failure the failure, not null
   * @return true if replaying the failed batch may succeed, false if no retry can fix {@code failure}
   * @throws NullPointerException if {@code failure} is null
   */
  public static boolean isRetryable(Throwable failure) {
    Objects.requireNonNull(failure, "failure");
    int depth = 0;
    for (Throwable t = failure; t != null && depth < 32; t = t.getCause(), depth++) {
      if (t instanceof Error) {
        return false;
      }
      if (t instanceof EpochalException e) {
        return e.retryable() && IoFailures.unfixable(t) == null;
      }
      if (t instanceof ArithmeticException) {
        return false;
      }
    }
    return IoFailures.unfixable(failure) == null;
  }
}
