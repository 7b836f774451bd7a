package io.epochal.metrics;

import io.epochal.api.Evolving;
import io.epochal.cache.StateCache;
import io.epochal.metrics.internal.CacheMeters;
import io.epochal.metrics.internal.LagMeters;
import io.epochal.metrics.internal.MeteredTableStore;
import io.epochal.metrics.internal.PipelineMeters;
import io.epochal.pipeline.PipelineListener;
import io.epochal.spout.LagReporting;
import io.epochal.spout.Spout;
import io.epochal.store.table.TableStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Objects;

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
 * and timers, while the gauges stay bound to the first object). Source lag gauges over a {@link LagReporting} spout
 * (Kafka, YTsaurus queues) come from {@link #bindLag}.
 *
 * <p>Tags: {@code pipeline} (the name given to {@link #listener}); {@code phase} ({@code emit}, {@code process},
 * {@code state}, {@code durable}); {@code error} (the simple class name of a failure) and {@code retryable}
 * ({@code true}/{@code false}, as {@link io.epochal.errors.EpochalException#isRetryable} says); {@code store},
 * {@code op}, {@code table} and {@code outcome} ({@code ok}/{@code error}) on store meters; {@code cache},
 * {@code level} ({@code uncompressed}, {@code compressed}), {@code result} ({@code hit}, {@code miss}) and
 * {@code kind} on cache meters; {@code source} (the spout's name) and {@code partition} (its partition name) on lag
 * meters.
 *
 * <p>Stateless and thread-safe; the objects it returns are thread-safe.
 *
 * @since 0.1.0
 */
@Evolving
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
  /**
   * Gauge: source offsets after the last committed batch up to the partition's end (records, but for offsets
   * without one), NaN while the source cannot be read; tags {@code pipeline}, {@code source}, {@code partition}.
   */
  public static final String SOURCE_LAG = "epochal.source.lag";
  /** Gauge: partitions in the last read of a source's lag, NaN if it failed; tags {@code pipeline}, {@code source}. */
  public static final String SOURCE_PARTITIONS = "epochal.source.partitions";
  /** How old the last read of a source's lag may be before a scrape reads it again, by default: 10 s. */
  public static final Duration DEFAULT_LAG_REFRESH = Duration.ofSeconds(10);

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

  /**
   * Registers the {@link #SOURCE_LAG} gauges of {@code spout}, which must implement {@link LagReporting} (the Kafka
   * spouts and the YTsaurus queue spouts do), tagged {@code source=<spout.name()>}, refreshed at most every
   * {@link #DEFAULT_LAG_REFRESH}: {@code bindLag(registry, pipeline, spout.name(), (LagReporting) spout,
   * DEFAULT_LAG_REFRESH)}.
   *
   * @param registry where the meters go
   * @param pipeline the value of the {@code pipeline} tag, normally the pipeline's name
   * @param spout the pipeline's spout, the instance the pipeline runs
   * @throws IllegalArgumentException if {@code spout} does not implement {@link LagReporting}
   * @throws NullPointerException if an argument is null
   */
  public static void bindLag(MeterRegistry registry, String pipeline, Spout<?, ?> spout) {
    Objects.requireNonNull(spout, "spout");
    if (!(spout instanceof LagReporting lag)) {
      throw new IllegalArgumentException("spout '" + spout.name() + "' (" + spout.getClass().getName()
          + ") does not report its lag: it does not implement " + LagReporting.class.getName());
    }
    bindLag(registry, pipeline, spout.name(), lag, DEFAULT_LAG_REFRESH);
  }

  /**
   * Registers one gauge {@link #SOURCE_LAG} per partition of {@code lag} (the end minus the committed position), tagged
   * {@code pipeline}, {@code source} and {@code partition}, and one gauge {@link #SOURCE_PARTITIONS}. The source is
   * read once now, then by a scrape once the last read is {@code refresh} old (by the registry's clock), on the
   * scraping thread and never on the pipeline's; each read adds the gauges of partitions it shows for the first time.
   * A failed read never fails the pipeline and is never shown as 0: every gauge of the source reads NaN until a read
   * succeeds, and the failure is logged once. The registry holds {@code lag} strongly. Under a
   * {@link io.epochal.pipeline.PipelineService}, whose rebuilds make new spouts, bind once a {@code LagReporting} that
   * forwards to the current spout.
   *
   * @param registry where the meters go
   * @param pipeline the value of the {@code pipeline} tag
   * @param source the value of the {@code source} tag, normally the spout's name
   * @param lag what reports the positions; its {@code sourceLag()} must be safe to call from any thread
   * @param refresh how old the last read may get before a scrape reads again, {@code >= 0} (0: at every read)
   * @throws IllegalArgumentException if {@code refresh} is negative
   * @throws NullPointerException if an argument is null
   */
  public static void bindLag(MeterRegistry registry, String pipeline, String source, LagReporting lag,
      Duration refresh) {
    LagMeters.bind(registry, pipeline, source, lag, Objects.requireNonNull(refresh, "refresh"));
  }
}
