package io.epochal.store.ytsaurus;

import io.epochal.api.Evolving;

/**
 * Rows the spout must read were trimmed from the queue ({@code trim_rows}, or the queue agent's automatic trimming)
 * before the pipeline committed them: a read at {@link #offset()} of a partition returned rows starting at
 * {@link #firstAvailable()} (or none at all, when everything up to the range's end is gone). Under
 * {@link YtTrimmedRowsPolicy#FAIL} (the default, the only policy that keeps exactly-once) this stops the pipeline:
 * the rows cannot be counted. Not retryable.
 *
 * <p>Typical causes: the pipeline's consumer is not registered as vital for the queue (so the queue agent does not
 * wait for it), or another consumer's progress drives an explicit trim.
 *
 * @since 0.4.0
 */
@Evolving
public final class YtQueueTrimmedException extends YtQueueException {
  private static final long serialVersionUID = 1L;

  /** The first offset still readable, {@code -1} if the read returned nothing. */
  private final long firstAvailable;

  /**
   * Makes the non-retryable error for rows trimmed from a queue before the pipeline committed them.
   *
   * @param spout the spout's name
   * @param queue the queue
   * @param partition the tablet index
   * @param offset the offset the spout had to read from
   * @param firstAvailable the first offset still readable, or {@code -1} if the read returned nothing
   * @param txid the batch's txid
   */
  public YtQueueTrimmedException(String spout, String queue, int partition, long offset, long firstAvailable,
      long txid) {
    super("YTsaurus queue spout '" + spout + "': rows of partition " + partition + " of " + queue + " from offset "
        + offset + (firstAvailable >= 0 ? " up to " + firstAvailable : "") + " were trimmed before the pipeline "
        + "committed them (txid " + txid + "). They cannot be counted: register the pipeline's consumer as vital, "
        + "or accept the loss with YtTrimmedRowsPolicy.SKIP (not exactly-once).", null, false, spout, queue,
        partition, offset, txid, null);
    this.firstAvailable = firstAvailable;
  }

  /**
   * The first offset still readable in the partition.
   *
   * @return the first offset the read returned, or {@code -1} if it returned no row
   */
  public long firstAvailable() {
    return firstAvailable;
  }
}
