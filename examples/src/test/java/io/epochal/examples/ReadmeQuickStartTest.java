package io.epochal.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.spouts.GeneratedSpout;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.store.CheckpointStore;
import io.epochal.store.InMemoryCheckpointStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The README's Quick start block is this test's code, verbatim (compared with whitespace collapsed), and it runs:
 * its word counts equal a recount of the generated sentences.
 */
class ReadmeQuickStartTest {

  @Test
  void theQuickStartCompilesRunsAndCountsEveryWordOnce() throws IOException {
    // README begin quick-start
    InMemoryBackingMap<String, TransactionalValue<Long>> store = new InMemoryBackingMap<>("word-counts");
    CheckpointStore checkpoints = new InMemoryCheckpointStore(); // RocksDB/PostgreSQL/YTsaurus: TableCheckpointStore

    PipelineBuilder builder = Pipeline.newBuilder("word-count")
        .partitions(4)              // key k goes to the quarter of the hash space holding farm_hash(k) (Partitioner)
        .threads(2)                 // process phase and per-partition commits run on 2 threads
        .maxBatchesInFlight(2)      // processing of batches overlaps, commits stay in txid order
        .checkpointStore(checkpoints);  // committed txid + spout metadata: a rebuilt pipeline resumes after it

    builder.source(GeneratedSpout.sentences("sentences", 42, 1_000_000, 5_000))   // transactional spout
        .flatMap(line -> Arrays.asList(line.split(" ")))
        .groupBy(word -> word)
        .persistentAggregate("word-counts", TransactionalMap.factory(store), Aggregators.count());

    try (Pipeline pipeline = builder.build()) {     // refuses pairings that cannot be exactly-once
      pipeline.runUntilIdle();
    }
    // README end quick-start

    Map<String, Long> expected = new HashMap<>();
    java.util.function.LongFunction<String> sentences = GeneratedSpout.sentences(42);
    for (long i = 0; i < 1_000_000; i++) {
      for (String w : sentences.apply(i).split(" ")) {
        expected.merge(w, 1L, Long::sum);
      }
    }
    Map<String, Long> stored = new HashMap<>();
    store.multiGet(expected.keySet()).forEach((word, cell) -> stored.put(word, cell.value()));
    assertEquals(expected, stored, "the Quick start's counts equal a recount of the sentences");
    assertEquals(block(readme()), block(ownSource()), "the README's Quick start is this test's code");
  }

  private static String readme() throws IOException {
    return Files.readString(Path.of("..", "README.md"));
  }

  private static String ownSource() throws IOException {
    return Files.readString(Path.of("src/test/java/io/epochal/examples/ReadmeQuickStartTest.java"));
  }

  /** The Quick start's code: the first java block after the heading, or the test's marked lines. */
  private static String block(String text) {
    int begin = text.indexOf("// README begin quick-start");
    String code;
    if (begin >= 0) {
      code = text.substring(text.indexOf('\n', begin) + 1, text.indexOf("// README end quick-start"));
    } else {
      int heading = text.indexOf("## Quick start");
      assertTrue(heading >= 0, "README has a Quick start");
      int open = text.indexOf("```java\n", heading) + "```java\n".length();
      code = text.substring(open, text.indexOf("```", open));
    }
    return code.replaceAll("\\s+", " ").trim();
  }
}
