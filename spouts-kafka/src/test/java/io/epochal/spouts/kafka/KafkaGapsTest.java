package io.epochal.spouts.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.pipeline.Pipeline;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.PartitionedMetadata;
import io.epochal.spout.TransactionalSpout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Offsets without records: compacted topics, aborted transactions and their markers under read_committed, an open
 * transaction holding the last stable offset back; and the byte cap.
 */
class KafkaGapsTest {
  @RegisterExtension
  static final TestBroker.Use BROKER = new TestBroker.Use();
  private static TestBroker broker;

  @BeforeAll
  static void startBroker() {
    broker = BROKER.get();
  }

  static KafkaSpoutConfig.Builder<String, String> config(String topic) {
    return KafkaSpoutConfig.strings("gaps").bootstrapServers(broker.bootstrap()).topics(topic)
        .apiTimeout(Duration.ofSeconds(10));
  }

  /** Cuts every batch of a transactional spout, emitting each twice (the second from a new spout, as a replay). */
  static List<Batch> cutAll(KafkaSpoutConfig<String, String> cfg) {
    List<Batch> batches = new ArrayList<>();
    TransactionalSpout<KafkaRecord<String, String>, PartitionedMetadata<OffsetRange>> spout =
        KafkaSpouts.transactional(cfg);
    TransactionalSpout<KafkaRecord<String, String>, PartitionedMetadata<OffsetRange>> replayer =
        KafkaSpouts.transactional(cfg);
    try {
      Optional<PartitionedMetadata<OffsetRange>> prev = Optional.empty();
      for (long txid = 1; ; txid++) {
        Optional<PartitionedMetadata<OffsetRange>> meta = spout.nextBatch(txid, prev);
        if (meta.isEmpty()) {
          return batches;
        }
        List<KafkaRecord<String, String>> first = new ArrayList<>();
        spout.emit(new BatchAttempt(txid, 1), meta.get(), first::add);
        List<KafkaRecord<String, String>> replay = new ArrayList<>();
        replayer.emit(new BatchAttempt(txid, 2), meta.get(), replay::add);
        assertEquals(first, replay, "the replay of txid " + txid + " emits the same records");
        batches.add(new Batch(meta.get(), first));
        prev = meta;
      }
    } finally {
      spout.close();
      replayer.close();
    }
  }

  record Batch(PartitionedMetadata<OffsetRange> meta, List<KafkaRecord<String, String>> records) {
  }

  /** Every emitted record lies in its batch's range of its partition, and the ranges tile the log without overlap. */
  static void assertRangesTile(List<Batch> batches) {
    Map<String, Long> next = new java.util.HashMap<>();
    for (Batch b : batches) {
      for (var e : b.meta().batchPartitions().entrySet()) {
        Long expectedFrom = next.get(e.getKey());
        if (expectedFrom != null) {
          assertEquals(expectedFrom, e.getValue().from(), "ranges of " + e.getKey() + " are contiguous");
        }
        next.put(e.getKey(), e.getValue().to());
      }
      for (KafkaRecord<String, String> r : b.records()) {
        OffsetRange range = b.meta().batchPartitions().get(r.topic() + "-" + r.partition());
        assertTrue(range != null && range.contains(r.offset()), r + " lies in its batch's range " + range);
      }
    }
  }

