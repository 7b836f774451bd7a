package io.epochal.examples;

import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.Stream;
import io.epochal.spout.Spout;
import io.epochal.spouts.GeneratedSpout;
import io.epochal.spouts.ReCuttingOpaqueSpout;
import io.epochal.spouts.kafka.KafkaRecord;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongFunction;

/**
 * Exactly-once word count over generated sentences, or over the values of a Kafka topic (a record without a value
 * has no words). The recount splits the same sentences: generated again, or read back from the topic below the
 * committed offsets.
 */
final class WordCount implements Main.Example {
  private final Main.Options options;
  private final Optional<KafkaInput> kafka;
  private final LongFunction<String> sentences;
  private long words;

  WordCount(Main.Options options, Optional<KafkaInput> kafka) {
    this.options = options;
    this.kafka = kafka;
    this.sentences = GeneratedSpout.sentences(options.seed());
  }

  static Spout<String, ?> spout(Main.Options o, LongFunction<String> generator) {
    return o.spout().equals("opaque")
        ? ReCuttingOpaqueSpout.generated("sentences", o.count(), generator, Math.max(1, o.batchSize() / 2),
            o.batchSize(), o.seed())
        : GeneratedSpout.of("sentences", o.count(), o.batchSize(), generator);
  }

  /** The words of a Kafka record: its value split on spaces; none without a value. */
  static List<String> sentence(KafkaRecord<String, String> r) {
    return r.value().map(List::of).orElse(List.of());
  }

  @Override
  public Pipeline build(PipelineBuilder builder, ExampleStore store, RandomFaults faults) {
    String kind = options.spout();
    Stream<String> lines = kafka.isPresent()
        ? builder.source(kafka.get().spout("sentences", kind, options.batchSize())).flatMap(WordCount::sentence)
        : builder.source(spout(options, sentences));
    lines.flatMap(s -> Arrays.asList(s.split(" ")))
        .groupBy(w -> w)
        .persistentAggregate("word-counts", store.counts("word-counts", kind, faults), Aggregators.count());
    return builder.build();
  }

  @Override
  public List<String> states() {
    return List.of("word-counts");
  }

  @Override
  public Map<String, Map<String, Object>> recount(ExampleStore store) {
    Map<String, Object> counts = new HashMap<>();
    if (kafka.isPresent()) {
      kafka.get().committedRecords(store.checkpoint(options.command())).forEach(r -> {
        if (r.value().isPresent()) {
          count(counts, r.value().get());
        }
      });
    } else {
      for (long i = 0; i < options.count(); i++) {
        count(counts, sentences.apply(i));
      }
    }
    words = counts.values().stream().mapToLong(v -> (Long) v).sum();
    return Map.of("word-counts", counts);
  }

  private static void count(Map<String, Object> counts, String sentence) {
    for (String w : sentence.split(" ")) {
      counts.merge(w, 1L, (a, b) -> (Long) a + (Long) b);
    }
  }

  @Override
  public String unit() {
    return "words";
  }

  @Override
  public long units() {
    if (words == 0 && kafka.isEmpty()) {
      for (long i = 0; i < options.count(); i++) {
        words += sentences.apply(i).split(" ").length;
      }
    }
    return words;
  }
}
