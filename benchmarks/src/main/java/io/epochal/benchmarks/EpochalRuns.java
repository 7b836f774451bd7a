package io.epochal.benchmarks;

import io.epochal.codec.Codecs;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.BatchReport;
import io.epochal.pipeline.Guarantee;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.PipelineListener;
import io.epochal.spout.Spout;
import io.epochal.spouts.FileSpout;
import io.epochal.spouts.GeneratedSpout;
import io.epochal.state.CachedMap;
import io.epochal.state.IBackingMap;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import io.epochal.state.opaque.OpaqueTableLayout;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.store.postgres.PostgresTableStore;
import io.epochal.store.rocksdb.RocksDbTableStore;
import io.epochal.store.table.BackingMapLayer;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableStates;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Epochal word count, {@code flatMap(split) → groupBy(word) → persistentAggregate(count)}, exactly-once, over:
 * <ul>
 *   <li>{@code mem-tx}: a {@link TransactionalMap} over an {@link InMemoryBackingMap} (per-key protocol) fed by the
 *       transactional {@link FileSpout};</li>
 *   <li>{@code mem-opaque}: an {@code OpaqueMap} table of the in-memory table store (epoch protocol) fed by the
 *       opaque {@link FileOpaqueSpout};</li>
 *   <li>{@code rocksdb-tx} / {@code rocksdb-opaque}: the same over {@link RocksDbTableStore} (epoch protocol: every
 *       dirty row, the spout metadata and the txid in one RocksDB write batch);</li>
 *   <li>{@code pg-tx} / {@code pg-opaque}: the same over {@link PostgresTableStore} (epoch protocol: one SQL
 *       transaction per batch).</li>
 * </ul>
 * and, for the delivery modes, {@code rocksdb-tx} and {@code rocksdb-opaque} under {@code AT_LEAST_ONCE} and
 * {@code AT_MOST_ONCE} (no failures: every mode must give the recount).
 */
public final class EpochalRuns {
  static final String PIPELINE = "wc";
  static final String STATE = "counts";

  private EpochalRuns() {
  }

  /**
   * Variant {@code epochal-mem-tx}: a TransactionalMap over an in-memory backing map, counts read from its snapshot.
   *
   * @param ctx the run: corpus, work directory, {@code batch=}, {@code threads=}, {@code partitions=},
   *     {@code inflight=} and the meter
   * @return the committed counts, read back from the store after the timed section
   */
  public static Map<String, Long> memTx(RunContext ctx) {
    InMemoryBackingMap<String, TransactionalValue<Long>> store = new InMemoryBackingMap<>("counts");
    run(ctx, PIPELINE, transactionalSpout(ctx), TransactionalMap.factory(store));
    Map<String, Long> out = new HashMap<>();
    store.snapshot().forEach((w, cell) -> out.put(w, cell.value()));
    return out;
  }

  /**
   * Variant {@code epochal-mem-opaque}: the opaque table layout on the in-memory table store, checkpoints in the same store.
   *
   * @param ctx the run: corpus, work directory, {@code batch=}, {@code threads=}, {@code partitions=},
   *     {@code inflight=} and the meter
   * @return the committed counts, read back from the store after the timed section
   */
  public static Map<String, Long> memOpaque(RunContext ctx) {
    TableStore store = TableStores.inMemory();
    TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
    run(ctx, PIPELINE, opaqueSpout(ctx), OpaqueTableLayout.factory(
        TableStates.builder(KeyCodec.strings("word"), Codecs.longs())), checkpoints);
    return scan(store, PIPELINE + "/" + STATE);
  }

  /**
   * Variant {@code epochal-rocksdb-tx}: the transactional table layout on RocksDB, exactly once.
   *
   * @param ctx the run: corpus, work directory, {@code batch=}, {@code threads=}, {@code partitions=},
   *     {@code inflight=} and the meter
   * @return the committed counts, read back from the store after the timed section
   */
  public static Map<String, Long> rocksTx(RunContext ctx) {
    return rocks(ctx, false);
  }

  /**
   * Variant {@code epochal-rocksdb-opaque}: the opaque table layout on RocksDB, exactly once.
   *
   * @param ctx the run: corpus, work directory, {@code batch=}, {@code threads=}, {@code partitions=},
   *     {@code inflight=} and the meter
   * @return the committed counts, read back from the store after the timed section
   */
  public static Map<String, Long> rocksOpaque(RunContext ctx) {
    return rocks(ctx, true);
  }

