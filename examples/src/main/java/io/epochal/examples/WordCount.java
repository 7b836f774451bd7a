package io.epochal.examples;

import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.spout.Spout;
import io.epochal.spouts.GeneratedSpout;
import io.epochal.spouts.ReCuttingOpaqueSpout;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;

/** Exactly-once word count over generated sentences. */
final class WordCount implements Main.Example {
  private final Main.Options options;
  private final LongFunction<String> sentences;
  private long words;

  WordCount(Main.Options options) {
    this.options = options;
    this.sentences = GeneratedSpout.sentences(options.seed());
  }

  static Spout<String, ?> spout(Main.Options o, LongFunction<String> generator) {
    return o.spout().equals("opaque")
        ? ReCuttingOpaqueSpout.generated("sentences", o.count(), generator, Math.max(1, o.batchSize() / 2),
            o.batchSize(), o.seed())
        : GeneratedSpout.of("sentences", o.count(), o.batchSize(), generator);
  }

  @Override
  public Pipeline build(PipelineBuilder builder, ExampleStore store, RandomFaults faults) {
    String kind = options.spout().equals("opaque") ? "opaque" : "transactional";
    builder.source(spout(options, sentences))
        .flatMap(s -> Arrays.asList(s.split(" ")))
        .groupBy(w -> w)
        .persistentAggregate("word-counts", store.counts("word-counts", kind, faults), Aggregators.count());
    return builder.build();
  }

  @Override
  public List<String> states() {
    return List.of("word-counts");
  }

  @Override
  public Map<String, Map<String, Object>> recount() {
    Map<String, Object> counts = new HashMap<>();
    for (long i = 0; i < options.count(); i++) {
      for (String w : sentences.apply(i).split(" ")) {
        counts.merge(w, 1L, (a, b) -> (Long) a + (Long) b);
      }
    }
    words = counts.values().stream().mapToLong(v -> (Long) v).sum();
    return Map.of("word-counts", counts);
  }

  @Override
  public String unit() {
    return "words";
  }

  @Override
  public long units() {
    if (words == 0) {
      recount();
    }
    return words;
  }
}
