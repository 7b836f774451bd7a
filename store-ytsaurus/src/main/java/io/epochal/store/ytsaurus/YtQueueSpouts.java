package io.epochal.store.ytsaurus;

import io.epochal.api.Evolving;
import io.epochal.spout.OpaqueSpout;
import io.epochal.spout.PartitionedMetadata;
import io.epochal.spout.TransactionalSpout;
import io.epochal.store.ytsaurus.internal.OpaqueQueueSpout;
import io.epochal.store.ytsaurus.internal.TransactionalQueueSpout;
import java.util.Objects;

/**
 * Partitioned spouts over a YTsaurus queue (an ordered dynamic table; one spout partition per tablet, named by its
 * tablet index {@code "0"}, {@code "1"}, ...), read through the HTTP API v4 with {@code pull_queue}.
 *
 * <p><b>Transactional</b> ({@link #transactional}): batch {@code txid}'s row range per partition is fixed before
 * emission (one pull from where the partition's previous range ended, cut by the caps) and recorded by the engine as
 * pending metadata; every replay — another attempt, or a new process after a crash — re-reads exactly that range
 * ({@code pull_queue} with {@code offset}, {@code partition_index}, {@code max_row_count}, {@code max_data_weight}).
 * <b>Opaque</b> ({@link #opaque}): each emission continues from where the last emitted batch of the partition ended,
 * and a replayed txid may read further. The metadata of a batch is a {@code PartitionedMetadata<YtQueueRange>}; it is
 * committed in the epoch with the states and is the truth about what was consumed.
 *
 * <p><b>Consumer.</b> With {@link YtQueueSpoutConfig.Builder#consumer} a partition without committed metadata starts at
 * the consumer's offset; with {@link YtQueueSpoutConfig.Builder#advanceConsumerIn} the epoch commit of every batch
 * (on a {@link YtTableStore} in pinned mode) also runs {@code advance_queue_consumer(old_offset, new_offset)} for each
 * partition of the batch inside the same tablet transaction, so the consumer offsets, the states and the checkpoint
 * commit atomically. A consumer that holds another offset stops the pipeline with
 * {@link YtConsumerOffsetMismatchException}.
 *
 * <p><b>Guarantees and failures.</b> Exactly-once with {@code TransactionalMap}/{@code OpaqueMap} (transactional) or on
 * the epoch protocol (opaque), under {@link YtTrimmedRowsPolicy#FAIL}. New tablets are picked up at the discovery
 * interval. A row the decoder rejects stops the pipeline with {@link YtQueueRowDecodeException}; rows trimmed before
 * they were committed with {@link YtQueueTrimmedException}; an unreachable proxy is a retryable
 * {@link YtQueueUnavailableException} (the engine replays, then stops with
 * {@link io.epochal.errors.BatchFailedException}). No dead-letter variant: a bad row is never skipped.
 *
 * <p><b>Lag.</b> Both spouts also implement {@link io.epochal.spout.LagReporting}: per partition, the tablet's total
 * row count ({@code get_tablet_infos}) and the offset the last committed batch ends at (for
 * {@code EpochalMetrics.bindLag} of the metrics module); each request is bounded by the client's timeouts and
 * attempts.
 *
 * <p>Each spout owns one HTTP client; it is not thread-safe but for {@code sourceLag()} (the engine calls a spout from
 * one thread at a time).
 *
 * @since 0.4.0
 */
@Evolving
public final class YtQueueSpouts {
  private YtQueueSpouts() {
  }

  /**
   * A transactional spout over the queue: a batch's offset range is fixed before emission, and a replay emits
   * exactly the rows in it.
   *
   * @param config the settings
   * @param <T> what the spout emits
   * @return a new partitioned transactional spout
   */
  public static <T> TransactionalSpout<T, PartitionedMetadata<YtQueueRange>> transactional(
      YtQueueSpoutConfig<T> config) {
    Objects.requireNonNull(config, "config");
    return new TransactionalQueueSpout<>(config, config.consumerAdvances());
  }

  /**
   * An opaque spout over the queue: each emission continues where the partition's last emitted batch ended, so a
   * replayed batch may read further.
   *
   * @param config the settings
   * @param <T> what the spout emits
   * @return a new partitioned opaque spout
   */
  public static <T> OpaqueSpout<T, PartitionedMetadata<YtQueueRange>> opaque(YtQueueSpoutConfig<T> config) {
    Objects.requireNonNull(config, "config");
    return new OpaqueQueueSpout<>(config, config.consumerAdvances());
  }
}
