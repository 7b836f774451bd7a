package io.epochal.spouts.kafka.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.spout.BatchAttempt;
import io.epochal.spout.PartitionedMetadata;
import io.epochal.spouts.kafka.KafkaRecord;
import io.epochal.spouts.kafka.KafkaSpoutConfig;
import io.epochal.spouts.kafka.OffsetRange;
import io.epochal.spouts.kafka.TestBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The read-ahead after each emission (records of every partition fetched in the background, and the next cycle's end
 * offsets read ahead): it never changes what a batch holds, and "nothing new" is never said on end offsets read
 * before records that arrived since.
 */
class KafkaReadAheadTest {
  @RegisterExtension
  static final TestBroker.Use BROKER = new TestBroker.Use();
  private static TestBroker broker;

  @BeforeAll
  static void startBroker() {
    broker = BROKER.get();
  }

  private static KafkaSpoutConfig<String, String> config(String topic, int maxRecords) {
    return KafkaSpoutConfig.strings("read-ahead").bootstrapServers(broker.bootstrap()).topics(topic)
        .maxRecordsPerPartition(maxRecords).apiTimeout(Duration.ofSeconds(10)).build();
  }

  private static List<String> values(int from, int to) {
    return IntStream.range(from, to).mapToObj(i -> "v" + i).toList();
  }

  @Test
  void transactionalCutSeesRecordsAppendedAfterTheReadAhead() {
    String topic = TestBroker.newTopic("read-ahead-tx");
    broker.createTopic(topic, 1);
    broker.produce(topic, 0, null, values(0, 10));
    KafkaSpoutConfig<String, String> cfg = config(topic, 100);
    TransactionalKafkaSpout<KafkaRecord<String, String>> spout =
        new TransactionalKafkaSpout<>(cfg, RecordDecoder.strict(cfg));
    try {
      PartitionedMetadata<OffsetRange> first = spout.nextBatch(1, Optional.empty()).orElseThrow();
      List<String> got = new ArrayList<>();
      spout.emit(new BatchAttempt(1, 1), first, r -> got.add(r.value().orElseThrow()));
      assertEquals(values(0, 10), got);
      spout.source().log.awaitReadAhead(); // its end offsets (10) are read: the next records come after them
      broker.produce(topic, 0, null, values(10, 15));

      Optional<PartitionedMetadata<OffsetRange>> second = spout.nextBatch(2, Optional.of(first));
      assertTrue(second.isPresent(), "the records appended after the read-ahead make a batch");
      assertEquals(new OffsetRange(10, 15), second.get().partitions().values().iterator().next());
      got.clear();
      spout.emit(new BatchAttempt(2, 1), second.get(), r -> got.add(r.value().orElseThrow()));
      assertEquals(values(10, 15), got);
      assertTrue(spout.nextBatch(3, second).isEmpty());
    } finally {
      spout.close();
    }
  }

  @Test
  void opaqueSpoutIsReadyForRecordsAppendedAfterTheReadAhead() {
    String topic = TestBroker.newTopic("read-ahead-opaque");
    broker.createTopic(topic, 1);
    broker.produce(topic, 0, null, values(0, 10));
    KafkaSpoutConfig<String, String> cfg = config(topic, 100);
    OpaqueKafkaSpout<KafkaRecord<String, String>> spout = new OpaqueKafkaSpout<>(cfg, RecordDecoder.strict(cfg));
    try {
      assertTrue(spout.isReady(1, Optional.empty()));
      List<String> got = new ArrayList<>();
      PartitionedMetadata<OffsetRange> first =
          spout.emit(new BatchAttempt(1, 1), Optional.empty(), r -> got.add(r.value().orElseThrow()));
      assertEquals(values(0, 10), got);
      spout.source().log.awaitReadAhead();
      broker.produce(topic, 0, null, values(10, 15));

      assertTrue(spout.isReady(2, Optional.of(first)), "the records appended after the read-ahead are new");
      got.clear();
      PartitionedMetadata<OffsetRange> second =
          spout.emit(new BatchAttempt(2, 1), Optional.of(first), r -> got.add(r.value().orElseThrow()));
      assertEquals(values(10, 15), got);
      assertTrue(!spout.isReady(3, Optional.of(second)));
    } finally {
      spout.close();
    }
  }

  /**
   * Small caps over four partitions: the read-ahead holds records of every partition between batches; the batches
   * still tile each partition's log exactly, in order, each record once, and a fresh spout's replay of every range
   * emits the same records.
   */
  @Test
  void batchesTileEveryPartitionExactlyWithReadAhead() {
    String topic = TestBroker.newTopic("read-ahead-tile");
    broker.createTopic(topic, 4);
    broker.produceSentences(topic, 4, 7, 0, 2_000);
    KafkaSpoutConfig<String, String> cfg = config(topic, 37);
    TransactionalKafkaSpout<KafkaRecord<String, String>> spout =
        new TransactionalKafkaSpout<>(cfg, RecordDecoder.strict(cfg));
    TransactionalKafkaSpout<KafkaRecord<String, String>> replayer =
        new TransactionalKafkaSpout<>(cfg, RecordDecoder.strict(cfg));
    Map<Integer, List<Long>> offsets = new HashMap<>();
    Map<Integer, List<String>> read = new HashMap<>();
    try {
      Optional<PartitionedMetadata<OffsetRange>> prev = Optional.empty();
      for (long txid = 1; ; txid++) {
        Optional<PartitionedMetadata<OffsetRange>> meta = spout.nextBatch(txid, prev);
        if (meta.isEmpty()) {
          break;
        }
        for (OffsetRange range : meta.get().batchPartitions().values()) {
          assertTrue(range.to() - range.from() <= 37, "the cap holds: " + range);
        }
        List<KafkaRecord<String, String>> first = new ArrayList<>();
        spout.emit(new BatchAttempt(txid, 1), meta.get(), first::add);
        List<KafkaRecord<String, String>> replay = new ArrayList<>();
        replayer.emit(new BatchAttempt(txid, 2), meta.get(), replay::add);
        assertEquals(first, replay, "the replay of txid " + txid + " emits the same records");
        for (KafkaRecord<String, String> r : first) {
          offsets.computeIfAbsent(r.partition(), p -> new ArrayList<>()).add(r.offset());
          read.computeIfAbsent(r.partition(), p -> new ArrayList<>()).add(r.value().orElseThrow());
        }
        prev = meta;
      }
    } finally {
      spout.close();
      replayer.close();
    }
    Map<Integer, List<ConsumerRecord<String, String>>> log = broker.readAll(topic);
    assertEquals(4, log.size());
    log.forEach((partition, records) -> {
      assertEquals(records.stream().map(ConsumerRecord::offset).toList(), offsets.get(partition),
          "partition " + partition + ": every offset once, in order");
      assertEquals(records.stream().map(ConsumerRecord::value).toList(), read.get(partition));
    });
  }
}