  /**
   * Variant {@code epochal-rocksdb-tx-alo}: {@link #rocksTx} under {@code AT_LEAST_ONCE}.
   *
   * @param ctx the run: corpus, work directory, {@code batch=}, {@code threads=}, {@code partitions=},
   *     {@code inflight=} and the meter
   * @return the committed counts, read back from the store after the timed section
   */
  public static Map<String, Long> rocksTxAtLeastOnce(RunContext ctx) {
    return rocks(ctx, false, Guarantee.AT_LEAST_ONCE);
  }

  /**
   * Variant {@code epochal-rocksdb-tx-amo}: {@link #rocksTx} under {@code AT_MOST_ONCE}.
   *
   * @param ctx the run: corpus, work directory, {@code batch=}, {@code threads=}, {@code partitions=},
   *     {@code inflight=} and the meter
   * @return the committed counts, read back from the store after the timed section
   */
  public static Map<String, Long> rocksTxAtMostOnce(RunContext ctx) {
    return rocks(ctx, false, Guarantee.AT_MOST_ONCE);
  }

  /**
   * Variant {@code epochal-rocksdb-opaque-alo}: {@link #rocksOpaque} under {@code AT_LEAST_ONCE}.
   *
   * @param ctx the run: corpus, work directory, {@code batch=}, {@code threads=}, {@code partitions=},
   *     {@code inflight=} and the meter
   * @return the committed counts, read back from the store after the timed section
   */
  public static Map<String, Long> rocksOpaqueAtLeastOnce(RunContext ctx) {
    return rocks(ctx, true, Guarantee.AT_LEAST_ONCE);
  }

  /**
   * Variant {@code epochal-rocksdb-opaque-amo}: {@link #rocksOpaque} under {@code AT_MOST_ONCE}.
   *
   * @param ctx the run: corpus, work directory, {@code batch=}, {@code threads=}, {@code partitions=},
   *     {@code inflight=} and the meter
   * @return the committed counts, read back from the store after the timed section
   */
  public static Map<String, Long> rocksOpaqueAtMostOnce(RunContext ctx) {
    return rocks(ctx, true, Guarantee.AT_MOST_ONCE);
  }

  private static Map<String, Long> rocks(RunContext ctx, boolean opaque) {
    return rocks(ctx, opaque, Guarantee.EXACTLY_ONCE);
  }

  private static Map<String, Long> rocks(RunContext ctx, boolean opaque, Guarantee guarantee) {
    try (RocksDbTableStore store = RocksDbTableStore.builder(ctx.work().resolve("rocksdb")).build()) {
      TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
      TableStates.Builder<String, Long> states =
          TableStates.builder(KeyCodec.strings("word"), Codecs.longs());
      if (opaque) {
        run(ctx, PIPELINE, opaqueSpout(ctx), OpaqueTableLayout.factory(states), checkpoints, guarantee);
      } else {
        run(ctx, PIPELINE, transactionalSpout(ctx), TransactionalTableLayout.factory(states), checkpoints,
            guarantee);
      }
      return scan(store, PIPELINE + "/" + STATE);
    }
  }

  /**
   * Variant {@code epochal-pg-tx}: the transactional table layout on PostgreSQL, in a schema dropped after the run.
   *
   * @param ctx the run: corpus, {@code batch=}, {@code threads=}, {@code partitions=}, {@code inflight=},
   *     {@code jdbc=}, {@code jdbcUser=}, {@code schema=} and the meter
   * @return the committed counts, read back from the store after the timed section
   */
  public static Map<String, Long> pgTx(RunContext ctx) {
    return postgres(ctx, false, false);
  }

  /**
   * Variant {@code epochal-pg-opaque}: the opaque table layout on PostgreSQL, in a schema dropped after the run.
   *
   * @param ctx the run: corpus, {@code batch=}, {@code threads=}, {@code partitions=}, {@code inflight=},
   *     {@code jdbc=}, {@code jdbcUser=}, {@code schema=} and the meter
   * @return the committed counts, read back from the store after the timed section
   */
  public static Map<String, Long> pgOpaque(RunContext ctx) {
    return postgres(ctx, true, false);
  }

  /**
   * Variant {@code epochal-pg-tx-cached}: {@code pg-tx} with a {@link CachedMap} of committed cells under the txid
   * rule (one writer per table).
   *
   * @param ctx the run: corpus, {@code batch=}, {@code threads=}, {@code partitions=}, {@code inflight=},
   *     {@code jdbc=}, {@code jdbcUser=}, {@code schema=} and the meter
   * @return the committed counts, read back from the store after the timed section
   */
  public static Map<String, Long> pgTxCached(RunContext ctx) {
    return postgres(ctx, false, true);
  }

