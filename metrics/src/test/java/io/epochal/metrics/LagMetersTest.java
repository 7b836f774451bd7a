package io.epochal.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codec;
import io.epochal.codec.Codecs;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.RunSummary;
import io.epochal.sink.CollectingSink;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.LagReporting;
import io.epochal.spout.PartitionLag;
import io.epochal.spout.TransactionalSpout;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@link EpochalMetrics#bindLag}: one gauge per source partition reading end minus committed, reads cached for the
 * refresh interval, partitions appearing later, NaN (never 0) and one log line while the source cannot be read, and a
 * pipeline that runs on unaffected by a failing lag report.
 */
class LagMetersTest {
  private final MockClock clock = new MockClock();
  private final MeterRegistry registry = new SimpleMeterRegistry(SimpleConfig.DEFAULT, clock);

  /** A lag report whose answer (or failure) the test sets; counts its reads. */
  static final class Source implements LagReporting {
    final AtomicReference<Map<String, PartitionLag>> positions = new AtomicReference<>(Map.of());
    final AtomicReference<RuntimeException> failure = new AtomicReference<>();
    final AtomicInteger reads = new AtomicInteger();

    @Override
    public Map<String, PartitionLag> sourceLag() {
      reads.incrementAndGet();
      RuntimeException e = failure.get();
      if (e != null) {
        throw e;
      }
      return positions.get();
    }
  }

  private double lag(String partition) {
    return registry.get(EpochalMetrics.SOURCE_LAG).tags("pipeline", "p", "source", "s", "partition", partition)
        .gauge().value();
  }

  private double partitions() {
    return registry.get(EpochalMetrics.SOURCE_PARTITIONS).tags("pipeline", "p", "source", "s").gauge().value();
  }

  @Test
  void aGaugePerPartitionReadsEndMinusCommittedRefreshedAtMostEveryInterval() {
    Source source = new Source();
    source.positions.set(Map.of("0", new PartitionLag(100, 40), "1", new PartitionLag(7, 7)));
    EpochalMetrics.bindLag(registry, "p", "s", source, Duration.ofSeconds(5));
    assertEquals(1, source.reads.get(), "read once at bind");
    assertEquals(60, lag("0"));
    assertEquals(0, lag("1"));
    assertEquals(2, partitions());

    source.positions.set(Map.of("0", new PartitionLag(100, 90), "1", new PartitionLag(9, 7),
        "2", new PartitionLag(3, 0)));
    clock.add(4, TimeUnit.SECONDS);
    assertEquals(60, lag("0"), "cached within the interval");
    assertEquals(1, source.reads.get());
    clock.add(1, TimeUnit.SECONDS);
    assertEquals(10, lag("0"));
    assertEquals(2, lag("1"));
    assertEquals(2, source.reads.get(), "one read serves every gauge");
    assertEquals(3, lag("2"), "a partition the last read showed first gets its gauge");
    assertEquals(3, partitions());

    source.positions.set(Map.of("0", new PartitionLag(100, 100)));
    clock.add(5, TimeUnit.SECONDS);
    assertEquals(0, lag("0"));
    assertTrue(Double.isNaN(lag("2")), "a partition the source no longer reports is unknown, not 0");
  }

  @Test
  void aFailedReadMakesEveryGaugeNaNIsLoggedOnceAndAReadThatSucceedsAgainRestoresThem() {
    Source source = new Source();
    source.positions.set(Map.of("0", new PartitionLag(10, 4)));
    EpochalMetrics.bindLag(registry, "p", "s", source, Duration.ZERO);
    assertEquals(6, lag("0"));
    source.failure.set(new IllegalStateException("broker gone"));
    String log = stderrOf(() -> {
      for (int i = 0; i < 5; i++) {
        assertTrue(Double.isNaN(lag("0")), "a failed read is unknown, never 0");
        assertTrue(Double.isNaN(partitions()));
      }
    });
    assertTrue(source.reads.get() >= 10, "refresh 0: every gauge read reads the source");
    assertEquals(1, count(log, "cannot be read"), "logged once: " + log);
    assertTrue(log.contains("broker gone"), log);
    source.failure.set(null);
    source.positions.set(Map.of("0", new PartitionLag(10, 10)));
    assertTrue(stderrOf(() -> assertEquals(0, lag("0"))).contains("can be read again"));
    assertEquals(1, partitions());
  }

