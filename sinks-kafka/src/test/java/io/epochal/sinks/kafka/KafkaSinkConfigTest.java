package io.epochal.sinks.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.CodecException;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.KeyValue;
import io.epochal.pipeline.MapStateRef;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.sinks.kafka.KafkaOutput.Header;
import io.epochal.sinks.kafka.KafkaOutput.Message;
import io.epochal.sinks.kafka.internal.MessageCodec;
import io.epochal.spouts.ListSpout;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.transactional.TransactionalMap;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** The sink's configuration checks and the outbox codec of its Kafka records. */
class KafkaSinkConfigTest {

  private static KafkaSinkConfig.Builder<String> valid() {
    return KafkaSinkConfig.<String>strings(v -> v, v -> v).bootstrapServers("localhost:9092").topic("t")
        .transactionalIdPrefix("p");
  }

  @Test
  void theBootstrapTopicAndPrefixAreRequiredAndTimeoutsPositive() {
    assertEquals("p", valid().build().transactionalIdPrefix());
    assertThrows(IllegalArgumentException.class, () -> valid().transactionalIdPrefix(null).build());
    assertThrows(IllegalArgumentException.class, () -> valid().transactionalIdPrefix(" ").build());
    assertThrows(IllegalArgumentException.class, () -> valid().topic(null).build());
    assertThrows(IllegalArgumentException.class, () -> valid().bootstrapServers("").build());
    assertThrows(IllegalArgumentException.class, () -> valid().apiTimeout(Duration.ZERO).build());
    assertThrows(IllegalArgumentException.class, () -> valid().publishTimeout(Duration.ofSeconds(-1)).build());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> valid().clientProperty("transactional.id", "x").build());
    assertTrue(e.getMessage().contains("transactional.id"));
  }

  /** The README's Kafka output snippet, verbatim (examples' ReadmeSnippetsTest compares it): it wires, offline. */
  @Test
  void theReadmeSnippetConfiguresTheSinkOfANewValuesStream() {
    PipelineBuilder builder = Pipeline.newBuilder("word-count");
    MapStateRef<String, Long> counts = builder.source(ListSpout.of("words", List.of("a", "b"), 1))
        .groupBy((String word) -> word)
        .persistentAggregate("word-counts", TransactionalMap.factory(new InMemoryBackingMap<>()), Aggregators.count());
    // README begin kafka-output
    KafkaSinkConfig<KeyValue<String, Long>> out = KafkaSinkConfig.<KeyValue<String, Long>>strings(
            KeyValue::key, kv -> Long.toString(kv.value()))      // or builder(KafkaOutput): key, value, headers, partition
        .bootstrapServers("localhost:9092").topic("word-counts")
        .transactionalIdPrefix("word-count.counts-out")           // required: stable and unique per pipeline + sink
        .build();
    counts.newValuesStream().to("counts-out", KafkaSinks.exactlyOnce(out));
    // README end kafka-output
    assertEquals("word-count.counts-out", out.transactionalIdPrefix());
    assertEquals("word-counts", out.topic());
    Message m = out.output().toMessage("word-counts", new KeyValue<>("a", 2L));
    assertArrayEquals("a".getBytes(StandardCharsets.UTF_8), m.key().orElseThrow());
    assertArrayEquals("2".getBytes(StandardCharsets.UTF_8), m.value().orElseThrow());
  }

  @Test
  void theStringOutputSerializesKeyAndValueAndMapsNullToAbsent() {
    KafkaOutput<String> out = KafkaOutput.strings(v -> v.equals("nokey") ? null : "k-" + v, v -> v);
    Message m = out.toMessage("t", "x");
    assertArrayEquals("k-x".getBytes(StandardCharsets.UTF_8), m.key().orElseThrow());
    assertArrayEquals("x".getBytes(StandardCharsets.UTF_8), m.value().orElseThrow());
    assertTrue(out.toMessage("t", "nokey").key().isEmpty());
  }

  @Test
  void theOutboxCodecRoundTripsEveryFieldAndRejectsDamagedBytes() {
    List<Message> samples = List.of(
        Message.of(null, null),
        Message.of(new byte[0], "v".getBytes(StandardCharsets.UTF_8)),
        new Message(OptionalInt.of(3), Optional.of(new byte[] {1, 2}), Optional.empty(),
            List.of(new Header("h1", Optional.of(new byte[] {9})), new Header("h2", Optional.empty()))));
    for (Message m : samples) {
      byte[] bytes = MessageCodec.INSTANCE.encode(m);
      assertEquals(m, MessageCodec.INSTANCE.decode(bytes));
      for (int cut = 0; cut < bytes.length; cut++) {
        byte[] truncated = Arrays.copyOf(bytes, cut);
        assertThrows(CodecException.class, () -> MessageCodec.INSTANCE.decode(truncated), "cut at " + cut);
      }
      byte[] trailing = Arrays.copyOf(bytes, bytes.length + 1);
      assertThrows(CodecException.class, () -> MessageCodec.INSTANCE.decode(trailing));
    }
    assertThrows(IllegalArgumentException.class,
        () -> new Message(OptionalInt.of(-1), Optional.empty(), Optional.empty(), List.of()));
  }
}
