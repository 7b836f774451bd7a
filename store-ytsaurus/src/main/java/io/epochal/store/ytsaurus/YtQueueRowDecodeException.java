package io.epochal.store.ytsaurus;

import io.epochal.api.Evolving;

/**
 * A queue row could not be decoded: its {@link YtRowDecoder} threw (or returned {@code null}), or the row's columns do
 * not fit what the decoder asked for. Names queue, partition and offset; the decoder's exception is the cause. Not
 * retryable: the same row fails again, so the pipeline stops at the first occurrence and never skips the row. Nothing
 * of the partition's batch is emitted.
 *
 * @since 0.4.0
 */
@Evolving
public final class YtQueueRowDecodeException extends YtQueueException {
  private static final long serialVersionUID = 1L;

  /**
   * Makes the non-retryable error for a row its decoder rejected.
   *
   * @param spout the spout's name
   * @param queue the queue
   * @param partition the tablet index
   * @param offset the row's offset
   * @param txid the batch's txid
   * @param cause the decoder's failure
   */
  public YtQueueRowDecodeException(String spout, String queue, int partition, long offset, long txid,
      Throwable cause) {
    super("YTsaurus queue spout '" + spout + "': cannot decode the row at offset " + offset + " of partition "
        + partition + " of " + queue + " (txid " + txid + "): " + cause + ". The row is not skipped; fix the decoder "
        + "or the data.", cause, false, spout, queue, partition, offset, txid, null);
  }
}
