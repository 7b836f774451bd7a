package io.epochal.spouts.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.errors.BatchFailedException;
import io.epochal.errors.EpochalException;
import io.epochal.errors.GuaranteeNotDeliverableException;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Guarantee;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.pipeline.Stream;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.PartitionedMetadata;
import io.epochal.spout.SpoutKind;
import io.epochal.spout.TransactionalSpout;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.Checkpoint;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableStates;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The bad cases against the real broker: undeserializable records (typed error or dead letters), offsets deleted by
 * retention (typed error under FAIL, explicit reset otherwise), a deleted topic and an unreachable broker (retryable,
 * bounded, then the pipeline stops).
 */
class KafkaErrorsTest {
  @RegisterExtension
  static final TestBroker.Use BROKER = new TestBroker.Use();
  private static TestBroker broker;

  @BeforeAll
  static void startBroker() {
    broker = BROKER.get();
  }

  static KafkaSpoutConfig.Builder<String, String> config(String topic) {
    return KafkaSpoutConfig.strings("errors").bootstrapServers(broker.bootstrap()).topics(topic)
        .apiTimeout(Duration.ofSeconds(10));
  }

  static <E extends Throwable> E causeOf(Throwable t, Class<E> type) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c)) {
        return type.cast(c);
      }
    }
    throw new AssertionError("no " + type.getSimpleName() + " in the cause chain of " + t, t);
  }

  /** Rejects values starting with "BAD". */
  public static final class PickyDeserializer implements Deserializer<String> {
    private final StringDeserializer strings = new StringDeserializer();

    @Override
    public String deserialize(String topic, byte[] data) {
      String s = strings.deserialize(topic, data);
      if (s != null && s.startsWith("BAD")) {
        throw new SerializationException("not a sentence: " + s);
      }
      return s;
    }

    @Override
    public String deserialize(String topic, Headers headers, byte[] data) {
      return deserialize(topic, data);
    }
  }

  private static String topicWithBadRecords(List<String> good) {
    String topic = TestBroker.newTopic("picky");
    broker.createTopic(topic, 2);
    List<String> p0 = new ArrayList<>(good.subList(0, good.size() / 2));
    List<String> p1 = new ArrayList<>(good.subList(good.size() / 2, good.size()));
    p1.add(7, "BAD one");
    p1.add(30, "BAD two");
    broker.produce(topic, 0, null, p0);
    broker.produce(topic, 1, null, p1);
    return topic;
  }

  private static List<String> sentences(long seed, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(TestBroker.sentence(seed, i));
    }
    return out;
  }

  @Test
  void anUndeserializableRecordStopsThePipelineWithATypedErrorNamingTopicPartitionAndOffset() {
    List<String> good = sentences(11, 100);
    String topic = topicWithBadRecords(good);
    KafkaSpoutConfig<String, String> cfg = KafkaSpoutConfig
        .builder("picky", StringDeserializer::new, PickyDeserializer::new).bootstrapServers(broker.bootstrap())
        .topics(topic).maxRecordsPerPartition(5).build();
    var spout = KafkaSpouts.transactional(cfg);
    try (CountWorld world = CountWorld.inMemory();
        Pipeline p = world.pipeline("picky", spout, b -> b.retryPolicy(RetryPolicy.immediate(3)))) {
      RuntimeException thrown = assertThrows(RuntimeException.class, p::runUntilIdle);
      KafkaDeserializationException e = causeOf(thrown, KafkaDeserializationException.class);
      assertEquals(Optional.of(topic), e.topic());
      assertEquals(1, e.partition().orElseThrow());
      assertEquals(7, e.offset().orElseThrow(), "the first bad record: offset 7 of partition 1");
      assertEquals(KafkaDeserializationException.Part.VALUE, e.part());
      assertFalse(e.retryable());
      assertFalse(EpochalException.isRetryable(e));
      assertEquals(Optional.of(topic + "-1@7"), e.context().key());
      assertInstanceOf(SerializationException.class, e.getCause());
      Checkpoint cp = world.checkpoints.load("picky");
      PartitionedMetadata<OffsetRange> committed = spout.metadataCodec().decode(cp.committedMetadata());
      assertTrue(committed.get(topic + "-1").orElseThrow().to() <= 7, "nothing at or after the bad record committed: "
          + committed);
    }
  }

  @Test
  void theDeadLetterSpoutEmitsUndeserializableRecordsIntoTheBatchAndTheyCommitInTheEpoch() {
    List<String> good = sentences(12, 100);
    String topic = topicWithBadRecords(good);
    KafkaSpoutConfig<String, String> cfg = KafkaSpoutConfig
        .builder("picky", StringDeserializer::new, PickyDeserializer::new).bootstrapServers(broker.bootstrap())
        .topics(topic).maxRecordsPerPartition(9).build();
    for (boolean opaque : new boolean[] {false, true}) {
      try (CountWorld world = CountWorld.inMemory()) {
        PipelineBuilder b = Pipeline.newBuilder("dl").checkpointStore(world.checkpoints)
            .retryPolicy(RetryPolicy.immediate(2));
        Stream<KafkaMessage<String, String>> in = b.source(opaque ? KafkaSpouts.opaqueWithDeadLetters(cfg)
            : KafkaSpouts.transactionalWithDeadLetters(cfg));
        in.flatMap(m -> m.record().map(CountWorld::words).orElse(List.of())).groupBy(w -> w)
            .persistentAggregate(CountWorld.TX, TransactionalTableLayout.factory(
                TableStates.builder(KeyCodec.strings("word"), Codecs.longs())), Aggregators.count());
        in.flatMap(m -> m.deadLetter().map(d -> List.of(d.topic() + "-" + d.partition() + "@" + d.offset() + " "
            + d.part() + " " + new String(d.value().orElseThrow()))).orElse(List.of())).groupBy(k -> k)
            .persistentAggregate("dead", TransactionalTableLayout.factory(
                TableStates.builder(KeyCodec.strings("word"), Codecs.longs())), Aggregators.count());
        try (Pipeline p = b.build()) {
          p.runUntilIdle();
        }
        assertEquals(CountWorld.recount(good), world.counts("dl"), "every good record, once");
        assertEquals(Map.of(topic + "-1@7 VALUE BAD one", 1L, topic + "-1@30 VALUE BAD two", 1L),
            CountWorld.read(world.store, "dl/dead", true), "every bad record, once, with its bytes");
      }
    }
  }

  @Test
  void aCommittedOffsetThatRetentionDeletedIsANamedNonRetryableError() throws Exception {
    String topic = TestBroker.newTopic("retention");
    broker.createTopic(topic, 1);
    List<String> first = sentences(13, 50);
    broker.produce(topic, 0, null, first);
    try (CountWorld world = CountWorld.inMemory()) {
      try (Pipeline p = world.pipeline("ret", KafkaSpouts.transactional(config(topic).build()), b -> { })) {
        p.runUntilIdle();
      }
      broker.produce(topic, 0, null, sentences(14, 50));
      broker.admin().deleteRecords(Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(80))).all()
          .get(30, TimeUnit.SECONDS);
      for (boolean opaque : new boolean[] {false, true}) {
        KafkaSpoutConfig<String, String> cfg = config(topic).build();
        try (Pipeline p = world.pipeline("ret", opaque ? KafkaSpouts.opaque(cfg) : KafkaSpouts.transactional(cfg),
            b -> b.retryPolicy(RetryPolicy.immediate(2)))) {
          RuntimeException thrown = assertThrows(RuntimeException.class, p::runUntilIdle);
          KafkaOffsetOutOfRangeException e = causeOf(thrown, KafkaOffsetOutOfRangeException.class);
          assertTrue(e.deletedByRetention());
          assertEquals(50, e.offset().orElseThrow());
          assertEquals(80, e.logStart());
          assertEquals(100, e.logEnd());
          assertEquals(0, e.partition().orElseThrow());
          assertFalse(e.retryable());
        }
        assertEquals(CountWorld.recount(first), world.counts("ret"), "nothing was counted past the gap");
      }
    }
  }

  @Test
  void aPendingRangeThatRetentionDeletedBeforeItsReplayIsANamedNonRetryableError() throws Exception {
    String topic = TestBroker.newTopic("retention-pending");
    broker.createTopic(topic, 1);
    broker.produce(topic, 0, null, sentences(15, 30));
    KafkaSpoutConfig<String, String> cfg = config(topic).maxRecordsPerPartition(10).build();
    TransactionalSpout<KafkaRecord<String, String>, PartitionedMetadata<OffsetRange>> spout =
        KafkaSpouts.transactional(cfg);
    PartitionedMetadata<OffsetRange> recorded;
    try {
      recorded = spout.nextBatch(1, Optional.empty()).orElseThrow();
    } finally {
      spout.close();
    }
    assertEquals(new OffsetRange(0, 10), recorded.get(topic + "-0").orElseThrow());
    broker.admin().deleteRecords(Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(5))).all()
        .get(30, TimeUnit.SECONDS);
    TransactionalSpout<KafkaRecord<String, String>, PartitionedMetadata<OffsetRange>> restarted =
        KafkaSpouts.transactional(cfg);
    try {
      KafkaOffsetOutOfRangeException e = assertThrows(KafkaOffsetOutOfRangeException.class,
          () -> restarted.emit(new BatchAttempt(1, 2), recorded, r -> { }));
      assertTrue(e.deletedByRetention());
      assertEquals(0, e.offset().orElseThrow());
      assertEquals(5, e.logStart());
      assertFalse(e.retryable());
      assertEquals(1, e.context().txid().orElseThrow());
    } finally {
      restarted.close();
    }
  }

  @Test
  void aResetPolicyGivesUpExactlyOnceExplicitlyAndThenSkipsTheDeletedOffsets() throws Exception {
    String topic = TestBroker.newTopic("reset");
    broker.createTopic(topic, 1);
    List<String> first = sentences(16, 50);
    broker.produce(topic, 0, null, first);
    List<String> second = sentences(17, 50);
    KafkaSpoutConfig<String, String> reset = config(topic)
        .offsetOutOfRange(OffsetOutOfRangePolicy.RESET_TO_EARLIEST).build();
    assertEquals(SpoutKind.NON_TRANSACTIONAL, KafkaSpouts.transactional(reset).kind());
    assertEquals(SpoutKind.NON_TRANSACTIONAL, KafkaSpouts.opaque(reset).kind());
    assertEquals(SpoutKind.TRANSACTIONAL, KafkaSpouts.transactional(config(topic).build()).kind());
    assertEquals(SpoutKind.OPAQUE, KafkaSpouts.opaque(config(topic).build()).kind());
    try (CountWorld world = CountWorld.inMemory()) {
      GuaranteeNotDeliverableException refused = assertThrows(GuaranteeNotDeliverableException.class,
          () -> world.pipeline("reset", KafkaSpouts.transactional(reset), b -> { }));
      assertTrue(refused.getMessage().contains("errors"), refused.getMessage());
      try (Pipeline p = world.pipeline("reset", KafkaSpouts.transactional(config(topic).build()), b -> { })) {
        p.runUntilIdle();
      }
      broker.produce(topic, 0, null, second);
      broker.admin().deleteRecords(Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(80))).all()
          .get(30, TimeUnit.SECONDS);
      try (Pipeline p = world.pipeline("reset", KafkaSpouts.transactional(reset),
          b -> b.guarantee(Guarantee.AT_LEAST_ONCE))) {
        p.runUntilIdle();
      }
      List<String> kept = new ArrayList<>(first);
      kept.addAll(second.subList(30, 50));
      assertEquals(CountWorld.recount(kept), world.counts("reset"), "offsets [50, 80) skipped, nothing else");
    }
  }

  @Test
  void aDeletedTopicFailsTheBatchRetryablyUntilTheRetryPolicyStopsThePipelineAndIsNotRecreated() throws Exception {
    String topic = TestBroker.newTopic("deleted");
    broker.createTopic(topic, 2);
    broker.produce(topic, 0, null, sentences(18, 20));
    try (CountWorld world = CountWorld.inMemory()) {
      try (Pipeline p = world.pipeline("del", KafkaSpouts.transactional(config(topic).build()), b -> { })) {
        p.runUntilIdle();
      }
      broker.deleteTopic(topic);
      for (boolean opaque : new boolean[] {false, true}) {
        KafkaSpoutConfig<String, String> cfg = config(topic).apiTimeout(Duration.ofSeconds(2))
            .partitionDiscoveryInterval(Duration.ZERO).build();
        try (Pipeline p = world.pipeline("del", opaque ? KafkaSpouts.opaque(cfg) : KafkaSpouts.transactional(cfg),
            b -> b.retryPolicy(new RetryPolicy(3, Duration.ofMillis(10), Duration.ofMillis(10))))) {
          RuntimeException thrown = assertTimeoutPreemptively(Duration.ofSeconds(120),
              () -> assertThrows(RuntimeException.class, p::runUntilIdle), "a deleted topic never hangs the pipeline");
          BatchFailedException failed = causeOf(thrown, BatchFailedException.class);
          assertEquals(3, failed.attempts());
          KafkaTopicNotFoundException e = causeOf(thrown, KafkaTopicNotFoundException.class);
          assertEquals(Optional.of(topic), e.topic());
          assertTrue(e.retryable());
        }
      }
      assertFalse(broker.admin().listTopics().names().get(30, TimeUnit.SECONDS).contains(topic),
          "the spout did not create the deleted topic again");
    }
  }

  @Test
  void anUnreachableBrokerFailsEachAttemptWithinTheApiTimeoutAndThenStopsThePipeline() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // nothing listens there once closed
    }
    KafkaSpoutConfig<String, String> cfg = KafkaSpoutConfig.strings("nowhere").bootstrapServers("localhost:" + port)
        .topics("t").apiTimeout(Duration.ofSeconds(1)).pollTimeout(Duration.ofMillis(50)).build();
    for (boolean opaque : new boolean[] {false, true}) {
      try (CountWorld world = CountWorld.inMemory();
          Pipeline p = world.pipeline("nowhere", opaque ? KafkaSpouts.opaque(cfg) : KafkaSpouts.transactional(cfg),
              b -> b.retryPolicy(new RetryPolicy(2, Duration.ofMillis(10), Duration.ofMillis(10))))) {
        RuntimeException thrown = assertTimeoutPreemptively(Duration.ofSeconds(60),
            () -> assertThrows(RuntimeException.class, p::runUntilIdle), "an unreachable broker never hangs");
        assertEquals(2, causeOf(thrown, BatchFailedException.class).attempts());
        KafkaUnavailableException e = causeOf(thrown, KafkaUnavailableException.class);
        assertTrue(e.retryable());
        assertTrue(e.getMessage().contains("localhost:" + port), e.getMessage());
        assertEquals(0, p.lastCommittedTxid());
      }
    }
  }

  @SuppressWarnings("unused")
  private static void unused(ConsumerRecord<?, ?> r) {
    assertNotNull(r);
  }
}