  @Test
  void aCompactedTopicWithGapsIsCountedExactlyAndRangeEndsArePositions() throws Exception {
    String topic = TestBroker.newTopic("compacted");
    broker.createTopic(topic, 1, Map.of("cleanup.policy", "compact", "segment.ms", "100",
        "min.cleanable.dirty.ratio", "0.001", "min.compaction.lag.ms", "0", "delete.retention.ms", "0"));
    try (KafkaProducer<String, String> p = broker.producer()) {
      for (int round = 0; round < 8; round++) {
        for (int k = 0; k < 20; k++) {
          p.send(new ProducerRecord<>(topic, 0, "k" + k, "r" + round + " k" + k));
        }
        p.flush();
        Thread.sleep(150); // the next append rolls the segment
      }
      p.send(new ProducerRecord<>(topic, 0, "last", "last")).get();
    }
    List<ConsumerRecord<String, String>> log = awaitCompaction(topic, 161);
    List<Batch> batches = cutAll(config(topic).maxRecordsPerPartition(7).build());
    assertRangesTile(batches);
    List<String> values = log.stream().map(ConsumerRecord::value).toList();
    List<String> emitted = batches.stream().flatMap(b -> b.records().stream()).map(r -> r.value().orElseThrow())
        .toList();
    assertEquals(values, emitted, "exactly the records left after compaction, in offset order");
    OffsetRange last = batches.get(batches.size() - 1).meta().get(topic + "-0").orElseThrow();
    assertEquals(161, last.to(), "the last range ends at the log end, past the gaps");
    assertTrue(batches.stream().allMatch(b -> b.records().size() <= 7), "the record cap holds");
    assertTrue(batches.stream().anyMatch(b -> b.records().size() == 7
        && b.meta().get(topic + "-0").orElseThrow().to() - b.meta().get(topic + "-0").orElseThrow().from() > 7),
        "some capped range of 7 records spans more offsets (gaps left by compaction)");
    try (CountWorld world = CountWorld.inMemory();
        Pipeline pipeline = world.pipeline("compacted", KafkaSpouts.transactional(config(topic)
            .maxRecordsPerPartition(5).build()), b -> b.partitions(2))) {
      pipeline.runUntilIdle();
      assertEquals(CountWorld.recount(values), world.counts("compacted"));
    }
  }

