package io.epochal.spouts.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.SourceLag;
import io.epochal.spout.LagReporting;
import io.epochal.spout.PartitionLag;
import io.epochal.spout.Spout;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Kafka spouts' lag report against the real in-process broker: end offset minus the committed batch's end per
 * partition while a topic is read part way, 0 once it is drained, the checkpoint's positions after a restart, reads
 * from another thread while the pipeline runs, and a typed failure within the timeout when no broker answers.
 */
class KafkaLagTest {
  @RegisterExtension
  static final TestBroker.Use BROKER = new TestBroker.Use();
  private static TestBroker broker;

  @BeforeAll
  static void startBroker() {
    broker = BROKER.get();
  }

  private static KafkaSpoutConfig<String, String> config(String topic, int cap) {
    return KafkaSpoutConfig.strings("words").bootstrapServers(broker.bootstrap()).topics(topic)
        .maxRecordsPerPartition(cap).apiTimeout(Duration.ofSeconds(10)).build();
  }

  private static Map<String, PartitionLag> lag(Spout<?, ?> spout) {
    return ((LagReporting) spout).sourceLag();
  }

  private static void produce(String topic, int partition, int count) {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      values.add("w" + (i % 7) + " x");
    }
    broker.produce(topic, partition, null, values);
  }

  @Test
  void aTransactionalSpoutReportsTheEndMinusTheCommittedRangeEndPerPartition() {
    String topic = TestBroker.newTopic("lag-tx");
    broker.createTopic(topic, 3);
    produce(topic, 0, 50);
    produce(topic, 1, 30); // partition 2 stays empty
    try (CountWorld world = CountWorld.inMemory()) {
      var spout = KafkaSpouts.transactional(config(topic, 10));
      try (Pipeline p = world.pipeline("lag", spout, b -> b.partitions(2).maxBatchesInFlight(1))) {
        assertEquals(Map.of(topic + "-0", new PartitionLag(50, 0), topic + "-1", new PartitionLag(30, 0),
            topic + "-2", new PartitionLag(0, 0)), lag(spout), "before the first batch: from the log start");
        p.run(2);
        Map<String, PartitionLag> part = lag(spout);
        assertEquals(Map.of(topic + "-0", new PartitionLag(50, 20), topic + "-1", new PartitionLag(30, 20),
            topic + "-2", new PartitionLag(0, 0)), part, "two committed batches of at most 10 per partition");
        assertEquals(List.of(SourceLag.read("words", part)), p.sourceLag(), "the pipeline reads the same report");
        assertEquals(30, part.get(topic + "-0").lag());
        assertEquals(10, part.get(topic + "-1").lag());
        p.runUntilIdle();
        lag(spout).values().forEach(l -> assertEquals(0, l.lag(), "drained: " + l));
        assertEquals(new PartitionLag(50, 50), lag(spout).get(topic + "-0"));
      }
      produce(topic, 1, 5);
      var again = KafkaSpouts.transactional(config(topic, 10)); // a restarted process, same checkpoint
      try (Pipeline p = world.pipeline("lag", again, b -> b.partitions(2).maxBatchesInFlight(1))) {
        p.run(1);
        assertEquals(Map.of(topic + "-0", new PartitionLag(50, 50), topic + "-1", new PartitionLag(35, 35),
            topic + "-2", new PartitionLag(0, 0)), lag(again));
        assertEquals(0, p.runUntilIdle().batches());
        assertEquals(Map.of(topic + "-0", new PartitionLag(50, 50), topic + "-1", new PartitionLag(35, 35),
            topic + "-2", new PartitionLag(0, 0)), lag(again));
      }
    }
  }

  @Test
  void aRestartedSpoutWithNothingNewReportsTheCheckpointsPositions() {
    String topic = TestBroker.newTopic("lag-seed");
    broker.createTopic(topic, 2);
    produce(topic, 0, 12);
    produce(topic, 1, 3);
    try (CountWorld world = CountWorld.inMemory()) {
      try (Pipeline p = world.pipeline("seed", KafkaSpouts.opaque(config(topic, 100)), b -> b.partitions(2))) {
        p.runUntilIdle();
      }
      var again = KafkaSpouts.opaque(config(topic, 100));
      try (Pipeline p = world.pipeline("seed", again, b -> b.partitions(2))) {
        assertEquals(0, p.runUntilIdle().batches(), "nothing new");
        assertEquals(Map.of(topic + "-0", new PartitionLag(12, 12), topic + "-1", new PartitionLag(3, 3)),
            lag(again), "the positions the checkpoint handed the spout, not the log start");
      }
    }
  }

  @Test
  void anOpaqueSpoutReportsTheLagOfItsLastCommittedEmission() {
    String topic = TestBroker.newTopic("lag-opaque");
    broker.createTopic(topic, 2);
    produce(topic, 0, 40);
    produce(topic, 1, 25);
    try (CountWorld world = CountWorld.inMemory()) {
      var spout = KafkaSpouts.opaque(config(topic, 10));
      try (Pipeline p = world.pipeline("lag", spout, b -> b.partitions(2).maxBatchesInFlight(1))) {
        p.run(1);
        assertEquals(Map.of(topic + "-0", new PartitionLag(40, 10), topic + "-1", new PartitionLag(25, 10)),
            lag(spout));
        p.runUntilIdle();
        assertEquals(Map.of(topic + "-0", new PartitionLag(40, 40), topic + "-1", new PartitionLag(25, 25)),
            lag(spout));
      }
    }
  }

  @Test
  void readsFromAnotherThreadWhileThePipelineRunsLeaveItsCountsExact() throws Exception {
    String topic = TestBroker.newTopic("lag-concurrent");
    broker.createTopic(topic, 4);
    broker.produceSentences(topic, 4, 16, 0, 4000);
    AtomicBoolean done = new AtomicBoolean();
    AtomicInteger reads = new AtomicInteger();
    try (CountWorld world = CountWorld.inMemory()) {
      var spout = KafkaSpouts.transactional(config(topic, 50));
      try (Pipeline p = world.pipeline("wc", spout, b -> b.partitions(4).threads(2).maxBatchesInFlight(3))) {
        CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> {
          while (!done.get()) {
            for (PartitionLag l : lag(spout).values()) {
              assertTrue(l.committed() <= l.end(), "never past the end: " + l);
            }
            reads.incrementAndGet();
          }
        });
        try {
          assertEquals(4000, p.runUntilIdle().records());
        } finally {
          done.set(true);
        }
        reader.get();
        assertEquals(CountWorld.recount(broker.values(topic)), world.counts("wc"));
        lag(spout).values().forEach(l -> assertEquals(0, l.lag(), "drained: " + l));
        assertTrue(reads.get() > 0);
      }
    }
  }

  @Test
  void noBrokerIsATypedFailureWithinTheTimeoutAndAClosedSpoutReportsNothing() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    var spout = KafkaSpouts.opaque(KafkaSpoutConfig.strings("gone").bootstrapServers("127.0.0.1:" + port)
        .topics("t").apiTimeout(Duration.ofSeconds(1)).build());
    long start = System.nanoTime();
    KafkaSpoutException e = assertThrows(KafkaSpoutException.class, () -> lag(spout));
    assertTrue(e instanceof KafkaUnavailableException, e.toString());
    assertTrue(System.nanoTime() - start < Duration.ofSeconds(10).toNanos(), "bounded by the API timeout");
    spout.close();
    assertThrows(KafkaSpoutException.class, () -> lag(spout));
  }
}
