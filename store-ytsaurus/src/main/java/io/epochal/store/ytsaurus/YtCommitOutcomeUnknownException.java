package io.epochal.store.ytsaurus;

import io.epochal.api.Evolving;

/**
 * The commit request was sent but no definite answer came back (connection dropped, proxy 5xx without a YTsaurus
 * error, timeout). YTsaurus has no way to ask whether a tablet commit happened; the epoch may or may not be
 * visible. Commits are never retried blindly: the caller re-reads its committed txid (the metadata row written in
 * the same transaction) and replays only if it is not there.
 *
 * @since 0.1.0
 */
@Evolving
public final class YtCommitOutcomeUnknownException extends YtException {
  private static final long serialVersionUID = 1L;

  /**
   * Makes the error for a commit request that got no definite answer.
   *
   * @param message what happened
   * @param command the command
   * @param proxy the proxy
   * @param correlationId the correlation id
   * @param httpStatus the HTTP status or 0
   * @param cause the cause or {@code null}
   */
  public YtCommitOutcomeUnknownException(String message, String command, String proxy, String correlationId,
      int httpStatus, Throwable cause) {
    super(message, command, proxy, correlationId, httpStatus, null, cause);
  }
}