  @Test
  void aSourceThatCannotBeReadAtBindGetsItsPartitionGaugesAtALaterScrape() {
    Source source = new Source();
    source.failure.set(new IllegalStateException("not yet"));
    EpochalMetrics.bindLag(registry, "p", "s", source, Duration.ofSeconds(1));
    assertTrue(registry.find(EpochalMetrics.SOURCE_LAG).gauges().isEmpty());
    assertTrue(Double.isNaN(partitions()));
    source.failure.set(null);
    source.positions.set(Map.of("a-0", new PartitionLag(5, 1)));
    clock.add(1, TimeUnit.SECONDS);
    assertEquals(1, partitions(), "the partitions gauge reads the source again");
    assertEquals(4, lag("a-0"));
  }

  /** Five batches of one word; reports its lag from the committed txid, or fails while {@code broken}. */
  static final class LaggingSpout implements TransactionalSpout<String, Long>, LagReporting {
    final AtomicLong committed = new AtomicLong();
    volatile boolean broken = true;

    @Override
    public String name() {
      return "words";
    }

    @Override
    public Codec<Long> metadataCodec() {
      return Codecs.longs();
    }

    @Override
    public Optional<Long> nextBatch(long txid, Optional<Long> previous) {
      long next = previous.map(p -> p + 1).orElse(0L);
      return next < 5 ? Optional.of(next) : Optional.empty();
    }

    @Override
    public void emit(BatchAttempt attempt, Long metadata, Collector<String> out) {
      out.emit("w" + metadata);
    }

    @Override
    public void success(long txid) {
      committed.incrementAndGet();
    }

    @Override
    public Map<String, PartitionLag> sourceLag() {
      if (broken) {
        throw new IllegalStateException("source unreachable");
      }
      return new TreeMap<>(Map.of("0", new PartitionLag(5, committed.get())));
    }
  }

  @Test
  void aPipelineRunsOnUnaffectedWhileItsLagCannotBeRead() throws Exception {
    LaggingSpout spout = new LaggingSpout();
    CollectingSink<String> sink = new CollectingSink<>("out");
    var builder = Pipeline.newBuilder("p").partitions(2);
    builder.source(spout).to("out", sink);
    try (Pipeline pipeline = builder.build()) {
      EpochalMetrics.bindLag(registry, "p", spout);
      assertEquals(0, registry.find(EpochalMetrics.SOURCE_LAG).gauges().size());
      CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(pipeline::runUntilIdle);
      while (!run.isDone()) {
        assertTrue(Double.isNaN(registry.get(EpochalMetrics.SOURCE_PARTITIONS).tags("source", "words").gauge()
            .value()));
        clock.add(10, TimeUnit.SECONDS);
      }
      assertEquals(5, run.get().records(), "the pipeline ran on");
      assertEquals(List.of("w0", "w1", "w2", "w3", "w4"), sink.values());
      spout.broken = false;
      clock.add(10, TimeUnit.SECONDS);
      assertEquals(1, registry.get(EpochalMetrics.SOURCE_PARTITIONS).tags("source", "words").gauge().value());
      assertEquals(0, registry.get(EpochalMetrics.SOURCE_LAG).tags("pipeline", "p", "source", "words",
          "partition", "0").gauge().value());
    }
  }

  @Test
  void aSpoutThatDoesNotReportItsLagIsRefused() {
    TransactionalSpout<String, Long> plain = new PipelineMetersTest.FaultySpout(List.of(), Map.of());
    assertThrows(IllegalArgumentException.class, () -> EpochalMetrics.bindLag(registry, "p", plain));
    assertThrows(IllegalArgumentException.class,
        () -> EpochalMetrics.bindLag(registry, "p", "s", Map::of, Duration.ofSeconds(-1)));
  }

  private static int count(String text, String what) {
    int n = 0;
    for (int at = text.indexOf(what); at >= 0; at = text.indexOf(what, at + 1)) {
      n++;
    }
    return n;
  }

  /** What {@code body} logged (slf4j-simple writes to the current System.err). */
  private static String stderrOf(Runnable body) {
    PrintStream saved = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setErr(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      body.run();
    } finally {
      System.setErr(saved);
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}
