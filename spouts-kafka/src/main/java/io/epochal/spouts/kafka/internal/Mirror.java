package io.epochal.spouts.kafka.internal;

import io.epochal.spout.PartitionedMetadata;
import io.epochal.spouts.kafka.OffsetRange;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/** Remembers the metadata of batches in flight so that {@code success(txid)} can mirror their offsets. */
final class Mirror {
  private final KafkaSource<?> source;
  private final TreeMap<Long, PartitionedMetadata<OffsetRange>> inFlight = new TreeMap<>();

  Mirror(KafkaSource<?> source) {
    this.source = source;
  }

  void remember(long txid, PartitionedMetadata<OffsetRange> metadata) {
    if (source.config.mirrorGroup().isPresent()) {
      inFlight.put(txid, metadata);
    }
  }

  void committed(long txid) {
    PartitionedMetadata<OffsetRange> metadata = inFlight.get(txid);
    inFlight.headMap(txid, true).clear();
    if (metadata == null) {
      return;
    }
    Map<TopicPartition, Long> offsets = new HashMap<>();
    metadata.partitions().forEach((name, range) -> offsets.put(source.parse(name), range.to()));
    source.log.mirror(offsets, txid);
  }
}
