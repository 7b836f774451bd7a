package io.epochal.sinks.kafka;

import io.epochal.spouts.kafka.TestBroker;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.EpochalException;
import io.epochal.sinks.kafka.KafkaOutput.Message;
import io.epochal.sinks.kafka.internal.KafkaPublisher;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Zombie fencing through Kafka: a second publisher of the same sink (same transactional id prefix, as a restarted
 * process builds) fences the first when it starts; the first's next publication fails loudly and publishes nothing,
 * and the second goes on from the marker the first left.
 */
class KafkaSinkFencingTest {
  @RegisterExtension
  static final TestBroker.Use BROKER = new TestBroker.Use();

  private static List<Message> messages(String... values) {
    return Arrays.stream(values).map(v -> Message.of(null, v.getBytes(StandardCharsets.UTF_8))).toList();
  }

  @Test
  void aSecondPublisherWithTheSamePrefixFencesTheFirstWhosePublicationFailsLoudly() throws Exception {
    TestBroker broker = BROKER.get();
    String topic = TestBroker.newTopic("sink-fence");
    broker.createTopic(topic, 1);
    KafkaSinkConfig<String> cfg = KafkaSinkConfig.<String>strings(v -> null, v -> v).bootstrapServers(
        broker.bootstrap()).topic(topic).transactionalIdPrefix(topic).build();
    try (KafkaPublisher first = new KafkaPublisher(cfg, KafkaPublisher.NONE);
        KafkaPublisher second = new KafkaPublisher(cfg, KafkaPublisher.NONE)) {
      first.bind("fence", "out", 10);
      assertEquals(0, first.lastPublished(0));
      first.publish(0, 1, messages("a1", "a2"));
      first.publish(0, 2, messages("a3"));

      second.bind("fence", "out", 10);
      assertEquals(2, second.lastPublished(0), "the newer publisher reads the marker the first left");

      KafkaSinkFencedException e = assertThrows(KafkaSinkFencedException.class,
          () -> first.publish(0, 3, messages("zombie")));
      assertFalse(e.retryable());
      assertFalse(EpochalException.isRetryable(e));
      assertEquals("fence", e.pipeline());
      assertEquals("out", e.sink());
      assertEquals(0, e.partition());
      assertEquals(3, e.txid());
      assertEquals(topic + "-0", e.transactionalId());
      assertTrue(e.getMessage().contains("fenced"), e.getMessage());

      second.publish(0, 3, messages("b3"));
      assertThrows(KafkaSinkFencedException.class, () -> first.publish(0, 4, messages("zombie")),
          "a fenced publisher stays fenced: it never takes its transactional id back");
      second.publish(0, 4, messages("b4"));
    }
    broker.awaitTransactionsSettled(topic);
    List<String> read = new ArrayList<>();
    for (ConsumerRecord<String, String> r : broker.readAll(topic).get(0)) {
      read.add(r.value());
    }
    assertEquals(List.of("a1", "a2", "a3", "b3", "b4"), read);
  }
}
