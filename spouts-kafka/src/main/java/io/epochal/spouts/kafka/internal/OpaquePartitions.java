package io.epochal.spouts.kafka.internal;

import io.epochal.codec.Codec;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.PartitionedOpaqueSpout;
import io.epochal.spouts.kafka.OffsetRange;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;

/**
 * The opaque Kafka spout per partition: each emission reads the partition from where its previous range ended, up to
 * its end offset now or the caps, and returns the range it read.
 *
 * @param <T> what the spout emits
 */
final class OpaquePartitions<T> implements PartitionedOpaqueSpout<T, OffsetRange> {
  private final KafkaSource<T> source;

  OpaquePartitions(KafkaSource<T> source) {
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
  public Codec<OffsetRange> partitionMetadataCodec() {
    return OffsetRange.codec();
  }

  @Override
  public boolean hasMore(String partition, Optional<OffsetRange> previous) {
    TopicPartition tp = source.parse(partition);
    long from = previous.isPresent() ? previous.get().to() : source.start(tp);
    return from != source.log.end(tp, source.txid()) || source.pins(tp, previous);
  }

  @Override
  public OffsetRange emitPartitionBatch(BatchAttempt attempt, String partition, Optional<OffsetRange> previous,
      Collector<T> out) {
    TopicPartition tp = source.parse(partition);
    long end = source.log.end(tp, attempt.txid());
    long from = source.from(tp, previous);
    Chunk chunk = source.read(tp, from, end, source.config.maxRecordsPerPartition(),
        source.config.maxBytesPerPartition());
    for (T record : source.decoder.decodeAll(chunk.records(), attempt.txid())) {
      out.emit(record);
    }
    return new OffsetRange(chunk.from(), chunk.next());
  }

  @Override
  public String toString() {
    return "kafka-opaque(" + source.spout + ")";
  }
}
