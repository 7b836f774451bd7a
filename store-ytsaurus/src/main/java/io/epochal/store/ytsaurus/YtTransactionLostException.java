package io.epochal.store.ytsaurus;

import io.epochal.api.Evolving;

/**
 * The tablet transaction of an epoch is gone before it committed: the HTTP proxy that holds it (its sticky pool)
 * answered 11000 ("no such transaction" / "sticky transaction is not found"), a request landed on a different proxy
 * (checked through {@code X-YT-Proxy}), or the pinned proxy could not be reached. Nothing of the epoch was written
 * (tablet writes are buffered in the proxy until commit); the epoch is replayed on a freshly pinned proxy.
 *
 * @since 0.1.0
 */
@Evolving
public final class YtTransactionLostException extends YtException {
  private static final long serialVersionUID = 1L;

  /**
   * Makes the error for a tablet transaction lost before its commit.
   *
   * @param message what happened
   * @param command the command
   * @param proxy the pinned proxy
   * @param correlationId the correlation id
   * @param httpStatus the HTTP status or 0
   * @param error the error or {@code null}
   * @param cause the cause or {@code null}
   */
  public YtTransactionLostException(String message, String command, String proxy, String correlationId,
      int httpStatus, YtError error, Throwable cause) {
    super(message, command, proxy, correlationId, httpStatus, error, cause);
  }
}
