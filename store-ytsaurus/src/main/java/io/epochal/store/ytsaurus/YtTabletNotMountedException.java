package io.epochal.store.ytsaurus;

import io.epochal.api.Evolving;

/**
 * A tablet of the table is not mounted (code 1702) and stayed so through the retries: the table was unmounted,
 * frozen or is being remounted. Mount it ({@code yt mount-table}) or wait; the epoch did not commit.
 *
 * @since 0.1.0
 */
@Evolving
public final class YtTabletNotMountedException extends YtException {
  private static final long serialVersionUID = 1L;

  /**
   * Makes the error for a tablet that stayed unmounted through the retries.
   *
   * @param message what happened
   * @param command the command
   * @param proxy the proxy
   * @param correlationId the correlation id
   * @param httpStatus the HTTP status
   * @param error the error
   */
  public YtTabletNotMountedException(String message, String command, String proxy, String correlationId,
      int httpStatus, YtError error) {
    super(message, command, proxy, correlationId, httpStatus, error, null);
  }
}
