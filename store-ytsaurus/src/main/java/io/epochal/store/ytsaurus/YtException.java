package io.epochal.store.ytsaurus;

import io.epochal.api.Evolving;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.StoreException;
import java.util.Optional;

/**
 * A YTsaurus HTTP proxy call failed. The message names the command, the proxy, the correlation id sent in
 * {@code X-YT-Correlation-Id} (search the proxy logs for it) and the parsed {@link YtError} tree.
 *
 * <p>Failures with a specific meaning for the epoch protocol have their own types: {@link YtTransactionLostException}
 * (sticky tablet transaction lost: the epoch did not commit), {@link YtTabletNotMountedException} (code 1702) and
 * {@link YtCommitOutcomeUnknownException} (the commit reply was lost). A row conflict (1700) surfaces as
 * {@link io.epochal.errors.CommitConflictException} and a failed prerequisite (1000) as
 * {@link io.epochal.errors.LeaseLostException}, each with a {@code YtException} as its cause.
 *
 * <p><b>Retryable</b> ({@link #retryable()}) unless YTsaurus refused the credentials or the permission (HTTP 401 or
 * 403, or code {@value YtError#AUTHORIZATION_ERROR} anywhere in the error tree) or named a node that does not exist
 * (code {@value YtError#RESOLVE_ERROR}: a table or lease node removed under the store): no replay fixes those. An
 * unreachable proxy, a timeout, a lost tablet transaction, an unmounted tablet, a commit with an unknown outcome and an
 * answer cut off in transit are retryable.
 *
 * <p>Immutable; safe to share between threads.
 *
 * @since 0.1.0
 */
@Evolving
public class YtException extends StoreException {
  private static final long serialVersionUID = 1L;

  /** The API v4 command that failed. */
  private final String command;
  /** The proxy the request was sent to. */
  private final String proxy;
  /** The {@code X-YT-Correlation-Id} of the request. */
  private final String correlationId;
  /** The HTTP status, 0 if no response arrived. */
  private final int httpStatus;
  private final transient YtError error;

  /**
   * Makes the error; whether it is retryable follows from the HTTP status and the YTsaurus error codes.
   *
   * @param message what failed, in words
   * @param command the API v4 command, e.g. {@code insert_rows}
   * @param proxy the proxy the request was sent to ({@code host:port})
   * @param correlationId the {@code X-YT-Correlation-Id} of the request
   * @param httpStatus the HTTP status, or 0 if no response arrived
   * @param error the parsed error, or {@code null} if none was returned (transport failure)
   * @param cause the underlying exception, or {@code null}
   */
  public YtException(String message, String command, String proxy, String correlationId, int httpStatus,
      YtError error, Throwable cause) {
    super(message + " [command " + command + ", proxy " + proxy + ", correlation id " + correlationId
        + (httpStatus > 0 ? ", HTTP " + httpStatus : ", no HTTP response") + "]"
        + (error == null ? "" : ": " + error), cause, retryable(httpStatus, error), ErrorContext.NONE);
    this.command = command;
    this.proxy = proxy;
    this.correlationId = correlationId;
    this.httpStatus = httpStatus;
    this.error = error;
  }

  /**
   * @param httpStatus the HTTP status, or 0
   * @param error the error, or {@code null}
   * @return whether a replay can succeed after such a failure (see the class documentation)
   */
  static boolean retryable(int httpStatus, YtError error) {
    if (httpStatus == 401 || httpStatus == 403) {
      return false;
    }
    return error == null || !(error.contains(YtError.AUTHORIZATION_ERROR) || error.contains(YtError.RESOLVE_ERROR));
  }

  /** @return the API v4 command that failed */
  public String command() {
    return command;
  }

  /** @return the proxy ({@code host:port}) the request was sent to */
  public String proxy() {
    return proxy;
  }

  /** @return the {@code X-YT-Correlation-Id} of the failed request */
  public String correlationId() {
    return correlationId;
  }

  /** @return the HTTP status, or 0 if no response arrived */
  public int httpStatus() {
    return httpStatus;
  }

  /** @return the error YTsaurus returned, empty for a transport failure */
  public Optional<YtError> error() {
    return Optional.ofNullable(error);
  }

  /**
   * @param code an error code
   * @return whether the error tree contains {@code code} anywhere
   */
  public boolean hasCode(int code) {
    return error != null && error.contains(code);
  }
}
