package io.epochal.spouts.kafka.internal;

import io.epochal.codec.Codec;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.PartitionedTransactionalSpout;
import io.epochal.spouts.kafka.KafkaOffsetOutOfRangeException;
import io.epochal.spouts.kafka.OffsetRange;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The transactional Kafka spout per partition. Cutting reads the partition from where its previous range ended, up
 * to its end offset now or the caps, and fixes the range {@code [from, next)} (the records read are kept for the
 * emission right after the cut). Emitting a range re-reads exactly the records with offsets in it, unless the cut
 * just read them.
 *
 * @param <T> what the spout emits
 */
final class TransactionalPartitions<T> implements PartitionedTransactionalSpout<T, OffsetRange> {
  private final KafkaSource<T> source;
  /** The records of the ranges cut in the current nextBatch, for its emission. */
  private final Map<TopicPartition, Cut> cuts = new HashMap<>();

  private record Cut(OffsetRange range, List<ConsumerRecord<byte[], byte[]>> records) {
  }

  TransactionalPartitions(KafkaSource<T> source) {
    this.source = source;
  }

  void clearCuts() {
    cuts.clear();
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
  public Optional<OffsetRange> nextPartitionBatch(String partition, long txid, Optional<OffsetRange> previous) {
    TopicPartition tp = source.parse(partition);
    long end = source.log.end(tp, txid);
    long from = source.from(tp, previous);
    boolean moved = previous.isPresent() && from != previous.get().to(); // reset by the policy: record it
    if (from >= end) {
      return source.pins(tp, previous) || moved ? Optional.of(new OffsetRange(from, from)) : Optional.empty();
    }
    Chunk chunk = source.read(tp, from, end, source.config.maxRecordsPerPartition(),
        source.config.maxBytesPerPartition());
    if (chunk.next() == chunk.from() && !source.pins(tp, previous) && !moved && chunk.from() == from) {
      return Optional.empty();
    }
    OffsetRange range = new OffsetRange(chunk.from(), chunk.next());
    cuts.put(tp, new Cut(range, chunk.records()));
    return Optional.of(range);
  }

  @Override
  public void emitPartitionBatch(BatchAttempt attempt, String partition, OffsetRange range, Collector<T> out) {
    TopicPartition tp = source.parse(partition);
    if (range.isEmpty()) {
      return;
    }
    Cut cut = cuts.remove(tp);
    List<ConsumerRecord<byte[], byte[]>> records;
    if (cut != null && cut.range().equals(range)) {
      records = cut.records();
    } else {
      long end = source.log.end(tp, attempt.txid());
      long to = range.to();
      if (to > end) {
        KafkaOffsetOutOfRangeException e = source.log.outOfRange(tp, to, attempt.txid(), null);
        source.reset(e); // throws under FAIL; under a reset policy, emit what is left
        to = Math.max(range.from(), e.logEnd());
      }
      records = source.read(tp, range.from(), to, Integer.MAX_VALUE, Long.MAX_VALUE).records();
    }
    for (T record : source.decoder.decodeAll(records, attempt.txid())) {
      out.emit(record);
    }
  }

  @Override
  public String toString() {
    return "kafka-transactional(" + source.spout + ")";
  }
}
