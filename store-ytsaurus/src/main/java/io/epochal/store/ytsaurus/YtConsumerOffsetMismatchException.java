package io.epochal.store.ytsaurus;

import io.epochal.api.Evolving;

/**
 * An epoch commit could not advance the pipeline's YTsaurus queue consumer: {@code advance_queue_consumer} with
 * {@code old_offset} found the consumer's offset of the partition at {@link #foundOffset()} instead of
 * {@link #expectedOffset()} (YTsaurus error 3100, {@code ConsumerOffsetConflict}). Something else advanced (or reset)
 * the consumer: another pipeline, a tool, an operator. The epoch's tablet transaction is aborted, so neither the
 * states nor the checkpoint nor the consumer moved; the pipeline stops (not retryable) rather than skip or repeat
 * rows. Names pipeline, queue, consumer, partition and both offsets.
 *
 * <p>To go on: make sure one pipeline owns the consumer, then set the consumer back to the pipeline's committed
 * offset (the expected one) or start a new pipeline.
 *
 * @since 0.4.0
 */
@Evolving
public final class YtConsumerOffsetMismatchException extends YtQueueException {
  private static final long serialVersionUID = 1L;

  /** The consumer's Cypress path. */
  private final String consumer;
  /** The offset the pipeline's checkpoint says the consumer is at. */
  private final long expectedOffset;
  /** The offset YTsaurus found, {@code -1} if its error did not say. */
  private final long foundOffset;

  /**
   * Makes the non-retryable error for an {@code advance_queue_consumer} whose old offset YTsaurus did not find.
   *
   * @param pipeline the pipeline whose epoch commit failed
   * @param queue the queue
   * @param consumer the consumer's Cypress path
   * @param partition the tablet index
   * @param expectedOffset the offset the pipeline's checkpoint says the consumer is at (the advance's old offset)
   * @param foundOffset the offset YTsaurus found, or {@code -1} if its error did not say
   * @param newOffset the offset the advance was to set
   * @param txid the txid being committed
   * @param cause the YTsaurus error
   */
  public YtConsumerOffsetMismatchException(String pipeline, String queue, String consumer, int partition,
      long expectedOffset, long foundOffset, long newOffset, long txid, Throwable cause) {
    super("pipeline '" + pipeline + "': cannot advance queue consumer " + consumer + " of " + queue + ", partition "
        + partition + ", from offset " + expectedOffset + " to " + newOffset + " (txid " + txid + "): the consumer is at "
        + (foundOffset >= 0 ? "offset " + foundOffset : "another offset") + ". Another consumer or tool advanced it; "
        + "nothing was committed and no row is skipped or repeated. Give the consumer to one pipeline and set it "
        + "back to offset " + expectedOffset + ".", cause, false, null, queue, partition, expectedOffset, txid,
        pipeline);
    this.consumer = consumer;
    this.expectedOffset = expectedOffset;
    this.foundOffset = foundOffset;
  }

  /**
   * The queue consumer that could not be advanced.
   *
   * @return the consumer's Cypress path
   */
  public String consumer() {
    return consumer;
  }

  /**
   * The offset the advance expected the consumer at.
   *
   * @return the offset the pipeline expected (its committed end offset of the partition)
   */
  public long expectedOffset() {
    return expectedOffset;
  }

  /**
   * The offset the consumer was found at.
   *
   * @return the offset YTsaurus found, or {@code -1} if its error did not carry it
   */
  public long foundOffset() {
    return foundOffset;
  }
}