  /** Waits until the cleaner left gaps in the log of {@code expectedEnd} offsets; returns the records left. */
  private static List<ConsumerRecord<String, String>> awaitCompaction(String topic, long expectedEnd)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    List<ConsumerRecord<String, String>> previous = null;
    while (true) {
      List<ConsumerRecord<String, String>> log = broker.readAll(topic).get(0);
      boolean gaps = log.size() < expectedEnd - 40; // at least two rounds compacted away
      if (gaps && previous != null && previous.size() == log.size()) {
        return log;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the log cleaner did not compact " + topic + ": " + log.size() + " records");
      }
      previous = gaps ? log : null;
      Thread.sleep(500);
    }
  }

  private KafkaProducer<String, String> transactionalProducer(String id) {
    KafkaProducer<String, String> p = broker.producer(Map.of("transactional.id", id));
    p.initTransactions();
    return p;
  }

  @Test
  void abortedTransactionsAndTheirMarkersAreGapsUnderReadCommitted() throws Exception {
    String topic = TestBroker.newTopic("aborted");
    broker.createTopic(topic, 2);
    try (KafkaProducer<String, String> tx = transactionalProducer("aborting-" + topic);
        KafkaProducer<String, String> plain = broker.producer()) {
      for (int round = 0; round < 4; round++) {
        tx.beginTransaction();
        for (int i = 0; i < 6; i++) {
          tx.send(new ProducerRecord<>(topic, i % 2, null, "committed c" + round + " c" + i));
        }
        tx.commitTransaction();
        tx.beginTransaction();
        for (int i = 0; i < 5; i++) {
          tx.send(new ProducerRecord<>(topic, i % 2, null, "aborted a" + round));
        }
        tx.flush();
        tx.abortTransaction();
        plain.send(new ProducerRecord<>(topic, round % 2, null, "plain p" + round));
        plain.flush();
      }
    }
    broker.awaitTransactionsSettled(topic);
    List<String> committed = broker.values(topic);
    assertEquals(4 * 6 + 4, committed.size());
    assertTrue(committed.stream().noneMatch(v -> v.startsWith("aborted")));

    List<Batch> batches = cutAll(config(topic).maxRecordsPerPartition(3).build());
    assertRangesTile(batches);
    List<String> emitted = batches.stream().flatMap(b -> b.records().stream()).map(r -> r.value().orElseThrow())
        .toList();
    assertEquals(CountWorld.recount(committed), CountWorld.recount(emitted), "every committed record, no aborted one");
    assertEquals(committed.size(), emitted.size());
    long spanned = 0;
    for (String p : List.of(topic + "-0", topic + "-1")) {
      OffsetRange last = batches.stream().map(b -> b.meta().get(p)).flatMap(Optional::stream)
          .reduce((a, b) -> b).orElseThrow();
      spanned += last.to();
    }
    assertTrue(spanned > committed.size() + 4 * 5, "ranges span aborted records and markers: " + spanned);

    List<Batch> uncommitted = cutAll(config(topic).isolationLevel(IsolationLevel.READ_UNCOMMITTED)
        .maxRecordsPerPartition(4).build());
    long aborted = uncommitted.stream().flatMap(b -> b.records().stream())
        .filter(r -> r.value().orElseThrow().startsWith("aborted")).count();
    assertEquals(4 * 5, aborted, "read_uncommitted, asked for explicitly, emits aborted records too");
  }

  @Test
  void anOpenTransactionHoldsBatchesBackAtTheLastStableOffsetAndNothingIsSkipped() throws Exception {
    String topic = TestBroker.newTopic("open-txn");
    broker.createTopic(topic, 1);
    broker.produce(topic, 0, null, List.of("before one", "before two"));
    try (CountWorld world = CountWorld.inMemory();
        KafkaProducer<String, String> tx = transactionalProducer("open-" + topic)) {
      tx.beginTransaction();
      tx.send(new ProducerRecord<>(topic, 0, null, "inside txn")).get();
      broker.produce(topic, 0, null, List.of("after one"));
      try (Pipeline p = world.pipeline("lso", KafkaSpouts.opaque(config(topic).build()), b -> { })) {
        p.runUntilIdle();
      }
      assertEquals(CountWorld.recount(List.of("before one", "before two")), world.counts("lso"),
          "nothing past the open transaction: the last stable offset is the end");
      tx.commitTransaction();
      broker.awaitTransactionsSettled(topic);
      try (Pipeline p = world.pipeline("lso", KafkaSpouts.opaque(config(topic).build()), b -> { })) {
        p.runUntilIdle();
      }
      assertEquals(CountWorld.recount(List.of("before one", "before two", "inside txn", "after one")),
          world.counts("lso"), "after the commit everything, once");
    }
  }

  @Test
  void theByteCapLimitsEachPartitionsBatchAndALargerRecordStillPasses() {
    String topic = TestBroker.newTopic("bytes");
    broker.createTopic(topic, 2);
    List<String> values = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      values.add(String.format("v%03d ", i).repeat(40)); // 200 bytes
    }
    broker.produce(topic, 0, null, values);
    broker.produce(topic, 1, null, List.of("x".repeat(5000), "small"));
    List<Batch> batches = cutAll(config(topic).maxBytesPerPartition(1000).build());
    assertRangesTile(batches);
    for (Batch b : batches) {
      for (String p : b.meta().batchPartitions().keySet()) {
        List<KafkaRecord<String, String>> mine = b.records().stream()
            .filter(r -> (r.topic() + "-" + r.partition()).equals(p)).toList();
        long bytes = mine.stream().mapToLong(r -> r.value().orElseThrow().length()).sum();
        assertTrue(bytes <= 1000 || mine.size() == 1, p + ": " + mine.size() + " records of " + bytes + " bytes");
      }
    }
    assertEquals(42, batches.stream().mapToInt(b -> b.records().size()).sum());
    assertFalse(batches.size() < 8, "40 records of 200 bytes need 8 batches of 1000 bytes: " + batches.size());
  }

  @SuppressWarnings("unused")
  private static Properties unused() {
    return new Properties();
  }
}
