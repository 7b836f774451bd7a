package io.epochal.sinks.kafka;

import io.epochal.spouts.kafka.TestBroker;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.SinkPublishException;
import io.epochal.pipeline.KeyValue;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.sink.PartitionedSink;
import io.epochal.sinks.kafka.internal.ExactlyOnceKafkaSink;
import io.epochal.sinks.kafka.internal.KafkaPublisher;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The exactly-once Kafka sink in a word-count pipeline against a real in-process broker: a read_committed consumer
 * of the sink topic reads each expected output exactly once in a normal run, across process deaths inside the
 * sink's Kafka transaction and right after it, and the sink refuses to start over a topic where its transactional id
 * already published more than the checkpoint committed.
 */
class KafkaSinkTest {
  @RegisterExtension
  static final TestBroker.Use BROKER = new TestBroker.Use();
  private static final AtomicInteger RUNS = new AtomicInteger();

  /** A process death in the middle of the sink's publication. */
  static final class PublishCrash extends Error {
    private static final long serialVersionUID = 1L;

    PublishCrash(String where) {
      super("simulated crash " + where);
    }
  }

  private static Pipeline build(String name, TableStore store, String owner, PartitionedSink<KeyValue<String, Long>> sink,
      long sentences, int batch, int partitions) {
    TableCheckpointStore tables = TableCheckpointStore.builder(store).owner(owner).build();
    return SinkWorld.pipeline(name, SinkWorld.spout(7, sentences, batch), tables, tables, null, sink,
        b -> b.partitions(partitions).threads(2).maxBatchesInFlight(2).retryPolicy(RetryPolicy.immediate(3)));
  }

  @Test
  void aReadCommittedConsumerSeesEveryOutputOfAWordCountExactlyOnce() throws Exception {
    TestBroker broker = BROKER.get();
    String topic = TestBroker.newTopic("sink-plain");
    broker.createTopic(topic, 3);
    String name = "wc-" + RUNS.incrementAndGet();
    try (Pipeline p = build(name, TableStores.inMemory(), "w",
        KafkaSinks.exactlyOnce(SinkWorld.config(broker.bootstrap(), topic, name).build()), 3000, 100, 4)) {
      p.runUntilIdle();
      assertEquals(30, p.lastCommittedTxid());
    }
    List<String> expected = SinkWorld.all(SinkWorld.expected(7, 3000, 100));
    List<String> read = SinkWorld.published(broker, topic);
    SinkWorld.assertExactlyOnce(expected, read, "read_committed consumer");
  }

  @Test
  void aDeathInsideOrRightAfterTheKafkaTransactionNeitherLosesNorRepeatsOutputs() throws Exception {
    TestBroker broker = BROKER.get();
    for (boolean afterCommit : new boolean[] {false, true}) {
      String topic = TestBroker.newTopic(afterCommit ? "sink-after" : "sink-before");
      broker.createTopic(topic, 2);
      String name = "crash-" + RUNS.incrementAndGet();
      TableStore store = TableStores.inMemory();
      KafkaSinkConfig<KeyValue<String, Long>> cfg = SinkWorld.config(broker.bootstrap(), topic, name).build();
      int crashes = 0;
      // incarnation i < 8 dies at its (2 + i % 3)th publication (some partition of some batch, at times the first of
      // a batch, at times in the middle, at times the last); the 9th runs to the end
      for (int incarnation = 0; ; incarnation++) {
        AtomicInteger publications = new AtomicInteger();
        int dieAt = incarnation < 8 ? 2 + incarnation % 3 : -1;
        KafkaPublisher.Hook hook = new KafkaPublisher.Hook() {
          @Override
          public void beforeCommit(int partition, long txid) {
            if (!afterCommit && publications.incrementAndGet() == dieAt) {
              throw new PublishCrash("with txid " + txid + " partition " + partition + " sent, not committed");
            }
          }

          @Override
          public void afterCommit(int partition, long txid) {
            if (afterCommit && publications.incrementAndGet() == dieAt) {
              throw new PublishCrash("with txid " + txid + " partition " + partition + " committed in Kafka");
            }
          }
        };
        try (Pipeline p = build(name, store, "w" + incarnation, new ExactlyOnceKafkaSink<>(cfg, hook), 2000, 200, 3)) {
          try {
            p.runUntilIdle();
            break;
          } catch (PublishCrash e) {
            crashes++;
          }
        }
        assertTrue(incarnation < 8, "still crashing after 8 incarnations");
      }
      assertEquals(8, crashes, "every incarnation but the last died");
      List<String> expected = SinkWorld.all(SinkWorld.expected(7, 2000, 200));
      List<String> read = SinkWorld.published(broker, topic);
      SinkWorld.assertExactlyOnce(expected, read, afterCommit ? "after commit" : "before commit");
    }
  }

