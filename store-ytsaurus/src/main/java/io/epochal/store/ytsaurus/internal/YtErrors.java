package io.epochal.store.ytsaurus.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.epochal.errors.CommitConflictException;
import io.epochal.errors.LeaseLostException;
import io.epochal.store.ytsaurus.YtError;
import io.epochal.store.ytsaurus.YtException;
import io.epochal.store.ytsaurus.YtTabletNotMountedException;
import io.epochal.store.ytsaurus.YtTransactionLostException;
import io.epochal.store.ytsaurus.internal.YtHttpClient.Call;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Error decoding of {@link YtHttpClient}: the YTsaurus error of an answer ({@code X-YT-Error}, else an error document
 * in the body, else {@code X-YT-Response-Code}), whether a retry may succeed, and the exception the store throws for
 * an error tree. Stateless and thread-safe.
 */
final class YtErrors {
  /** Codes after which a retry of the same call (before commit) may succeed. */
  static final Set<Integer> RETRYABLE_CODES = Set.of(YtError.TRANSPORT_ERROR, YtError.NO_SUCH_SERVICE,
      YtError.UNAVAILABLE, YtError.REQUEST_QUEUE_SIZE_LIMIT_EXCEEDED, YtError.REQUEST_RATE_LIMIT_EXCEEDED,
      YtError.NO_SUCH_TABLET, YtError.TABLET_NOT_MOUNTED, YtError.INVALID_MOUNT_REVISION, YtError.ROW_IS_BLOCKED,
      YtError.BLOCKED_ROW_WAIT_TIMEOUT, YtError.NO_SUCH_CELL, YtError.CHUNK_IS_NOT_PRELOADED, YtError.TIMEOUT);

  /** Codes that make a call fail for good, whatever else the tree contains. */
  static final Set<Integer> FINAL_CODES = Set.of(YtError.PREREQUISITE_CHECK_FAILED,
      YtError.TRANSACTION_LOCK_CONFLICT, YtError.NO_SUCH_TRANSACTION, YtError.INVALID_TRANSACTION_STATE,
      YtError.AUTHORIZATION_ERROR, YtError.RESOLVE_ERROR, YtError.ALREADY_EXISTS,
      YtError.CONCURRENT_TRANSACTION_LOCK_CONFLICT);

  private YtErrors() {
  }

  static YtError extractError(HttpResponse<byte[]> response) {
    Optional<String> header = response.headers().firstValue("X-YT-Error");
    if (header.isPresent()) {
      try {
        return YtJson.parseError(YtJson.read(header.get()));
      } catch (IOException | RuntimeException e) {
        int code = response.headers().firstValue("X-YT-Response-Code").map(YtErrors::parseIntOr1).orElse(1);
        return YtError.of(code, response.headers().firstValue("X-YT-Response-Message").orElse(header.get()));
      }
    }
    if (response.statusCode() / 100 != 2 && response.body().length > 0) {
      try {
        JsonNode body = YtJson.read(response.body());
        if (body.isObject() && body.has("code") && body.has("message")) {
          return YtJson.parseError(body);
        }
      } catch (IOException | RuntimeException e) {
        // not an error document
      }
    }
    Optional<String> code = response.headers().firstValue("X-YT-Response-Code");
    if (code.isPresent() && parseIntOr1(code.get()) != 0) {
      return YtError.of(parseIntOr1(code.get()),
          response.headers().firstValue("X-YT-Response-Message").orElse("(no message)"));
    }
    return null;
  }

  private static int parseIntOr1(String s) {
    try {
      return Integer.parseInt(s.trim());
    } catch (NumberFormatException e) {
      return 1;
    }
  }

  /**
   * @param error an error tree
   * @return whether retrying the same call may succeed: some code in the tree is retryable and none is final
   */
  static boolean isRetryable(YtError error) {
    List<Integer> codes = error.allCodes();
    return codes.stream().noneMatch(FINAL_CODES::contains) && codes.stream().anyMatch(RETRYABLE_CODES::contains);
  }

  /**
   * Maps an error tree to the exception the store throws, by the first of these codes found anywhere in the tree:
   * 1000 (prerequisite check failed) → {@link LeaseLostException}; 1700 (row lock conflict) →
   * {@link CommitConflictException}; 11000 (no such / lost sticky transaction) → {@link YtTransactionLostException};
   * 1702 (tablet not mounted) → {@link YtTabletNotMountedException}; anything else → {@link YtException}. The
   * first two carry a {@link YtException} as their cause. 1000 wins over 11000 because a failed prerequisite names
   * the missing lease transaction with an inner 11000.
   *
   * @param call the call
   * @param correlationId its correlation id
   * @param status the HTTP status
   * @param error the error
   * @return the exception to throw
   */
  static RuntimeException toException(Call call, String correlationId, int status, YtError error) {
    String command = call.command().wireName();
    String proxy = call.proxy();
    if (error.contains(YtError.PREREQUISITE_CHECK_FAILED)) {
      YtException cause = new YtException("prerequisite check failed", command, proxy, correlationId, status,
          error, null);
      LeaseLostException e = new LeaseLostException("YTsaurus refused " + command + ": the lease (prerequisite "
          + "master transaction) is gone, so this writer is fenced off and nothing was committed: " + error);
      e.initCause(cause);
      return e;
    }
    if (error.contains(YtError.TRANSACTION_LOCK_CONFLICT)) {
      YtException cause = new YtException("row lock conflict", command, proxy, correlationId, status, error, null);
      CommitConflictException e = new CommitConflictException("YTsaurus " + command + " failed with a row lock "
          + "conflict (1700): an overlapping transaction wrote the same row first; nothing was committed: "
          + error.find(YtError.TRANSACTION_LOCK_CONFLICT).map(YtError::message).orElse(""));
      e.initCause(cause);
      return e;
    }
    if (error.contains(YtError.NO_SUCH_TRANSACTION)) {
      return new YtTransactionLostException("the transaction is unknown to the proxy (11000: expired, aborted, or "
          + "a sticky tablet transaction used through another proxy); nothing was committed", command, proxy,
          correlationId, status, error, null);
    }
    if (error.contains(YtError.TABLET_NOT_MOUNTED)) {
      return new YtTabletNotMountedException("tablet not mounted", command, proxy, correlationId, status, error);
    }
    return new YtException(command + " failed", command, proxy, correlationId, status, error, null);
  }

  static YtException failure(Call call, String correlationId, int status, YtError error, String message,
      Throwable cause) {
    return new YtException(message, call.command().wireName(), call.proxy(), correlationId, status, error, cause);
  }
}
