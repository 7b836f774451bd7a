package io.epochal.spouts.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.RunSummary;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.OpaqueSpout;
import io.epochal.spout.PartitionedMetadata;
import io.epochal.spout.TransactionalSpout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Kafka spouts against a real in-process broker: exact counts, replays, caps, partitions, positions. */
class KafkaSpoutsTest {
  @RegisterExtension
  static final TestBroker.Use BROKER = new TestBroker.Use();
  private static TestBroker broker;

  @BeforeAll
  static void startBroker() {
    broker = BROKER.get();
  }

  static String newTopic(String what) {
    return TestBroker.newTopic(what);
  }

  static KafkaSpoutConfig.Builder<String, String> config(String topic) {
    return KafkaSpoutConfig.strings("words").bootstrapServers(broker.bootstrap()).topics(topic)
        .apiTimeout(Duration.ofSeconds(10));
  }

  @Test
  void transactionalSpoutCountsEveryWordOfFourPartitionsExactlyOnce() {
    String topic = newTopic("tx-count");
    broker.createTopic(topic, 4);
    broker.produceSentences(topic, 4, 1, 0, 3000);
    try (CountWorld world = CountWorld.inMemory();
        Pipeline p = world.pipeline("wc", KafkaSpouts.transactional(config(topic).maxRecordsPerPartition(97).build()),
            b -> b.partitions(4).threads(2).maxBatchesInFlight(3))) {
      RunSummary run = p.runUntilIdle();
      assertTrue(run.batches() >= 3000 / (4 * 97), "caps cut the input into many batches: " + run);
      assertEquals(3000, run.records());
      Map<String, Long> expected = CountWorld.recount(broker.values(topic));
      assertEquals(expected, world.counts("wc"));
      assertEquals(expected, world.opaqueCounts("wc"));
    }
  }

  @Test
  void opaqueSpoutCountsEveryWordOfFourPartitionsExactlyOnce() {
    String topic = newTopic("op-count");
    broker.createTopic(topic, 4);
    broker.produceSentences(topic, 4, 2, 0, 3000);
    try (CountWorld world = CountWorld.inMemory();
        Pipeline p = world.pipeline("wc", KafkaSpouts.opaque(config(topic).maxRecordsPerPartition(89).build()),
            b -> b.partitions(4).threads(2).maxBatchesInFlight(3))) {
      RunSummary run = p.runUntilIdle();
      assertEquals(3000, run.records());
      Map<String, Long> expected = CountWorld.recount(broker.values(topic));
      assertEquals(expected, world.counts("wc"));
      assertEquals(expected, world.opaqueCounts("wc"));
    }
  }

  @Test
  void aReplayOfATransactionalBatchEmitsExactlyTheSameRecordsAlsoFromANewSpout() {
    String topic = newTopic("tx-replay");
    broker.createTopic(topic, 3);
    broker.produceSentences(topic, 3, 3, 0, 200);
    KafkaSpoutConfig<String, String> cfg = config(topic).maxRecordsPerPartition(17).build();
    List<PartitionedMetadata<OffsetRange>> metas = new ArrayList<>();
    List<List<KafkaRecord<String, String>>> first = new ArrayList<>();
    try (var spout = closing(KafkaSpouts.transactional(cfg))) {
      Optional<PartitionedMetadata<OffsetRange>> prev = Optional.empty();
      for (long txid = 1; ; txid++) {
        Optional<PartitionedMetadata<OffsetRange>> meta = spout.get().nextBatch(txid, prev);
        if (meta.isEmpty()) {
          break;
        }
        metas.add(meta.get());
        List<KafkaRecord<String, String>> once = new ArrayList<>();
        spout.get().emit(new BatchAttempt(txid, 1), meta.get(), once::add);
        List<KafkaRecord<String, String>> twice = new ArrayList<>();
        spout.get().emit(new BatchAttempt(txid, 2), meta.get(), twice::add);
        assertEquals(once, twice, "replay of txid " + txid);
        for (var e : meta.get().batchPartitions().entrySet()) {
          long inPartition = once.stream().filter(r -> (r.topic() + "-" + r.partition()).equals(e.getKey())).count();
          assertTrue(inPartition <= 17, "cap of 17 records per partition: " + inPartition);
          assertEquals(e.getValue().to() - e.getValue().from(), inPartition, "no gaps in a plain topic");
        }
        first.add(once);
        prev = meta;
      }
    }
    assertEquals(200, first.stream().mapToInt(List::size).sum());
    try (var again = closing(KafkaSpouts.transactional(cfg))) { // a restarted process replays recorded metadata
      for (int i = metas.size() - 1; i >= 0; i--) {
        List<KafkaRecord<String, String>> replay = new ArrayList<>();
        again.get().emit(new BatchAttempt(i + 1, 3), metas.get(i), replay::add);
        assertEquals(first.get(i), replay, "replay of txid " + (i + 1) + " by a new spout");
      }
    }
  }

