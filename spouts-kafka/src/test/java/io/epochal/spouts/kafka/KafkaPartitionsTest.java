package io.epochal.spouts.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.pipeline.Pipeline;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** New partitions, start positions for partitions without committed offsets, the consumer-group mirror. */
class KafkaPartitionsTest {
  @RegisterExtension
  static final TestBroker.Use BROKER = new TestBroker.Use();
  private static TestBroker broker;

  @BeforeAll
  static void startBroker() {
    broker = BROKER.get();
  }

  static KafkaSpoutConfig.Builder<String, String> config(String topic) {
    return KafkaSpoutConfig.strings("parts").bootstrapServers(broker.bootstrap()).topics(topic)
        .apiTimeout(Duration.ofSeconds(10));
  }

  @Test
  void partitionsAddedToATopicAreDiscoveredAndReadFromTheirStart() throws Exception {
    for (boolean opaque : new boolean[] {false, true}) {
      String topic = TestBroker.newTopic("growing");
      broker.createTopic(topic, 2);
      broker.produceSentences(topic, 2, 21, 0, 100);
      KafkaSpoutConfig<String, String> cfg = config(topic).partitionDiscoveryInterval(Duration.ZERO)
          .maxRecordsPerPartition(30).build();
      try (CountWorld world = CountWorld.inMemory();
          Pipeline p = world.pipeline("grow", opaque ? KafkaSpouts.opaque(cfg) : KafkaSpouts.transactional(cfg),
              b -> b.partitions(2))) {
        p.run(2);
        broker.admin().createPartitions(Map.of(topic, NewPartitions.increaseTo(4))).all().get(30, TimeUnit.SECONDS);
        broker.awaitLeaders(topic, 4);
        broker.produceSentences(topic, 4, 22, 0, 200);
        p.runUntilIdle();
        assertEquals(300, broker.values(topic).size());
        assertEquals(CountWorld.recount(broker.values(topic)), world.counts("grow"), "opaque " + opaque);
      }
    }
  }

  @Test
  void latestStartsAtTheLogEndOfTheFirstBatchAndSkipsNothingAppendedAfterIt() {
    for (boolean opaque : new boolean[] {false, true}) {
      String topic = TestBroker.newTopic("latest");
      broker.createTopic(topic, 2);
      broker.produceSentences(topic, 2, 23, 0, 50);
      KafkaSpoutConfig<String, String> cfg = config(topic).startPosition(StartPosition.latest()).build();
      try (CountWorld world = CountWorld.inMemory()) {
        try (Pipeline p = world.pipeline("latest", opaque ? KafkaSpouts.opaque(cfg) : KafkaSpouts.transactional(cfg),
            b -> { })) {
          p.runUntilIdle();
          assertEquals(1, p.lastCommittedTxid(), "the first batch records the start positions, with no record");
        }
        assertEquals(Map.of(), world.counts("latest"));
        List<String> later = broker.produceSentences(topic, 2, 24, 0, 30);
        try (Pipeline p = world.pipeline("latest", opaque ? KafkaSpouts.opaque(cfg) : KafkaSpouts.transactional(cfg),
            b -> { })) {
          p.runUntilIdle();
        }
        assertEquals(CountWorld.recount(later), world.counts("latest"), "opaque " + opaque);
      }
    }
  }

  @Test
  void explicitStartOffsetsApplyToTheirPartitionsAndTheFallbackToTheOthers() {
    String topic = TestBroker.newTopic("explicit");
    broker.createTopic(topic, 2);
    broker.produceSentences(topic, 2, 25, 0, 60);
    KafkaSpoutConfig<String, String> cfg = config(topic).startPosition(StartPosition.offsets(
        Map.of(new TopicPartition(topic, 0), 10L), StartPosition.earliest())).build();
    List<String> expected = new ArrayList<>();
    for (var e : broker.readAll(topic).entrySet()) {
      for (ConsumerRecord<String, String> r : e.getValue()) {
        if (e.getKey() != 0 || r.offset() >= 10) {
          expected.add(r.value());
        }
      }
    }
    try (CountWorld world = CountWorld.inMemory();
        Pipeline p = world.pipeline("explicit", KafkaSpouts.transactional(cfg), b -> { })) {
      p.runUntilIdle();
      assertEquals(CountWorld.recount(expected), world.counts("explicit"));
    }
  }

  @Test
  void committedOffsetsAreMirroredToTheConsumerGroupAndNeverReadBack() throws Exception {
    String topic = TestBroker.newTopic("mirror");
    broker.createTopic(topic, 3);
    broker.produceSentences(topic, 3, 26, 0, 90);
    String group = "mirror-of-" + topic;
    KafkaSpoutConfig<String, String> cfg = config(topic).mirrorToConsumerGroup(group).maxRecordsPerPartition(7)
        .build();
    try (CountWorld world = CountWorld.inMemory()) {
      try (Pipeline p = world.pipeline("mirror", KafkaSpouts.opaque(cfg), b -> { })) {
        p.runUntilIdle();
      }
      Map<TopicPartition, OffsetAndMetadata> mirrored = broker.admin().listConsumerGroupOffsets(group)
          .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
      Map<TopicPartition, Long> offsets = new HashMap<>();
      mirrored.forEach((tp, o) -> offsets.put(tp, o.offset()));
      assertEquals(Map.of(new TopicPartition(topic, 0), 30L, new TopicPartition(topic, 1), 30L,
          new TopicPartition(topic, 2), 30L), offsets);
      // the group is not the truth: moving it back changes nothing
      broker.admin().alterConsumerGroupOffsets(group, Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(0)))
          .all().get(30, TimeUnit.SECONDS);
      broker.produceSentences(topic, 3, 27, 0, 9);
      try (Pipeline p = world.pipeline("mirror", KafkaSpouts.transactional(cfg), b -> { })) {
        p.runUntilIdle();
      }
      assertEquals(CountWorld.recount(broker.values(topic)), world.counts("mirror"));
      assertTrue(broker.admin().listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
          .get(30, TimeUnit.SECONDS).values().stream().allMatch(o -> o.offset() == 33));
    }
  }
}
