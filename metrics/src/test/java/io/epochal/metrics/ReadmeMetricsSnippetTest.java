package io.epochal.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.cache.StateCache;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.spouts.ListSpout;
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
    // README begin metrics
    MeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);   // or any Micrometer registry
    TableStore store = EpochalMetrics.metered(RocksDbTableStore.builder(dir).build(), registry, "rocksdb");
    PipelineBuilder builder = Pipeline.newBuilder("wc")
        .listener(EpochalMetrics.listener(registry, "wc"))      // batches, records, failures, phase timers
        .checkpointStore(TableCheckpointStore.on(store));       // then sources and states as usual, and build()
    EpochalMetrics.bindCache(stateCache, registry, "states");  // needs epochal-flow (an optional dependency)
    // README end metrics
    builder.source(ListSpout.of("words", List.of("a", "b", "a"), 2)).groupBy((String w) -> w)
        .persistentAggregate("counts", TransactionalMap.factory(new InMemoryBackingMap<>()), Aggregators.count());
    try (Pipeline pipeline = builder.build()) {
      pipeline.runUntilIdle();
    } finally {
      store.close();
    }
    assertEquals(2.0, registry.get(EpochalMetrics.BATCHES_COMMITTED).tags("pipeline", "wc").counter().count());
    assertTrue(registry.find(EpochalMetrics.STORE_REQUESTS).tags("store", "rocksdb").timers().stream()
        .mapToLong(io.micrometer.core.instrument.Timer::count).sum() > 0, "the checkpoint store's requests are metered");
    assertTrue(!registry.find(EpochalMetrics.CACHE_LOOKUPS).tags("cache", "states").meters().isEmpty());
  }
}
