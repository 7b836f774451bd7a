package io.epochal.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codec;
import io.epochal.codec.Codecs;
import io.epochal.errors.StoreException;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.pipeline.RunSummary;
import io.epochal.sink.CollectingSink;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.TransactionalSpout;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * {@link EpochalMetrics#listener} on real pipelines over a spout that fails chosen attempts: the counters equal what
 * was committed, failures are tagged by type and retryability, each phase timer counts every committed batch once.
 */
class PipelineMetersTest {
  private final MockClock clock = new MockClock();
  private final MeterRegistry registry = new SimpleMeterRegistry(SimpleConfig.DEFAULT, clock);

  /** Batches of words; {@code faults} maps "txid/attempt" to the failure that attempt's emission throws. */
  static final class FaultySpout implements TransactionalSpout<String, Long> {
    private final List<List<String>> batches;
    private final Map<String, Supplier<RuntimeException>> faults;

    FaultySpout(List<List<String>> batches, Map<String, Supplier<RuntimeException>> faults) {
      this.batches = List.copyOf(batches);
      this.faults = Map.copyOf(faults);
    }

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
      return next < batches.size() ? Optional.of(next) : Optional.empty();
    }

    @Override
    public void emit(BatchAttempt attempt, Long metadata, Collector<String> out) {
      Supplier<RuntimeException> fault = faults.get(attempt.txid() + "/" + attempt.attempt());
      if (fault != null) {
        throw fault.get();
      }
      try {
        Thread.sleep(2); // a measurable emit phase
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      batches.get(metadata.intValue()).forEach(out::emit);
    }
  }

  private static List<List<String>> batches(int count) {
    List<List<String>> batches = new ArrayList<>();
    for (int b = 0; b < count; b++) {
      List<String> words = new ArrayList<>();
      for (int i = 0; i <= b; i++) {
        words.add("w" + b + "-" + i);
      }
      batches.add(words);
    }
    return batches;
  }

  /** Each record is staged twice in the sink, so that outputs differ from the records in. */
  private Pipeline pipeline(String name, FaultySpout spout, CollectingSink<String> sink, int maxAttempts) {
    var builder = Pipeline.newBuilder(name)
        .partitions(2)
        .retryPolicy(RetryPolicy.immediate(maxAttempts))
        .sleeper(d -> { })
        .listener(EpochalMetrics.listener(registry, name));
    builder.source(spout).flatMap(w -> List.of(w, w + "!")).to("out", sink);
    return builder.build();
  }

  private double counter(String name, String... tags) {
    return registry.get(name).tags(tags).counter().count();
  }

  @Test
  void countersEqualWhatWasCommittedAndFailuresAreTaggedByTypeAndRetryability() {
    List<List<String>> input = batches(5); // 1 + 2 + 3 + 4 + 5 = 15 records
    CollectingSink<String> sink = new CollectingSink<>("out");
    FaultySpout spout = new FaultySpout(input, Map.of(
        "2/1", () -> new IllegalStateException("boom"),
        "2/2", () -> new IllegalStateException("boom again"),
        "4/1", () -> new StoreException("store down")));
    RunSummary summary;
    try (Pipeline pipeline = pipeline("wc", spout, sink, 5)) {
      summary = pipeline.runUntilIdle();
    }
    assertEquals(5, summary.batches());
    assertEquals(15, summary.records());

    assertEquals(5, counter(EpochalMetrics.BATCHES_COMMITTED, "pipeline", "wc"));
    assertEquals(2, counter(EpochalMetrics.BATCHES_REPLAYED, "pipeline", "wc"), "txids 2 and 4 took retries");
    assertEquals(15, counter(EpochalMetrics.RECORDS_IN, "pipeline", "wc"));
    assertEquals(30, counter(EpochalMetrics.RECORDS_OUT, "pipeline", "wc"));
    assertEquals(sink.values().size(), (int) counter(EpochalMetrics.RECORDS_OUT, "pipeline", "wc"));

    assertEquals(2, counter(EpochalMetrics.ATTEMPTS_FAILED, "pipeline", "wc", "error", "IllegalStateException",
        "retryable", "true"));
    assertEquals(1, counter(EpochalMetrics.ATTEMPTS_FAILED, "pipeline", "wc", "error", "StoreException",
        "retryable", "true"));
    assertEquals(2, registry.get(EpochalMetrics.ATTEMPTS_FAILED).counters().size(), "one counter per error type");

    DistributionSummary perBatch = registry.get(EpochalMetrics.BATCH_RECORDS).tag("pipeline", "wc").summary();
    assertEquals(5, perBatch.count());
    assertEquals(15, perBatch.totalAmount());
    assertEquals(5, perBatch.max());

    Timer commit = registry.get(EpochalMetrics.BATCH_COMMIT).tag("pipeline", "wc").timer();
    assertEquals(5, commit.count(), "one commit per committed batch, none for failed attempts");
    for (String phase : List.of("emit", "process", "state", "durable")) {
      Timer t = registry.get(EpochalMetrics.BATCH_PHASE).tags("pipeline", "wc", "phase", phase).timer();
      assertEquals(5, t.count(), phase + ": once per committed batch");
    }
    Timer emit = registry.get(EpochalMetrics.BATCH_PHASE).tags("pipeline", "wc", "phase", "emit").timer();
    assertTrue(emit.totalTime(TimeUnit.MILLISECONDS) >= 5 * 2, "each emit sleeps 2 ms: " + emit.totalTime(
        TimeUnit.MILLISECONDS));
    assertTrue(commit.totalTime(TimeUnit.NANOSECONDS) > 0);

    assertEquals(5, registry.get(EpochalMetrics.COMMITTED_TXID).tag("pipeline", "wc").gauge().value());
  }

  @Test
  void commitAgeGrowsFromTheLastCommitByTheRegistryClock() {
    CollectingSink<String> sink = new CollectingSink<>("out");
    try (Pipeline pipeline = pipeline("age", new FaultySpout(batches(2), Map.of()), sink, 3)) {
      assertTrue(Double.isNaN(registry.get(EpochalMetrics.COMMIT_AGE).timeGauge().value(TimeUnit.SECONDS)),
          "no commit yet");
      assertEquals(-1, registry.get(EpochalMetrics.COMMITTED_TXID).gauge().value());
      assertEquals(0, counter(EpochalMetrics.BATCHES_COMMITTED, "pipeline", "age"), "registered before any batch");
      pipeline.runUntilIdle();
    }
    assertEquals(0, registry.get(EpochalMetrics.COMMIT_AGE).tag("pipeline", "age").timeGauge()
        .value(TimeUnit.SECONDS));
    clock.add(Duration.ofSeconds(42));
    assertEquals(42, registry.get(EpochalMetrics.COMMIT_AGE).tag("pipeline", "age").timeGauge()
        .value(TimeUnit.SECONDS));
    assertEquals(2, registry.get(EpochalMetrics.COMMITTED_TXID).tag("pipeline", "age").gauge().value());
  }

  @Test
  void aFatalFailureIsCountedAsNotRetryableAndOnlyCommittedBatchesCount() {
    CollectingSink<String> sink = new CollectingSink<>("out");
    FaultySpout spout = new FaultySpout(batches(4), Map.of("3/1", () -> new ArithmeticException("/ by zero")));
    try (Pipeline pipeline = pipeline("fatal", spout, sink, 5)) {
      assertThrows(ArithmeticException.class, pipeline::runUntilIdle);
    }
    assertEquals(1, counter(EpochalMetrics.ATTEMPTS_FAILED, "pipeline", "fatal", "error", "ArithmeticException",
        "retryable", "false"));
    assertNull(registry.find(EpochalMetrics.ATTEMPTS_FAILED).tags("retryable", "true").counter());
    assertEquals(2, counter(EpochalMetrics.BATCHES_COMMITTED, "pipeline", "fatal"));
    assertEquals(1 + 2, counter(EpochalMetrics.RECORDS_IN, "pipeline", "fatal"));
    assertEquals(0, counter(EpochalMetrics.BATCHES_REPLAYED, "pipeline", "fatal"));
    assertEquals(2, registry.get(EpochalMetrics.BATCH_PHASE).tags("pipeline", "fatal", "phase", "process").timer()
        .count());
    assertEquals(2, registry.get(EpochalMetrics.COMMITTED_TXID).tag("pipeline", "fatal").gauge().value());
  }

  @Test
  void exhaustedRetriesCountEveryFailedAttempt() {
    CollectingSink<String> sink = new CollectingSink<>("out");
    FaultySpout spout = new FaultySpout(batches(2), Map.of(
        "1/1", () -> new IllegalStateException("a"),
        "1/2", () -> new IllegalStateException("b"),
        "1/3", () -> new IllegalStateException("c")));
    try (Pipeline pipeline = pipeline("exhausted", spout, sink, 3)) {
      assertThrows(RuntimeException.class, pipeline::runUntilIdle);
    }
    assertEquals(3, counter(EpochalMetrics.ATTEMPTS_FAILED, "pipeline", "exhausted", "error",
        "IllegalStateException", "retryable", "true"));
    assertEquals(0, counter(EpochalMetrics.BATCHES_COMMITTED, "pipeline", "exhausted"));
    assertEquals(-1, registry.get(EpochalMetrics.COMMITTED_TXID).tag("pipeline", "exhausted").gauge().value());
  }
}
