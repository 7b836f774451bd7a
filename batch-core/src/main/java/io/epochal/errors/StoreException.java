package io.epochal.errors;

import io.epochal.api.Stable;

/**
 * A store could not be read or written (I/O error, unreachable service, schema or format mismatch). The message
 * names the store and, where known, the table, key and txid; so does {@link #context()}. Wraps the store's native
 * exception.
 *
 * <p>Retryable unless constructed otherwise or the cause is an I/O failure no retry fixes (see
 * {@link #io(String, Throwable)}): an unreachable service or a timed-out request may succeed when replayed.
 *
 * @since 0.1.0
 */
@Stable
public class StoreException extends EpochalException {
  private static final long serialVersionUID = 1L;

  /**
   * A retryable store failure without context.
   *
   * @param message what the store was doing, naming the store and table
   */
  public StoreException(String message) {
    this(message, null, true, ErrorContext.NONE);
  }

  /**
   * A store failure without context, retryable unless {@code cause} is an I/O failure no retry fixes.
   *
   * @param message what the store was doing, naming the store and table
   * @param cause the native failure, or null (then retryable)
   */
  public StoreException(String message, Throwable cause) {
    this(message, cause, IoFailures.unfixable(cause) == null, ErrorContext.NONE);
  }

  /**
   * A store failure with explicit retryability and context.
   *
   * @param message what the store was doing, naming the store and table
   * @param cause the native failure, or null
   * @param retryable whether replaying the batch can succeed
   * @param context where it happened
   */
  public StoreException(String message, Throwable cause, boolean retryable, ErrorContext context) {
    super(message, cause, retryable, context);
  }

  /**
   * A store failure from an I/O error: not retryable, with what to do appended to the message, when the cause chain
   * says no space left on device, a read-only file system, a disk quota or permission denied; retryable otherwise.
   *
   * @param message what the store was doing, naming the store and table
   * @param cause the native failure
   * @return the exception to throw, without context
   */
  public static StoreException io(String message, Throwable cause) {
    return io(message, cause, ErrorContext.NONE);
  }

  /**
   * Like {@link #io(String, Throwable)}, with context.
   *
   * @param message what the store or the pipeline was doing
   * @param cause the native failure
   * @param context where it happened
   * @return the exception to throw, carrying {@code context}
   */
  public static StoreException io(String message, Throwable cause, ErrorContext context) {
    String[] unfixable = IoFailures.unfixable(cause);
    if (unfixable == null) {
      return new StoreException(message + ": " + cause, cause, true, context);
    }
    return new StoreException(message + ": " + unfixable[0] + ". No retry can fix this: " + unfixable[1] + ".",
        cause, false, context);
  }

  /**
   * Whether a failure is an I/O failure that no retry fixes.
   *
   * @param failure the failure, or null
   * @return true if {@code failure}'s cause chain holds an I/O failure no retry fixes (see {@link #io}); false if
   *     not, or if {@code failure} is null
   */
  public static boolean isUnfixableIo(Throwable failure) {
    return failure != null && IoFailures.unfixable(failure) != null;
  }
}
