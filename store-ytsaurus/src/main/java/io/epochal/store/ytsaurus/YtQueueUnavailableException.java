package io.epochal.store.ytsaurus;

import io.epochal.api.Evolving;

/**
 * The YTsaurus proxy did not answer a queue spout's request after the client's own retries (connection refused or
 * reset, a timeout, HTTP 503). Names what the spout was doing, the queue and the partition; the last
 * {@link YtException} is the cause. Retryable: the engine replays the batch after its retry policy's backoff and
 * stops with {@link io.epochal.errors.BatchFailedException} once the policy is exhausted, so a dead proxy stops the
 * pipeline after about {@code maxAttempts x (client retries x requestTimeout + backoff)}.
 *
 * @since 0.4.0
 */
@Evolving
public final class YtQueueUnavailableException extends YtQueueException {
  private static final long serialVersionUID = 1L;

  /**
   * Makes the retryable error for a proxy that did not answer after the client's retries.
   *
   * @param message what the spout was doing
   * @param cause the client's last failure
   * @param spout the spout's name
   * @param queue the queue
   * @param partition the tablet index, or -1
   * @param txid the batch's txid, or 0
   */
  public YtQueueUnavailableException(String message, Throwable cause, String spout, String queue, int partition,
      long txid) {
    super(message, cause, true, spout, queue, partition, -1, txid, null);
  }
}