  /**
   * The word count on {@link PostgresTableStore} (epoch protocol: per batch, every dirty row, the spout metadata and
   * the txid in one SQL transaction), in a schema of its own, dropped after the run.
   */
  private static Map<String, Long> postgres(RunContext ctx, boolean opaque, boolean cached) {
    try {
      try (PostgresTableStore store = PostgresTableStore.builder(ctx.jdbcUrl()).user(ctx.jdbcUser())
          .password(PostgresServer.childPassword()).schema(ctx.schema()).build()) {
        TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
        TableStates.Builder<String, Long> states =
            TableStates.builder(KeyCodec.strings("word"), Codecs.longs());
        if (cached) {
          states.layer(new BackingMapLayer() {
            @Override
            public <K, C> IBackingMap<K, C> wrap(IBackingMap<K, C> inner) {
              return new CachedMap<>(inner, 1_000_000);
            }
          });
        }
        if (opaque) {
          run(ctx, PIPELINE, opaqueSpout(ctx), OpaqueTableLayout.factory(states), checkpoints);
        } else {
          run(ctx, PIPELINE, transactionalSpout(ctx), TransactionalTableLayout.factory(states), checkpoints);
        }
        return scan(store, PIPELINE + "/" + STATE);
      }
    } finally {
      PostgresServer.dropSchema(ctx.jdbcUrl(), ctx.jdbcUser(), PostgresServer.childPassword(), ctx.schema());
    }
  }

  /**
   * The scale run (child JVM with a small heap): the RocksDB transactional word count over a state that already holds
   * {@code prefill} distinct keys ({@code p0 …}, written through an Epochal pipeline before the timed section), or
   * none. Verifies only the corpus' words.
   *
   * @param ctx the run: as {@link #rocksTx}, plus {@code prefill=} (distinct keys written before, default 0)
   * @return the counts of the corpus' words only, looked up in the store after the timed section (the prefilled
   *     keys are left out)
   */
  public static Map<String, Long> rocksScale(RunContext ctx) {
    long prefillKeys = ctx.options().longValue("prefill", 0);
    try (RocksDbTableStore store = RocksDbTableStore.builder(ctx.work().resolve("rocksdb")).build()) {
      String table = "scale/counts";
      if (prefillKeys > 0) {
        long t0 = System.nanoTime();
        TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
        long sentences = (prefillKeys + Corpus.WORDS_PER_SENTENCE - 1) / Corpus.WORDS_PER_SENTENCE;
        PipelineBuilder b = Pipeline.newBuilder("prefill").partitions(ctx.partitions()).threads(ctx.threads())
            .maxBatchesInFlight(ctx.inFlight()).checkpointStore(checkpoints);
        b.source(GeneratedSpout.of("prefill", sentences, ctx.batch(), i -> {
          StringBuilder sb = new StringBuilder(120);
          for (long k = i * Corpus.WORDS_PER_SENTENCE; k < (i + 1) * Corpus.WORDS_PER_SENTENCE; k++) {
            sb.append(sb.length() == 0 ? "" : " ").append('p').append(k);
          }
          return sb.toString();
        }))
            .flatMap(line -> Arrays.asList(line.split(" ")))
            .groupBy(w -> w)
            .persistentAggregate(STATE, TransactionalTableLayout.factory(
                TableStates.builder(KeyCodec.strings("word"), Codecs.longs()).table(table)),
                Aggregators.count());
        try (Pipeline p = b.build()) {
          p.runUntilIdle();
        }
        ctx.extra().setProperty("prefillKeys", Long.toString(sentences * Corpus.WORDS_PER_SENTENCE));
        ctx.extra().setProperty("prefillSeconds", String.format("%.1f", (System.nanoTime() - t0) / 1e9));
        System.gc();
        // The bulk load leaves RocksDB flushes and compactions running: let them finish before the timed run, as in
        // a store that holds 10M keys in steady state.
        ctx.extra().setProperty("quiesceSeconds", String.format("%.1f", quiesce(300_000) / 1e9));
      }
      TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
      run(ctx, PIPELINE, transactionalSpout(ctx), TransactionalTableLayout.factory(
          TableStates.builder(KeyCodec.strings("word"), Codecs.longs()).table(table)), checkpoints);
      System.gc();
      ctx.extra().setProperty("heapAfterGcBytes", Long.toString(
          Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()));
      // Read back the corpus' words only (the prefilled keys do not fit a 512 MiB heap as rows).
      Map<String, Long> expectedWords = Corpus.count(ctx.corpus());
      return lookup(store, table, new ArrayList<>(expectedWords.keySet()));
    }
  }