  @Test
  void anOpaqueBatchContinuesWhereThePreviousOneEnded() {
    String topic = newTopic("op-continue");
    broker.createTopic(topic, 2);
    broker.produceSentences(topic, 2, 4, 0, 50);
    KafkaSpoutConfig<String, String> cfg = config(topic).maxRecordsPerPartition(10).build();
    try (var spout = closing(KafkaSpouts.opaque(cfg))) {
      OpaqueSpout<KafkaRecord<String, String>, PartitionedMetadata<OffsetRange>> s = spout.get();
      Optional<PartitionedMetadata<OffsetRange>> prev = Optional.empty();
      List<Long> seen = new ArrayList<>();
      long txid = 1;
      while (s.isReady(txid, prev)) {
        List<KafkaRecord<String, String>> out = new ArrayList<>();
        PartitionedMetadata<OffsetRange> next = s.emit(new BatchAttempt(txid, 1), prev, out::add);
        for (var e : next.batchPartitions().entrySet()) {
          prev.flatMap(m -> m.get(e.getKey()))
              .ifPresent(before -> assertEquals(before.to(), e.getValue().from(), "continues at " + before));
        }
        out.forEach(r -> seen.add(r.partition() * 1_000_000L + r.offset()));
        prev = Optional.of(next);
        txid++;
      }
      assertEquals(50, seen.size());
      assertEquals(50, seen.stream().distinct().count(), "no record twice");
      assertFalse(s.isReady(txid, prev));
    }
  }

  @Test
  void anIdleSpoutSeesRecordsAppendedLaterWhenAskedAgainForTheSameTxid() {
    String topic = newTopic("idle");
    broker.createTopic(topic, 2);
    broker.produceSentences(topic, 2, 5, 0, 10);
    KafkaSpoutConfig<String, String> cfg = config(topic).build();
    try (var tx = closing(KafkaSpouts.transactional(cfg)); var op = closing(KafkaSpouts.opaque(cfg))) {
      PartitionedMetadata<OffsetRange> first = tx.get().nextBatch(1, Optional.empty()).orElseThrow();
      tx.get().emit(new BatchAttempt(1, 1), first, r -> { });
      PartitionedMetadata<OffsetRange> opFirst = op.get().emit(new BatchAttempt(1, 1), Optional.empty(), r -> { });
      assertEquals(Optional.empty(), tx.get().nextBatch(2, Optional.of(first)), "nothing new yet");
      assertFalse(op.get().isReady(2, Optional.of(opFirst)), "nothing new yet");
      broker.produceSentences(topic, 2, 5, 10, 14);
      assertTrue(tx.get().nextBatch(2, Optional.of(first)).isPresent(), "txid 2 asked again sees the new records");
      assertTrue(op.get().isReady(2, Optional.of(opFirst)), "txid 2 asked again sees the new records");
    }
    try (CountWorld world = CountWorld.inMemory();
        Pipeline p = world.pipeline("idle", KafkaSpouts.transactional(cfg), b -> { })) {
      p.runUntilIdle();
      broker.produceSentences(topic, 2, 5, 14, 30);
      p.runUntilIdle(); // the same pipeline, idle in between
      assertEquals(CountWorld.recount(broker.values(topic)), world.counts("idle"));
    }
  }

  /** Closes a spout after use. */
  static <S extends io.epochal.spout.Spout<?, ?>> Closing<S> closing(S spout) {
    return new Closing<>(spout);
  }

  record Closing<S extends io.epochal.spout.Spout<?, ?>>(S get) implements AutoCloseable {
    @Override
    public void close() {
      get.close();
    }
  }

  @SuppressWarnings("unused")
  private static TransactionalSpout<KafkaRecord<String, String>, PartitionedMetadata<OffsetRange>> tx(
      KafkaSpoutConfig<String, String> c) {
    return KafkaSpouts.transactional(c);
  }
}
