package io.epochal.store.ytsaurus.internal;

import io.epochal.codec.Codec;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.PartitionedMetadata;
import io.epochal.spout.SpoutKind;
import io.epochal.spout.Spouts;
import io.epochal.spout.TransactionalSpout;
import io.epochal.store.ytsaurus.YtQueueRange;
import io.epochal.store.ytsaurus.YtQueueSpoutConfig;
import java.util.Optional;

/**
 * {@code YtQueueSpouts.transactional}: the partitioned adapter over {@link TransactionalQueuePartitions}, plus the
 * cycle bookkeeping, the kind (non-transactional under the SKIP policy) and the consumer advances handed to the epoch
 * commit of each emitted batch.
 *
 * @param <T> what the spout emits
 */
public final class TransactionalQueueSpout<T> implements TransactionalSpout<T, PartitionedMetadata<YtQueueRange>> {
  private final QueueSource<T> source;
  private final TransactionalSpout<T, PartitionedMetadata<YtQueueRange>> adapter;

  /**
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
    try {
      return adapter.nextBatch(txid, previous);
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
    } catch (RuntimeException | Error e) {
      source.unstageAdvances(attempt.txid());
      source.failed();
      throw e;
    }
  }

  @Override
  public void success(long txid) {
    source.committed(txid);
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
