package io.epochal.store.rocksdb;

import io.epochal.codec.Codecs;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.spouts.GeneratedSpout;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import io.epochal.testkit.process.CrashWordCount;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * An in-process word count over a {@link RocksDbTableStore} (the epoch protocol, a {@code TransactionalMap} table),
 * as the examples' CLI runs it: each {@link #run} opens the state directory, continues after its committed txid up to
 * the given number of sentences, and closes it; {@link #recount} is the exact answer. For the corruption tests.
 */
final class WordCountRun {
  static final String PIPELINE = "wc";
  static final String STATE = "counts";
  static final String TABLE = PIPELINE + "/" + STATE;
  static final String TABLE_CF = "t:" + TABLE;
  static final String CHECKPOINT_CF = "t:__epochal_checkpoints";
  static final int BATCH = 100;
  private static final long SEED = 7;

  private WordCountRun() {
  }

  /** Counts sentences {@code [0, sentences)} into {@code dir}; throws what the pipeline or store threw. */
  static void run(Path dir, long sentences) {
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).build()) {
      TableCheckpointStore checkpoints = TableCheckpointStore.builder(store).owner("word-count-run").build();
      var counts = TransactionalTableLayout.factory(TableStates.builder(KeyCodec.strings("word"),
          Codecs.longs()));
      var builder = Pipeline.newBuilder(PIPELINE).partitions(2)
          .retryPolicy(new RetryPolicy(2, Duration.ofMillis(1), Duration.ofMillis(2)))
          .checkpointStore(checkpoints);
      builder.source(GeneratedSpout.of("sentences", sentences, BATCH, CrashWordCount.sentences(SEED)))
          .flatMap(CrashWordCount::words)
          .groupBy(w -> w)
          .persistentAggregate(STATE, counts, Aggregators.count());
      try (Pipeline pipeline = builder.build()) {
        pipeline.runUntilIdle();
      }
    }
  }

  /** Opens {@code dir} once and closes it again: RocksDB flushes the recovered WAL to SST files. */
  static void reopen(Path dir) {
    RocksDbTableStore.builder(dir).build().close();
  }

  /** @return the stored counts (a {@code TransactionalMap} table: value and txid per word) */
  static Map<String, Long> counts(Path dir) {
    Map<String, Long> out = new HashMap<>();
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).build()) {
      Optional<Table> table = store.findTable(TABLE);
      if (table.isEmpty()) {
        return out;
      }
      TransactionalTableLayout<Long> layout = new TransactionalTableLayout<>(Codecs.longs(), v -> false);
      try (StoreTransaction tx = store.begin()) {
        for (Row row : tx.scan(table.get())) {
          out.put(row.getString("word"), layout.read(row).value());
        }
      }
    }
    return out;
  }

  /** @return the exact counts of sentences {@code [0, sentences)} */
  static Map<String, Long> recount(long sentences) {
    Map<String, Long> out = new HashMap<>();
    var generator = CrashWordCount.sentences(SEED);
    for (long i = 0; i < sentences; i++) {
      for (String w : CrashWordCount.words(generator.apply(i))) {
        out.merge(w, 1L, Long::sum);
      }
    }
    return out;
  }
}
