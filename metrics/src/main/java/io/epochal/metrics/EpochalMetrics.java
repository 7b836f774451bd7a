package io.epochal.metrics;

import io.epochal.cache.StateCache;
import io.epochal.metrics.internal.CacheMeters;
import io.epochal.metrics.internal.MeteredTableStore;
import io.epochal.metrics.internal.PipelineMeters;
import io.epochal.pipeline.PipelineListener;
import io.epochal.store.table.TableStore;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Micrometer meters for Epochal: a {@link PipelineListener} counting and timing committed batches and failed
 * attempts ({@link #listener}), a metered layer over a {@link TableStore} timing every request ({@link #metered}),
 * and gauges over a Flow {@link StateCache} ({@link #bindCache}). The constants are the meter names (dotted, as
 * Micrometer names them; a Prometheus registry exports {@code epochal.batches.committed} as
 * {@code epochal_batches_committed_total}, a timer {@code epochal.batch.commit} as
 * {@code epochal_batch_commit_seconds_*}).
 *
 * <p>Nothing is measured unless a registry is given: the engine, the stores and the cache keep no meters of their
 * own, and none of them depends on Micrometer. Bind what you want to see, once per pipeline, store or cache and
 * registry (Micrometer keeps one meter per name and tags: a second binding under the same name shares the counters
 * and timers, while the gauges stay bound to the first object).
 *
 * <p>Tags: {@code pipeline} (the name given to {@link #listener}); {@code phase} ({@code emit}, {@code process},
 * {@code state}, {@code durable}); {@code error} (the simple class name of a failure) and {@code retryable}
 * ({@code true}/{@code false}, as {@link io.epochal.errors.EpochalException#isRetryable} says); {@code store},
 * {@code op}, {@code table} and {@code outcome} ({@code ok}/{@code error}) on store meters; {@code cache},
 * {@code level} ({@code uncompressed}, {@code compressed}), {@code result} ({@code hit}, {@code miss}) and
 * {@code kind} on cache meters.
 *
 * <p>Stateless and thread-safe; the objects it returns are thread-safe.
 */
public final class EpochalMetrics {
  /** Counter: batches committed; tag {@code pipeline}. */
  public static final String BATCHES_COMMITTED = "epochal.batches.committed";
  /** Counter: committed batches that took more than one attempt; tag {@code pipeline}. */
  public static final String BATCHES_REPLAYED = "epochal.batches.replayed";
  /** Counter: failed attempts (replayed or fatal); tags {@code pipeline}, {@code error}, {@code retryable}. */
  public static final String ATTEMPTS_FAILED = "epochal.attempts.failed";
  /** Counter: records the sources emitted in committed attempts; tag {@code pipeline}. */
  public static final String RECORDS_IN = "epochal.records.in";
  /** Counter: records the sinks staged in committed attempts; tag {@code pipeline}. */
  public static final String RECORDS_OUT = "epochal.records.out";
  /** Distribution summary: records per committed batch; tag {@code pipeline}. */
  public static final String BATCH_RECORDS = "epochal.batch.records";
  /** Timer: the commit phase (state writes and the durable commit) of each committed batch; tag {@code pipeline}. */
  public static final String BATCH_COMMIT = "epochal.batch.commit";
  /** Timer: each phase of each committed attempt; tags {@code pipeline}, {@code phase}. */
  public static final String BATCH_PHASE = "epochal.batch.phase";
  /** Gauge: the last txid the pipeline committed, -1 before its first commit; tag {@code pipeline}. */
  public static final String COMMITTED_TXID = "epochal.txid.committed";
  /** Time gauge: time since the pipeline's last commit, NaN before the first; tag {@code pipeline}. */
  public static final String COMMIT_AGE = "epochal.commit.age";
  /** Timer: table store requests; tags {@code store}, {@code op}, {@code table}, {@code outcome}. */
  public static final String STORE_REQUESTS = "epochal.store.requests";
  /** Counter: failed table store requests; tags {@code store}, {@code op}, {@code table}, {@code error}. */
  public static final String STORE_FAILURES = "epochal.store.failures";
  /** Counter: rows read, upserted and deleted; tags {@code store}, {@code op}, {@code table}. */
  public static final String STORE_ROWS = "epochal.store.rows";
  /** Function counter: cache lookups; tags {@code cache}, {@code level}, {@code result}. */
  public static final String CACHE_LOOKUPS = "epochal.cache.lookups";
  /** Function counter: entries a cache level dropped to stay within its weight; tags {@code cache}, {@code level}. */
  public static final String CACHE_EVICTIONS = "epochal.cache.evictions";
  /** Function counter: entries promoted, demoted or expired; tags {@code cache}, {@code kind}. */
  public static final String CACHE_MOVES = "epochal.cache.moves";
  /** Gauge: current weight of a cache level in bytes; tags {@code cache}, {@code level}. */
  public static final String CACHE_WEIGHT = "epochal.cache.weight";
  /** Gauge: current entries of a cache level; tags {@code cache}, {@code level}. */
  public static final String CACHE_ENTRIES = "epochal.cache.entries";

  private EpochalMetrics() {
  }

  /**
   * A listener recording every committed batch and failed attempt of pipeline {@code pipeline} in {@code registry}:
   * pass it to {@link io.epochal.pipeline.PipelineBuilder#listener}. It registers its meters at once (so they read 0
   * before the first batch), is quick and never throws; reuse one instance for every rebuild of the same pipeline
   * (e.g. under a {@link io.epochal.pipeline.PipelineService}).
   *
   * @param registry where the meters go
   * @param pipeline the value of the {@code pipeline} tag, normally the pipeline's name
   * @return a thread-safe listener
   * @throws NullPointerException if an argument is null
   */
  public static PipelineListener listener(MeterRegistry registry, String pipeline) {
    return new PipelineMeters(registry, pipeline);
  }

  /**
   * A table store that forwards every call to {@code store} and times its requests (open, lease, begin, lookup,
   * scan, commit, abort) per operation and table, counts rows read and written, and counts failures by error type.
   * Results, exceptions, tables and transactions are those of {@code store}, unchanged: a failure is recorded and
   * rethrown as it was. Closing the metered store closes {@code store}.
   *
   * @param store the store to measure
   * @param registry where the meters go
   * @param name the value of the {@code store} tag
   * @return a thread-safe store with the guarantees of {@code store}
   * @throws NullPointerException if an argument is null
   */
  public static TableStore metered(TableStore store, MeterRegistry registry, String name) {
    return new MeteredTableStore(store, registry, name);
  }

  /**
   * Registers gauges and function counters over {@code cache}'s {@link StateCache#stats()}: lookups by level and
   * result, evictions, promotions, demotions, expirations, weight and entries per level. They are read when the
   * registry is scraped; the registry holds the cache weakly (the meters read NaN once it is collected). Needs the
   * optional {@code epochal-flow} dependency.
   *
   * @param cache the cache to observe
   * @param registry where the meters go
   * @param name the value of the {@code cache} tag
   * @throws NullPointerException if an argument is null
   */
  public static void bindCache(StateCache cache, MeterRegistry registry, String name) {
    CacheMeters.bind(cache, registry, name);
  }
}
