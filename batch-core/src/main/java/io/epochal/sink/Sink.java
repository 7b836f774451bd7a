package io.epochal.sink;

import io.epochal.state.Epoch;
import java.util.List;

/**
 * An output of a pipeline: a node at the end of a stream ({@code stream.to(name, sink)}) whose records become visible
 * only once their batch's epoch committed. Per batch attempt, in the commit phase: {@link #stage} with the batch's
 * records (every txid, also an empty batch), then either {@link #afterCommit} once the epoch is durable (publish what
 * was staged) or {@link #abort} when the attempt failed (drop it; the batch is replayed and staged again).
 *
 * <p>A sink that writes a table of the pipeline's table store stages its rows in the epoch
 * ({@code epoch.staging(EpochBuffer.class)}), so they commit inside the epoch; an external exactly-once sink (a Kafka
 * transactional outbox) stages its records under the txid and publishes them in {@link #afterCommit}, deduplicating
 * by txid after a restart. Partitions of a batch are staged in parallel through {@link PartitionedSink}.
 *
 * <p>The engine calls {@code stage} for one batch at a time (strictly in txid order), {@code afterCommit} and
 * {@code abort} on the coordinator thread. Implementations must publish their effects safely.
 *
 * @param <T> the record type
 * @since 0.3.0
 */
public interface Sink<T> {

  /**
   * Stages the records of attempt {@code epoch} (in stream order; for a grouped stream, partition by partition).
   * Nothing staged may be visible before {@link #afterCommit}.
   */
  void stage(Epoch epoch, List<T> records);

  /** The epoch of batch {@code txid} committed durably: publish what was staged for it. The default does nothing. */
  default void afterCommit(long txid) {
  }

  /** The current attempt of batch {@code txid} failed: drop what was staged for it. The default does nothing. */
  default void abort(long txid) {
  }

  /** A short description for errors and logs. */
  default String describe() {
    return getClass().getSimpleName();
  }
}
