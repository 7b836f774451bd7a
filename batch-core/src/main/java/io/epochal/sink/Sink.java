package io.epochal.sink;

import io.epochal.api.Stable;
import io.epochal.state.Epoch;
import java.util.List;

/**
 * An output of a pipeline: a node at the end of a stream ({@code stream.to(name, sink)}) whose records become visible
 * only once their batch's epoch committed. Per batch attempt, in the commit phase: {@link #stage} with the batch's
 * records (every txid, also an empty batch), then either {@link #afterCommit} once the epoch is durable (publish what
 * was staged) or {@link #abort} when the attempt failed (drop it; the batch is replayed and staged again).
 *
 * <p>A sink that writes a table of the pipeline's table store stages its rows in the epoch
 * ({@code epoch.staging(EpochBuffer.class)}), so they commit inside the epoch. An external exactly-once sink is an
 * {@link OutboxSink}: it stages its encoded records in the epoch's {@link io.epochal.store.Outbox}, which the
 * checkpoint commit keeps with the batch, publishes them in {@link #afterCommit}, and after a restart publishes from
 * the outbox what its {@link Publisher} had not published. Partitions of a batch are staged in parallel through
 * {@link PartitionedSink}.
 *
 * <p>The engine calls {@code stage} for one batch at a time (strictly in txid order), {@code afterCommit} and
 * {@code abort} on the coordinator thread. Implementations must publish their effects safely.
 *
 * @param <T> the record type
 * @since 0.3.0
 */
@Stable
public interface Sink<T> extends AutoCloseable {

  /**
   * The pipeline starts: called once, on the coordinator thread, before the first batch is staged. A sink that
   * publishes from the checkpoint's outbox ({@link OutboxSink}) publishes here what the previous process committed
   * but did not publish. The default does nothing.
   *
   * @param context the sink's name, the pipeline's partitions, the last committed txid and this sink's recovered
   *     outbox entries
   * @throws RuntimeException if the sink cannot start; the pipeline's run fails with it
   */
  default void open(SinkContext context) {
  }

  /**
   * Whether this sink stages its outputs in the epoch's {@link io.epochal.store.Outbox} (kept in the checkpoint
   * until published): a pipeline with such a sink is refused, when it is built, on a checkpoint store that
   * {@linkplain io.epochal.store.CheckpointStore#keepsOutbox() keeps no outbox}. The default is false.
   *
   * @return true if the sink stages in the epoch's outbox
   */
  default boolean needsOutbox() {
    return false;
  }

  /**
   * Stages the records of attempt {@code epoch} (in stream order; for a grouped stream, partition by partition).
   * Nothing staged may be visible before {@link #afterCommit}.
   *
   * @param epoch the epoch of the batch attempt the records belong to
   * @param records the batch's records reaching this sink; empty for a batch without any
   */
  void stage(Epoch epoch, List<T> records);

  /**
   * The epoch of batch {@code txid} committed durably: publish what was staged for it. The default does nothing.
   *
   * @param txid the committed batch's txid
   * @throws RuntimeException if publishing failed: the pipeline stops with a
   *     {@link io.epochal.errors.SinkPublishException} (the batch stays committed)
   */
  default void afterCommit(long txid) {
  }

  /**
   * The current attempt of batch {@code txid} failed: drop what was staged for it. The default does nothing.
   *
   * @param txid the txid of the failed attempt's batch; it is replayed and staged again under the same txid
   */
  default void abort(long txid) {
  }

  /**
   * The pipeline closed: release what the sink holds (producers, connections). Called once, on the closing thread;
   * nothing is staged or published afterwards. The default does nothing.
   */
  @Override
  default void close() {
  }

  /**
   * A short description for errors and logs.
   *
   * @return a description naming the sink (by default the simple name of its class)
   */
  default String describe() {
    return getClass().getSimpleName();
  }
}
