package io.epochal.tools;

import io.epochal.codec.Codecs;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.Stream;
import io.epochal.spouts.GeneratedSpout;
import io.epochal.state.opaque.OpaqueTableLayout;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import io.epochal.store.table.TableStore;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongFunction;

/**
 * A real word count for the tool's tests: {@value #SENTENCES} generated sentences in batches of {@value #BATCH}
 * (so {@value #BATCHES} committed batches) counted into two states of pipeline {@value #PIPELINE}: {@code word-counts}
 * (transactional cells, values {@code long-be:v1}) and {@code opaque-counts} (opaque cells, values Kryo).
 */
final class WordCountState {
  static final String PIPELINE = "wc";
  static final String COUNTS = PIPELINE + "/word-counts";
  static final String OPAQUE = PIPELINE + "/opaque-counts";
  static final int SENTENCES = 200;
  static final int BATCH = 20;
  static final int BATCHES = SENTENCES / BATCH;
  private static final long SEED = 7;

  private WordCountState() {
  }

  /** Runs the word count over {@code store} (left open). */
  static void run(TableStore store) {
    TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
    var builder = Pipeline.newBuilder(PIPELINE).checkpointStore(checkpoints);
    Stream<String> words = builder.source(GeneratedSpout.sentences("sentences", SEED, SENTENCES, BATCH))
        .flatMap(s -> Arrays.asList(s.split(" ")));
    words.groupBy(w -> w).persistentAggregate("word-counts", TransactionalTableLayout.factory(
        TableStates.builder(KeyCodec.strings(), Codecs.longs()).emptyValue(0L)), Aggregators.count());
    words.groupBy(w -> w).persistentAggregate("opaque-counts", OpaqueTableLayout.factory(
        TableStates.<String, Long>builder(KeyCodec.strings())), Aggregators.count());
    try (Pipeline p = builder.build()) {
      p.runUntilIdle();
    }
  }

  /** @return the expected counts: a plain recount of the sentences */
  static Map<String, Long> expected() {
    Map<String, Long> counts = new TreeMap<>();
    LongFunction<String> sentences = GeneratedSpout.sentences(SEED);
    for (long i = 0; i < SENTENCES; i++) {
      for (String w : sentences.apply(i).split(" ")) {
        counts.merge(w, 1L, Long::sum);
      }
    }
    return counts;
  }
}
