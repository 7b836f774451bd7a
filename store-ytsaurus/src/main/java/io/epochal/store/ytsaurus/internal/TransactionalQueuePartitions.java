package io.epochal.store.ytsaurus.internal;

import io.epochal.codec.Codec;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.PartitionedTransactionalSpout;
import io.epochal.store.ytsaurus.YtQueueRange;
import java.util.List;
import java.util.Optional;

/**
 * The transactional queue spout per partition: a cut pulls the partition once from where its previous range ended
 * (with the caps) and fixes the range {@code [from, next)} of the rows it got (kept for the emission right after the
 * cut); emitting a range re-reads exactly its rows, unless the cut just read them.
 *
 * @param <T> what the spout emits
 */
final class TransactionalQueuePartitions<T> implements PartitionedTransactionalSpout<T, YtQueueRange> {
  private final QueueSource<T> source;

  TransactionalQueuePartitions(QueueSource<T> source) {
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
  public Optional<YtQueueRange> nextPartitionBatch(String partition, long txid, Optional<YtQueueRange> previous) {
    QueueSource.Chunk chunk = source.next(source.parse(partition), previous);
    return chunk.rows().isEmpty() ? Optional.empty() : Optional.of(chunk.range());
  }

  @Override
  public void emitPartitionBatch(BatchAttempt attempt, String partition, YtQueueRange range, Collector<T> out) {
    if (range.isEmpty()) {
      return;
    }
    for (T record : source.decodeAll(source.rowsOf(source.parse(partition), range))) {
      out.emit(record);
    }
  }

  @Override
  public String toString() {
    return "yt-queue-transactional(" + source.spout + ")";
  }
}
