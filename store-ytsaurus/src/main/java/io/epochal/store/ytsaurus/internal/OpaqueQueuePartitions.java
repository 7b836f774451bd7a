package io.epochal.store.ytsaurus.internal;

import io.epochal.codec.Codec;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.PartitionedOpaqueSpout;
import io.epochal.store.ytsaurus.YtQueueRange;
import java.util.List;
import java.util.Optional;

/**
 * The opaque queue spout per partition: each emission pulls the partition once from where its previous range ended
 * (with the caps; the readiness check's pull is reused) and returns the range it read.
 *
 * @param <T> what the spout emits
 */
final class OpaqueQueuePartitions<T> implements PartitionedOpaqueSpout<T, YtQueueRange> {
  private final QueueSource<T> source;

  OpaqueQueuePartitions(QueueSource<T> source) {
    this.source = source;
  }

  @Override
  public String name() {
    return source.spout;
  }

  @Override
  public List<String> partitions() {
    return source.partitionNames();
  }

  @Override
  public Codec<YtQueueRange> partitionMetadataCodec() {
    return YtQueueRange.codec();
  }

  @Override
  public boolean hasMore(String partition, Optional<YtQueueRange> previous) {
    return !source.next(source.parse(partition), previous).rows().isEmpty();
  }

  @Override
  public YtQueueRange emitPartitionBatch(BatchAttempt attempt, String partition, Optional<YtQueueRange> previous,
      Collector<T> out) {
    QueueSource.Chunk chunk = source.next(source.parse(partition), previous);
    for (T record : source.decodeAll(chunk.rows())) {
      out.emit(record);
    }
    return chunk.range();
  }

  @Override
  public String toString() {
    return "yt-queue-opaque(" + source.spout + ")";
  }
}
