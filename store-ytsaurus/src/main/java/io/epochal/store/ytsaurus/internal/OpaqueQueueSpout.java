package io.epochal.store.ytsaurus.internal;

import io.epochal.codec.Codec;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.LagReporting;
import io.epochal.spout.OpaqueSpout;
import io.epochal.spout.PartitionLag;
import io.epochal.spout.PartitionedMetadata;
import io.epochal.spout.SpoutKind;
import io.epochal.spout.Spouts;
import io.epochal.store.ytsaurus.YtQueueRange;
import io.epochal.store.ytsaurus.YtQueueSpoutConfig;
import java.util.Map;
import java.util.Optional;

/**
 * {@code YtQueueSpouts.opaque}: the partitioned adapter over {@link OpaqueQueuePartitions}, plus the cycle
 * bookkeeping, the kind (non-transactional under the SKIP policy) and the consumer advances handed to the epoch commit
 * of each emission (the last emission of a txid is the one that commits), and the lag report ({@link QueueLag}; the
 * only method safe to call from another thread).
 *
 * @param <T> what the spout emits
 */
public final class OpaqueQueueSpout<T> implements OpaqueSpout<T, PartitionedMetadata<YtQueueRange>>, LagReporting {
  private final QueueSource<T> source;
  private final OpaqueSpout<T, PartitionedMetadata<YtQueueRange>> adapter;

  /**
   * Makes the opaque queue spout; no request is sent here.
   *
   * @param config the settings
   * @param advances the staging of the store whose epoch commits advance the consumer, if they do
   */
  public OpaqueQueueSpout(YtQueueSpoutConfig<T> config, Optional<ConsumerAdvances> advances) {
    this.source = new QueueSource<>(config, advances);
    this.adapter = Spouts.partitioned(new OpaqueQueuePartitions<>(source));
  }

  @Override
  public String name() {
    return adapter.name();
  }

  @Override
  public SpoutKind kind() {
    return source.mayLoseRows() ? SpoutKind.NON_TRANSACTIONAL : SpoutKind.OPAQUE;
  }

  @Override
  public Codec<PartitionedMetadata<YtQueueRange>> metadataCodec() {
    return adapter.metadataCodec();
  }

  @Override
  public boolean isReady(long txid, Optional<PartitionedMetadata<YtQueueRange>> previous) {
    source.beginCycle(txid, true);
    source.lag.committed.seed(previous);
    try {
      return adapter.isReady(txid, previous);
    } catch (RuntimeException | Error e) {
      source.failed();
      throw e;
    }
  }

  @Override
  public PartitionedMetadata<YtQueueRange> emit(BatchAttempt attempt,
      Optional<PartitionedMetadata<YtQueueRange>> previous, Collector<T> out) {
    source.beginCycle(attempt.txid(), false);
    try {
      PartitionedMetadata<YtQueueRange> next = adapter.emit(attempt, previous, out);
      if (previous.isPresent() && previous.get().equals(next)) {
        // nothing new in any partition: the adapter hands back the previous metadata, whose in-batch ranges were
        // already advanced by the previous batch's commit
        source.stageAdvances(attempt.txid(), PartitionedMetadata.empty());
      } else {
        source.stageAdvances(attempt.txid(), next);
      }
      source.lag.committed.remember(attempt.txid(), next);
      return next;
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
    return "YtQueueSpouts.opaque(" + source.config + ")";
  }
}
