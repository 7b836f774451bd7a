package io.epochal.metrics.internal;

import io.epochal.metrics.EpochalMetrics;
import io.epochal.spout.LagReporting;
import io.epochal.spout.PartitionLag;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lag gauges of one source of one pipeline: {@link EpochalMetrics#SOURCE_LAG} per source partition and
 * {@link EpochalMetrics#SOURCE_PARTITIONS}, over a {@link LagReporting}. A gauge read (a scrape) reads the source
 * again once the last read is {@code refresh} old (by the registry's clock), on the reading thread, never on the
 * pipeline's; a read already under way elsewhere is not waited for. Each successful read registers the gauges of the
 * partitions it shows for the first time (so partitions added later appear at a later scrape; the partitions gauge
 * is always there to trigger it). A failed read makes every gauge read NaN, never 0, until a read succeeds again;
 * it is logged once per outage (a warning, and an info line when reads succeed again). Nothing here throws into the
 * pipeline: the source is only read by the registry's readers.
 *
 * <p>The registry holds this object, and so the source, strongly. Thread-safe: reads are serialized by a lock and
 * publish an immutable snapshot.
 */
public final class LagMeters {
  private static final Logger LOG = LoggerFactory.getLogger(LagMeters.class);

  /** The last read: the positions by partition, or {@code null} if it failed. */
  private record Snapshot(Map<String, PartitionLag> positions, long atNanos) {
  }

  private final MeterRegistry registry;
  private final String pipeline;
  private final String source;
  private final LagReporting lag;
  private final long refreshNanos;
  private final ReentrantLock reading = new ReentrantLock();
  private final Set<String> registered = ConcurrentHashMap.newKeySet();
  private volatile Snapshot last;

  private LagMeters(MeterRegistry registry, String pipeline, String source, LagReporting lag, Duration refresh) {
    this.registry = registry;
    this.pipeline = pipeline;
    this.source = source;
    this.lag = lag;
    this.refreshNanos = refresh.toNanos();
  }

  /**
   * Reads the source once (on this thread), registers a lag gauge per partition it shows (a failed first read: none
   * yet) and the partitions gauge.
   *
   * @param registry where the gauges are registered (it holds {@code lag} from then on)
   * @param pipeline the value of the {@code pipeline} tag
   * @param source the value of the {@code source} tag (the spout's name)
   * @param lag what is read: at this call, then by a scrape once the last read is {@code refresh} old
   * @param refresh the least age of a read before a scrape reads the source again; zero reads at every scrape
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code refresh} is negative
   */
  public static void bind(MeterRegistry registry, String pipeline, String source, LagReporting lag,
      Duration refresh) {
    Objects.requireNonNull(registry, "registry");
    Objects.requireNonNull(pipeline, "pipeline");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(lag, "lag");
    if (refresh.isNegative()) {
      throw new IllegalArgumentException("refresh must be >= 0, was " + refresh);
    }
    LagMeters meters = new LagMeters(registry, pipeline, source, lag, refresh);
    meters.reading.lock();
    try {
      meters.read();
    } finally {
      meters.reading.unlock();
    }
    Gauge.builder(EpochalMetrics.SOURCE_PARTITIONS, meters, LagMeters::partitions)
        .description("source partitions with a lag gauge in the last read of the source (NaN if it failed)")
        .tags("pipeline", pipeline, "source", source)
        .strongReference(true)
        .register(registry);
  }

  private double partitions() {
    Map<String, PartitionLag> positions = current();
    return positions == null ? Double.NaN : positions.size();
  }

  private double lagOf(String partition) {
    Map<String, PartitionLag> positions = current();
    PartitionLag l = positions == null ? null : positions.get(partition);
    return l == null ? Double.NaN : l.lag();
  }

  /** The positions of the last read, read again first if it is due and no other thread is reading; null: failed. */
  private Map<String, PartitionLag> current() {
    if (due() && reading.tryLock()) {
      try {
        if (due()) {
          read();
        }
      } finally {
        reading.unlock();
      }
    }
    Snapshot s = last;
    return s == null ? null : s.positions();
  }

  private boolean due() {
    Snapshot s = last;
    return s == null || registry.config().clock().monotonicTime() - s.atNanos() >= refreshNanos;
  }

  /** Reads the source (holding {@link #reading}), publishes the snapshot and registers new partitions' gauges. */
  private void read() {
    long now = registry.config().clock().monotonicTime();
    boolean failedBefore = last != null && last.positions() == null;
    Map<String, PartitionLag> positions;
    try {
      positions = Map.copyOf(Objects.requireNonNull(lag.sourceLag(), "sourceLag() returned null"));
    } catch (RuntimeException e) {
      if (!failedBefore) {
        LOG.warn("pipeline '{}': the lag of source '{}' cannot be read; its {} gauges read NaN until a read succeeds "
            + "(logged once until then): {}", pipeline, source, EpochalMetrics.SOURCE_LAG, e.toString());
      } else {
        LOG.debug("pipeline '{}': the lag of source '{}' still cannot be read", pipeline, source, e);
      }
      last = new Snapshot(null, now);
      return;
    }
    if (failedBefore) {
      LOG.info("pipeline '{}': the lag of source '{}' can be read again", pipeline, source);
    }
    last = new Snapshot(positions, now);
    for (String partition : positions.keySet()) {
      if (registered.add(partition)) {
        Gauge.builder(EpochalMetrics.SOURCE_LAG, this, m -> m.lagOf(partition))
            .description("source offsets after the last committed batch, up to the end of the source partition")
            .tags("pipeline", pipeline, "source", source, "partition", partition)
            .strongReference(true)
            .register(registry);
      }
    }
  }
}
