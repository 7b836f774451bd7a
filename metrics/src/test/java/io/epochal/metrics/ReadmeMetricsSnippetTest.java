package io.epochal.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.cache.StateCache;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.store.rocksdb.RocksDbTableStore;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's "Metrics and logs" snippet, verbatim (examples' {@code ReadmeSnippetsTest} compares it), completed
 * with a source and a state and run over RocksDB: the pipeline's and the store's meters count what it did.
 */
class ReadmeMetricsSnippetTest {
  @TempDir
  Path dir;

  @Test
  void theReadmeSnippetMetersThePipelineTheStoreAndTheCache() {
    StateCache stateCache = StateCache.builder().executor(Runnable::run).build();
    WordsSpout kafkaSpout = new WordsSpout(List.of("a", "b", "a"));   // stands in for a Kafka spout: reports its lag
    // README begin metrics
    MeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);   // or any Micrometer registry
    TableStore store = EpochalMetrics.metered(RocksDbTableStore.builder(dir).build(), registry, "rocksdb");
    PipelineBuilder builder = Pipeline.newBuilder("wc")
        .listener(EpochalMetrics.listener(registry, "wc"))      // batches, records, failures, phase timers
        .checkpointStore(TableCheckpointStore.on(store));       // then sources and states as usual, and build()
    EpochalMetrics.bindCache(stateCache, registry, "states");  // needs epochal-flow (an optional dependency)
    EpochalMetrics.bindLag(registry, "wc", kafkaSpout);         // source lag per partition (Kafka, YTsaurus queues)
    // README end metrics
    assertEquals(3.0, registry.get(EpochalMetrics.SOURCE_LAG).tags("source", "words").gauge().value(),
        "read at bind: nothing committed yet");
    builder.source(kafkaSpout).groupBy((String w) -> w)
        .persistentAggregate("counts", TransactionalMap.factory(new InMemoryBackingMap<>()), Aggregators.count());
    try (Pipeline pipeline = builder.build()) {
      pipeline.runUntilIdle();
    } finally {
      store.close();
    }
    assertEquals(3.0, registry.get(EpochalMetrics.BATCHES_COMMITTED).tags("pipeline", "wc").counter().count());
    assertTrue(registry.find(EpochalMetrics.STORE_REQUESTS).tags("store", "rocksdb").timers().stream()
        .mapToLong(io.micrometer.core.instrument.Timer::count).sum() > 0, "the checkpoint store's requests are metered");
    assertTrue(!registry.find(EpochalMetrics.CACHE_LOOKUPS).tags("cache", "states").meters().isEmpty());
  }

  /** A transactional spout of one word per batch that reports its lag (words not yet committed), like Kafka's. */
  static final class WordsSpout implements io.epochal.spout.TransactionalSpout<String, Long>,
      io.epochal.spout.LagReporting {
    private final List<String> words;
    private volatile long committed;

    WordsSpout(List<String> words) {
      this.words = List.copyOf(words);
    }

    @Override
    public String name() {
      return "words";
    }

    @Override
    public io.epochal.codec.Codec<Long> metadataCodec() {
      return io.epochal.codec.Codecs.longs();
    }

    @Override
    public java.util.Optional<Long> nextBatch(long txid, java.util.Optional<Long> previous) {
      long next = previous.map(p -> p + 1).orElse(0L);
      return next < words.size() ? java.util.Optional.of(next) : java.util.Optional.empty();
    }

    @Override
    public void emit(io.epochal.spout.BatchAttempt attempt, Long index, io.epochal.spout.Collector<String> out) {
      out.emit(words.get(index.intValue()));
    }

    @Override
    public void success(long txid) {
      committed = txid;
    }

    @Override
    public java.util.Map<String, io.epochal.spout.PartitionLag> sourceLag() {
      return java.util.Map.of("words-0", new io.epochal.spout.PartitionLag(words.size(), committed));
    }
  }
}
