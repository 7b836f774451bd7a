package io.epochal.store.ytsaurus.internal;

import io.epochal.codec.Codec;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.LagReporting;
import io.epochal.spout.PartitionLag;
import io.epochal.spout.PartitionedMetadata;
import io.epochal.spout.SpoutKind;
import io.epochal.spout.Spouts;
import io.epochal.spout.TransactionalSpout;
import io.epochal.store.ytsaurus.YtQueueRange;
import io.epochal.store.ytsaurus.YtQueueSpoutConfig;
import java.util.Map;
import java.util.Optional;

/**
 * {@code YtQueueSpouts.transactional}: the partitioned adapter over {@link TransactionalQueuePartitions}, plus the
 * cycle bookkeeping, the kind (non-transactional under the SKIP policy), the consumer advances handed to the epoch
 * commit of each emitted batch, and the lag report ({@link QueueLag}; the only method safe to call from another
 * thread).
 *
 * @param <T> what the spout emits
 */
public final class TransactionalQueueSpout<T> implements TransactionalSpout<T, PartitionedMetadata<YtQueueRange>>,
    LagReporting {
  private final QueueSource<T> source;
  private final TransactionalSpout<T, PartitionedMetadata<YtQueueRange>> adapter;

  /**
   * Makes the transactional queue spout; no request is sent here.
   *
   * @param config the settings
   * @param advances the staging of the store whose epoch commits advance the consumer, if they do
   */
  public TransactionalQueueSpout(YtQueueSpoutConfig<T> config, Optional<ConsumerAdvances> advances) {
    this.source = new QueueSource<>(config, advances);
    this.adapter = Spouts.partitioned(new TransactionalQueuePartitions<>(source));
  }

  @Override
  public String name() {
    return adapter.name();
  }

  @Override
  public SpoutKind kind() {
    return source.mayLoseRows() ? SpoutKind.NON_TRANSACTIONAL : SpoutKind.TRANSACTIONAL;
  }

  @Override
  public Codec<PartitionedMetadata<YtQueueRange>> metadataCodec() {
    return adapter.metadataCodec();
  }

  @Override
  public Optional<PartitionedMetadata<YtQueueRange>> nextBatch(long txid,
      Optional<PartitionedMetadata<YtQueueRange>> previous) {
    source.beginCycle(txid, true);
    source.lag.committed.seed(previous);
    try {
      Optional<PartitionedMetadata<YtQueueRange>> next = adapter.nextBatch(txid, previous);
      next.ifPresent(m -> source.lag.committed.remember(txid, m));
      return next;
    } catch (RuntimeException | Error e) {
      source.failed();
      throw e;
    }
  }

  @Override
  public void emit(BatchAttempt attempt, PartitionedMetadata<YtQueueRange> metadata, Collector<T> out) {
    source.beginCycle(attempt.txid(), false);
    try {
      adapter.emit(attempt, metadata, out);
      source.stageAdvances(attempt.txid(), metadata);
      source.lag.committed.remember(attempt.txid(), metadata);
    } catch (RuntimeException | Error e) {
      source.unstageAdvances(attempt.txid());
      source.failed();
      throw e;
    }
  }

  @Override
  public void success(long txid) {
    source.lag.committed.committed(txid);
    source.committed(txid);
  }

  @Override
  public Map<String, PartitionLag> sourceLag() {
    return source.lag.report();
  }

  @Override
  public void close() {
    source.close();
  }

  @Override
  public String toString() {
    return "YtQueueSpouts.transactional(" + source.config + ")";
  }
}
