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

  /**
   * The command that failed.
   *
   * @return the API v4 command, e.g. {@code insert_rows}
   */
  public String command() {
    return command;
  }

  /**
   * The proxy the failed request was sent to.
   *
   * @return the proxy, {@code host:port}
   */
  public String proxy() {
    return proxy;
  }

  /**
   * The correlation id of the failed request, to find it in the proxy's logs.
   *
   * @return the {@code X-YT-Correlation-Id} sent
   */
  public String correlationId() {
    return correlationId;
  }

  /**
   * The HTTP status of the answer.
   *
   * @return the HTTP status, or 0 if no response arrived
   */
  public int httpStatus() {
    return httpStatus;
  }

  /**
   * The error tree YTsaurus returned.
   *
   * @return the error, empty for a transport failure (and after deserialization: it is not serialized)
   */
  public Optional<YtError> error() {
    return Optional.ofNullable(error);
  }

  /**
   * Tells whether YTsaurus returned an error tree holding a code.
   *
   * @param code an error code
   * @return whether the error tree contains {@code code} anywhere
   */
  public boolean hasCode(int code) {
    return error != null && error.contains(code);
  }
}
