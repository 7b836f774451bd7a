package io.epochal.store.ytsaurus;

import io.epochal.api.Evolving;
import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * A YTsaurus queue spout ({@link YtQueueSpouts}) could not cut or emit a batch, or an epoch commit could not advance
 * its queue consumer. Names the spout, the queue and, as far as known, the partition (tablet index), the offset and
 * the txid; {@link #context()} carries the queue path as table, {@code partition} or {@code partition@offset} as key,
 * and the txid (and the pipeline, where known).
 *
 * <p>Subtypes say what happened: {@link YtQueueRowDecodeException} (a row the decoder rejects; not retryable),
 * {@link YtQueueTrimmedException} (rows to read were trimmed; not retryable), {@link YtQueueUnavailableException}
 * (the proxy did not answer after the client's retries; retryable, so the engine replays with backoff and stops with
 * {@link io.epochal.errors.BatchFailedException} once its retry policy is exhausted) and
 * {@link YtConsumerOffsetMismatchException} (another writer advanced the consumer; not retryable). This class itself
 * is used for other failures, retryable as the underlying {@link YtException} is (a missing queue, refused
 * credentials: no; a server-side error: yes).
 *
 * <p>Immutable; safe to pass between threads.
 *
 * @since 0.4.0
 */
@Evolving
public sealed class YtQueueException extends EpochalException permits YtQueueRowDecodeException,
    YtQueueTrimmedException, YtQueueUnavailableException, YtConsumerOffsetMismatchException {
  private static final long serialVersionUID = 1L;

  /** The spout's name, {@code null} when a store commit failed. */
  private final String spout;
  /** The queue's Cypress path. */
  private final String queue;
  /** The tablet index, {@code -1} if none applies. */
  private final int partition;
  /** The row offset, {@code -1} if none applies. */
  private final long offset;

  /**
   * Makes the error; its context names the queue as table, {@code partition@offset} as key, the txid and the
   * pipeline, as far as they are given.
   *
   * @param message what happened and what to do
   * @param cause the underlying failure, or {@code null}
   * @param retryable whether replaying the batch can succeed
   * @param spout the spout's name (or {@code null} when a store commit failed)
   * @param queue the queue's Cypress path
   * @param partition the tablet index, or {@code -1} if none applies
   * @param offset the row offset, or {@code -1} if none applies
   * @param txid the batch's txid, or {@code 0} if unknown
   * @param pipeline the pipeline, or {@code null} if unknown
   */
  public YtQueueException(String message, Throwable cause, boolean retryable, String spout, String queue,
      int partition, long offset, long txid, String pipeline) {
    super(message, cause, retryable, context(queue, partition, offset, txid, pipeline));
    this.spout = spout;
    this.queue = queue;
    this.partition = partition;
    this.offset = offset;
  }

  private static ErrorContext context(String queue, int partition, long offset, long txid, String pipeline) {
    String key = partition < 0 ? null : offset < 0 ? Integer.toString(partition) : partition + "@" + offset;
    ErrorContext c = ErrorContext.of(queue, key);
    c = txid > 0 ? c.withTxid(txid) : c;
    return pipeline == null ? c : c.withPipeline(pipeline);
  }

  /**
   * The spout that failed.
   *
   * @return the spout's name, empty when the failure arose in a store commit
   */
  public Optional<String> spout() {
    return Optional.ofNullable(spout);
  }

  /**
   * The queue the failure concerns.
   *
   * @return the queue's Cypress path
   */
  public String queue() {
    return queue;
  }

  /**
   * The partition the failure concerns.
   *
   * @return the tablet index, empty if the failure concerns none
   */
  public OptionalInt partition() {
    return partition < 0 ? OptionalInt.empty() : OptionalInt.of(partition);
  }

  /**
   * The row offset the failure concerns.
   *
   * @return the offset, empty if the failure concerns none
   */
  public OptionalLong offset() {
    return offset < 0 ? OptionalLong.empty() : OptionalLong.of(offset);
  }
}