  /**
   * Waits until this process uses less than 10% of a core over a second (background compactions done), at most
   * {@code maxMillis}.
   *
   * @return the nanoseconds waited
   */
  static long quiesce(long maxMillis) {
    long start = System.nanoTime();
    long lastCpu = Meter.processCpuNanos();
    long last = start;
    while (System.nanoTime() - start < maxMillis * 1_000_000L) {
      try {
        Thread.sleep(1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      long now = System.nanoTime();
      long cpu = Meter.processCpuNanos();
      if ((cpu - lastCpu) < 0.1 * (now - last)) {
        break;
      }
      lastCpu = cpu;
      last = now;
    }
    return System.nanoTime() - start;
  }

  private static Spout<String, ?> transactionalSpout(RunContext ctx) {
    return FileSpout.transactional("corpus", List.of(ctx.corpus()), ctx.batch());
  }

  private static Spout<String, ?> opaqueSpout(RunContext ctx) {
    return new FileOpaqueSpout("corpus", ctx.corpus(), ctx.batch());
  }

  private static void run(RunContext ctx, String name, Spout<String, ?> spout,
      StateFactory<? extends MapState<String, Long>> counts) {
    run(ctx, name, spout, counts, null);
  }

  private static void run(RunContext ctx, String name, Spout<String, ?> spout,
      StateFactory<? extends MapState<String, Long>> counts, TableCheckpointStore checkpoints) {
    run(ctx, name, spout, counts, checkpoints, Guarantee.EXACTLY_ONCE);
  }

  private static void run(RunContext ctx, String name, Spout<String, ?> spout,
      StateFactory<? extends MapState<String, Long>> counts, TableCheckpointStore checkpoints, Guarantee guarantee) {
    List<Long> commitNanos = new ArrayList<>();
    long[] dropped = {0};
    PipelineBuilder b = Pipeline.newBuilder(name).partitions(ctx.partitions()).threads(ctx.threads())
        .maxBatchesInFlight(ctx.inFlight()).guarantee(guarantee)
        .listener(new PipelineListener() {
          @Override
          public void onBatchCommitted(BatchReport report) {
            commitNanos.add(report.commitNanos());
          }

          @Override
          public void onBatchDropped(long txid, Throwable cause) {
            dropped[0]++;
          }
        });
    if (checkpoints != null) {
      b.checkpointStore(checkpoints);
    }
    b.source(spout)
        .flatMap(line -> Arrays.asList(line.split(" ")))
        .groupBy(w -> w)
        .persistentAggregate(STATE, counts, Aggregators.count());
    try (Pipeline p = b.build()) {
      ctx.meter().start();
      p.runUntilIdle();
      ctx.meter().stop();
    }
    recordCommits(ctx, commitNanos);
    if (guarantee != Guarantee.EXACTLY_ONCE) {
      ctx.extra().setProperty("droppedBatches", Long.toString(dropped[0]));
    }
  }

  /** Records the batch count and the commit latency percentiles of a run. */
  static void recordCommits(RunContext ctx, List<Long> commitNanos) {
    long[] sorted = commitNanos.stream().mapToLong(Long::longValue).sorted().toArray();
    ctx.extra().setProperty("batches", Integer.toString(sorted.length));
    if (sorted.length > 0) {
      ctx.extra().setProperty("commitP50Micros", Long.toString(percentile(sorted, 0.50) / 1000));
      ctx.extra().setProperty("commitP99Micros", Long.toString(percentile(sorted, 0.99) / 1000));
      ctx.extra().setProperty("commitMaxMicros", Long.toString(sorted[sorted.length - 1] / 1000));
    }
  }

  static long percentile(long[] sorted, double p) {
    int i = (int) Math.ceil(p * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }

  static Map<String, Long> scan(TableStore store, String path) {
    Table table = store.findTable(path).orElseThrow(() -> new IllegalStateException("no table " + path));
    Map<String, Long> out = new HashMap<>();
    try (StoreTransaction tx = store.begin()) {
      for (Row row : tx.scan(table)) {
        out.put((String) row.key().get(0), Codecs.longs().decode(row.getBytes("value")));
      }
    }
    return out;
  }

  private static Map<String, Long> lookup(TableStore store, String path, List<String> words) {
    Table table = store.findTable(path).orElseThrow(() -> new IllegalStateException("no table " + path));
    Map<String, Long> out = new HashMap<>();
    try (StoreTransaction tx = store.begin()) {
      for (int from = 0; from < words.size(); from += 10_000) {
        List<String> chunk = words.subList(from, Math.min(words.size(), from + 10_000));
        List<TableKey> keys = new ArrayList<>(chunk.size());
        for (String w : chunk) {
          keys.add(TableKey.of(table.schema(), w));
        }
        List<Optional<Row>> rows = tx.lookup(table, keys);
        for (int i = 0; i < chunk.size(); i++) {
          if (rows.get(i).isPresent()) {
            out.put(chunk.get(i), Codecs.longs().decode(rows.get(i).get().getBytes("value")));
          }
        }
      }
    }
    return out;
  }
}