  @Test
  void aSinkWhoseTransactionalIdPublishedMoreThanTheCheckpointCommittedRefusesToStart() throws Exception {
    TestBroker broker = BROKER.get();
    String topic = TestBroker.newTopic("sink-ahead");
    broker.createTopic(topic, 1);
    String name = "ahead-" + RUNS.incrementAndGet();
    KafkaSinkConfig<KeyValue<String, Long>> cfg = SinkWorld.config(broker.bootstrap(), topic, name).build();
    try (Pipeline p = build(name, TableStores.inMemory(), "w", KafkaSinks.exactlyOnce(cfg), 500, 100, 1)) {
      p.runUntilIdle();
    }
    List<String> before = SinkWorld.published(broker, topic);
    // the same pipeline and sink over a fresh (reset) checkpoint store: committed txid 0, markers at 5
    try (Pipeline p = build(name, TableStores.inMemory(), "w", KafkaSinks.exactlyOnce(cfg), 500, 100, 1)) {
      SinkPublishException e = assertThrows(SinkPublishException.class, p::runUntilIdle);
      KafkaSinkMarkerAheadException ahead = assertInstanceOf(KafkaSinkMarkerAheadException.class, e.getCause());
      assertFalse(e.retryable());
      assertEquals(5, ahead.marker());
      assertEquals(0, ahead.committedTxid());
      assertEquals(name, ahead.pipeline());
      assertEquals(SinkWorld.SINK, ahead.sink());
      assertEquals(0, ahead.partition());
      assertEquals(0, p.lastCommittedTxid(), "nothing committed");
    }
    // another pipeline with the same prefix: the marker is not its own
    try (Pipeline p = build(name + "-other", TableStores.inMemory(), "w", KafkaSinks.exactlyOnce(cfg), 500, 100, 1)) {
      SinkPublishException e = assertThrows(SinkPublishException.class, p::runUntilIdle);
      KafkaSinkException foreign = assertInstanceOf(KafkaSinkException.class, e.getCause());
      assertFalse(foreign.retryable());
      assertTrue(foreign.getMessage().contains("share the transactional id prefix"), foreign.getMessage());
    }
    assertEquals(before, SinkWorld.published(broker, topic), "nothing more published");
  }

  @Test
  void anUnreachableClusterIsARetryableFailureAfterThePublishTimeout() {
    KafkaSinkConfig<KeyValue<String, Long>> cfg = SinkWorld.config("127.0.0.1:1", "nowhere", "unreachable")
        .apiTimeout(Duration.ofMillis(500)).publishTimeout(Duration.ofSeconds(2)).build();
    try (Pipeline p = build("unreachable", TableStores.inMemory(), "w", KafkaSinks.exactlyOnce(cfg), 100, 100, 1)) {
      SinkPublishException e = assertThrows(SinkPublishException.class, p::runUntilIdle);
      KafkaSinkUnavailableException u = assertInstanceOf(KafkaSinkUnavailableException.class, e.getCause());
      assertTrue(e.retryable(), "an unreachable broker is transient");
      assertEquals("unreachable-0", u.transactionalId());
    }
  }
}
