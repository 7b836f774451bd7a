package io.epochal.pipeline.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codec;
import io.epochal.codec.Codecs;
import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.StoreException;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.PipelineHealth;
import io.epochal.pipeline.PipelineHealth.State;
import io.epochal.pipeline.PipelineService;
import io.epochal.pipeline.RestartPolicy;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.pipeline.SourceLag;
import io.epochal.sink.CollectingSink;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.LagReporting;
import io.epochal.spout.OpaqueSpout;
import io.epochal.spout.PartitionLag;
import io.epochal.store.Checkpoint;
import io.epochal.store.CheckpointStore;
import io.epochal.store.InMemoryCheckpointStore;
import io.epochal.store.OutboxEntry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * {@link PipelineService}: runs until closed, picks up new input, stops between batches, restarts retryable outages
 * with the pipeline resuming exactly, stops for good on a fatal error or when the restart policy gives up. Every
 * scenario checks the published outputs against the committed offset: each record below it exactly once.
 */
class PipelineServiceTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void runsUntilClosedPicksUpNewInputAndStopsBetweenBatches() throws Exception {
    GrowingSpout spout = new GrowingSpout(7);
    spout.append(0, 100);
    InMemoryCheckpointStore checkpoints = new InMemoryCheckpointStore();
    CollectingSink<Integer> out = new CollectingSink<>("out");
    AtomicInteger builds = new AtomicInteger();
    PipelineService service = service(spout, checkpoints, out, builds, RestartPolicy.never()).start();
    await("the first 100 records", () -> out.values().size() == 100);
    assertEquals(State.RUNNING, service.health().state(), "idle input: the service waits");
    assertTrue(service.health().ready());

    spout.append(100, 5000);
    await("some of the new records", () -> out.values().size() > 1000);
    service.close();
    PipelineHealth stopped = service.health();
    assertEquals(State.STOPPED, stopped.state());
    assertEquals(checkpoints.load("svc").committedTxid(), stopped.lastCommittedTxid());
    assertTrue(stopped.lastCommitAt().isPresent());
    assertExact(spout, checkpoints, out);
    assertEquals(1, builds.get());

    PipelineService again = service(spout, checkpoints, out, builds, RestartPolicy.never()).start();
    await("every record", () -> out.values().size() == 5000);
    again.close();
    assertExact(spout, checkpoints, out);
  }

  @Test
  void aRetryableOutageRebuildsThePipelineWhichResumesExactly() throws Exception {
    GrowingSpout spout = new GrowingSpout(10);
    spout.append(0, 200);
    FlakyCheckpoints checkpoints = new FlakyCheckpoints();
    CollectingSink<Integer> out = new CollectingSink<>("out");
    AtomicInteger builds = new AtomicInteger();
    PipelineService service = service(spout, checkpoints, out, builds,
        new RestartPolicy(100, Duration.ofMillis(1), Duration.ofMillis(5))).start();
    await("the first records", () -> out.values().size() == 200);

    checkpoints.down.set(true);
    spout.append(200, 400);
    await("restarts during the outage", () -> service.health().restarts() >= 2);
    assertEquals(200, out.values().size(), "nothing of a failed batch is published");
    assertTrue(service.health().lastFailure().orElse("").contains("unreachable"), service.health()::toString);

    checkpoints.down.set(false);
    await("the records after the outage", () -> out.values().size() == 400);
    service.close();
    assertEquals(State.STOPPED, service.health().state());
    assertTrue(builds.get() >= 3, () -> "rebuilt after each failure: " + builds.get());
    assertExact(spout, checkpoints, out);
  }

  @Test
  void aFatalErrorStopsTheServiceWithoutARestart() throws Exception {
    GrowingSpout spout = new GrowingSpout(10);
    spout.append(0, 50);
    AtomicInteger builds = new AtomicInteger();
    CollectingSink<Integer> out = new CollectingSink<>("out");
    InMemoryCheckpointStore checkpoints = new InMemoryCheckpointStore();
    PipelineService fatal = PipelineService.builder("fatal", () -> {
      builds.incrementAndGet();
      PipelineBuilder b = Pipeline.newBuilder("fatal").checkpointStore(checkpoints)
          .retryPolicy(RetryPolicy.immediate(3)).sleeper(d -> { });
      b.source(spout).map(r -> {
        if (r == 25) {
          throw new EpochalException("no retry can fix this", null, false, ErrorContext.NONE);
        }
        return r;
      }).to("out", out);
      return b;
    }).restartPolicy(new RestartPolicy(100, Duration.ZERO, Duration.ZERO)).idleWait(Duration.ofMillis(10)).build();
    fatal.start();
    assertTrue(fatal.awaitTermination(WAIT), "a fatal error ends the service");
    assertEquals(State.FAILED, fatal.health().state());
    assertFalse(fatal.health().live());
    assertTrue(fatal.failure().orElseThrow().getMessage().contains("no retry can fix this"));
    assertEquals(1, builds.get(), "never rebuilt after a fatal error");
    assertEquals(20, out.values().size(), "the batches before the failing one stay committed");
    fatal.close();

    PipelineService neverStarted = service(spout, checkpoints, out, new AtomicInteger(), RestartPolicy.never());
    neverStarted.close();
    assertTrue(neverStarted.awaitTermination(Duration.ofMillis(1)), "a service closed before its start has ended");
  }

  @Test
  void tooManyConsecutiveRestartsFail() throws Exception {
    GrowingSpout spout = new GrowingSpout(10);
    spout.append(0, 20);
    FlakyCheckpoints checkpoints = new FlakyCheckpoints();
    checkpoints.down.set(true);
    AtomicInteger builds = new AtomicInteger();
    PipelineService service = service(spout, checkpoints, new CollectingSink<>("out"), builds,
        new RestartPolicy(3, Duration.ZERO, Duration.ZERO)).start();
    assertTrue(service.awaitTermination(WAIT));
    assertEquals(State.FAILED, service.health().state());
    assertEquals(3, service.health().restarts());
    assertEquals(4, builds.get(), "the first build and three restarts");
    assertTrue(service.failure().orElseThrow() instanceof io.epochal.errors.BatchFailedException,
        () -> "the batch's exhausted retries: " + service.failure());
  }

  @Test
  void aStopDuringABackoffReturnsPromptly() throws Exception {
    GrowingSpout spout = new GrowingSpout(10);
    spout.append(0, 20);
    FlakyCheckpoints checkpoints = new FlakyCheckpoints();
    checkpoints.down.set(true);
    PipelineService service = service(spout, checkpoints, new CollectingSink<>("out"), new AtomicInteger(),
        new RestartPolicy(10, Duration.ofMinutes(10), Duration.ofMinutes(10))).start();
    await("the first failure", () -> service.health().state() == State.RESTARTING);
    long started = System.nanoTime();
    service.close();
    assertEquals(State.STOPPED, service.health().state());
    assertTrue(Duration.ofNanos(System.nanoTime() - started).compareTo(Duration.ofMinutes(1)) < 0,
        "close() did not wait for the 10-minute backoff");
  }

  @Test
  void aStoppedPipelineRefusesAnotherRun() {
    GrowingSpout spout = new GrowingSpout(10);
    spout.append(0, 20);
    PipelineBuilder b = Pipeline.newBuilder("p").checkpointStore(new InMemoryCheckpointStore());
    b.source(spout).to("out", new CollectingSink<>("out"));
    try (Pipeline p = b.build()) {
      p.requestStop();
      assertEquals(0, p.runUntilIdle().batches(), "a stop requested before a run makes it return at once");
      IllegalStateException refused = assertThrows(IllegalStateException.class, p::runUntilIdle);
      assertTrue(refused.getMessage().contains("stopped on request"), refused.getMessage());
    }
  }

  @Test
  void aStopEndsARunThatNeverGoesIdleAfterTheBatchBeingCommitted() throws Exception {
    GrowingSpout spout = new GrowingSpout(5);
    spout.append(0, 2_000_000);
    InMemoryCheckpointStore checkpoints = new InMemoryCheckpointStore();
    CollectingSink<Integer> out = new CollectingSink<>("out");
    PipelineService service = PipelineService.builder("svc",
        () -> declare(spout, checkpoints, out, new AtomicInteger())).stopTimeout(Duration.ofSeconds(10)).build();
    service.start();
    await("some batches", () -> out.values().size() > 500);
    service.close();
    assertEquals(State.STOPPED, service.health().state(), "stopped within the stop timeout");
    assertTrue(out.values().size() < 2_000_000, "stopped before the input ended");
    assertExact(spout, checkpoints, out);
  }

  @Test
  void healthWithLagReadsTheRunningPipelinesSourcesAndShowsAFailedReadAsUnknown() throws Exception {
    LaggingSpout spout = new LaggingSpout(10);
    spout.append(0, 100);
    InMemoryCheckpointStore checkpoints = new InMemoryCheckpointStore();
    spout.checkpoints = checkpoints;
    CollectingSink<Integer> out = new CollectingSink<>("out");
    PipelineService service = PipelineService.builder("svc", () -> declare(spout, checkpoints, out,
        new AtomicInteger())).idleWait(Duration.ofMillis(10)).stopTimeout(WAIT).build().start();
    await("the first 100 records", () -> out.values().size() == 100);
    await("running", () -> service.health().ready());
    assertEquals(List.of(), service.health().sourceLag(), "health() reads no source");
    assertTrue(service.health().lag().isEmpty(), "no lag read: unknown, not 0");

    PipelineHealth caughtUp = service.healthWithLag();
    assertEquals(List.of(SourceLag.read("growing", Map.of("0", new PartitionLag(100, 100)))),
        caughtUp.sourceLag());
    assertEquals(OptionalLong.of(0), caughtUp.lag());

    spout.visible.set(100);
    spout.append(100, 150);
    PipelineHealth behind = service.healthWithLag();
    assertEquals(OptionalLong.of(50), behind.lag(), behind::toString);
    assertEquals(new PartitionLag(150, 100), behind.sourceLag().get(0).partitions().get("0"));

    spout.unreadable.set(true);
    PipelineHealth unknown = service.healthWithLag();
    assertEquals(1, unknown.sourceLag().size());
    assertTrue(unknown.sourceLag().get(0).failure().orElse("").contains("source unreachable"), unknown::toString);
    assertTrue(unknown.sourceLag().get(0).total().isEmpty(), "a failed read is unknown, never 0");
    assertTrue(unknown.lag().isEmpty(), "a failed read is unknown, never 0");

    spout.unreadable.set(false);
    spout.visible.set(Integer.MAX_VALUE);
    await("the appended records", () -> out.values().size() == 150);
    await("caught up", () -> service.healthWithLag().lag().equals(OptionalLong.of(0)));
    service.close();
    assertEquals(List.of(), service.healthWithLag().sourceLag(), "no running pipeline: no lag");
    assertExact(spout, checkpoints, out);
  }

  @Test
  void aPipelineListsOnlyTheSourcesThatReportTheirLag() {
    GrowingSpout plain = new GrowingSpout(10);
    LaggingSpout lagging = new LaggingSpout(10) {
      @Override
      public String name() {
        return "lagging";
      }
    };
    plain.append(0, 5);
    lagging.append(0, 7);
    InMemoryCheckpointStore checkpoints = new InMemoryCheckpointStore();
    lagging.checkpoints = checkpoints;
    PipelineBuilder b = Pipeline.newBuilder("svc").checkpointStore(checkpoints);
    b.source(plain).merge(b.source(lagging)).to("out", new CollectingSink<>("out"));
    try (Pipeline p = b.build()) {
      assertEquals(List.of(SourceLag.read("lagging", Map.of("0", new PartitionLag(7, 0)))), p.sourceLag());
    }
  }

  // ---------------------------------------------------------------- fixtures

  private static PipelineBuilder declare(GrowingSpout spout, CheckpointStore checkpoints, CollectingSink<Integer> out,
      AtomicInteger builds) {
    builds.incrementAndGet();
    PipelineBuilder b = Pipeline.newBuilder("svc")
        .checkpointStore(checkpoints)
        .partitions(2)
        .threads(2)
        .maxBatchesInFlight(2)
        .retryPolicy(RetryPolicy.immediate(2))
        .sleeper(d -> { });
    b.source(spout).to("out", out);
    return b;
  }

  private static PipelineService service(GrowingSpout spout, CheckpointStore checkpoints,
      CollectingSink<Integer> out, AtomicInteger builds, RestartPolicy restarts) {
    return PipelineService.builder("svc", () -> declare(spout, checkpoints, out, builds))
        .restartPolicy(restarts)
        .idleWait(Duration.ofMillis(10))
        .stopTimeout(WAIT)
        .build();
  }

  private static void await(String what, BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(5);
    }
  }

  /** The published outputs are exactly the records below the committed offset, each once. */
  private static void assertExact(GrowingSpout spout, CheckpointStore checkpoints, CollectingSink<Integer> out) {
    Checkpoint c = checkpoints.load("svc");
    long committedTo = c.hasCommitted() ? Codecs.longs().decode(c.committedMetadata()) : 0L;
    List<Integer> expected = new ArrayList<>(spout.records.subList(0, (int) committedTo));
    List<Integer> actual = new ArrayList<>(out.values());
    actual.sort(null);
    expected.sort(null);
    assertEquals(expected, actual, "committed outputs are the records below the committed offset, once each");
  }

  /** A checkpoint store whose commits fail with a retryable "unreachable" error while {@code down}. */
  static final class FlakyCheckpoints implements CheckpointStore {
    final InMemoryCheckpointStore real = new InMemoryCheckpointStore();
    final AtomicBoolean down = new AtomicBoolean();

    @Override
    public Checkpoint load(String pipeline) {
      return real.load(pipeline);
    }

    @Override
    public void recordPending(String pipeline, long txid, byte[] metadata) {
      real.recordPending(pipeline, txid, metadata);
    }

    @Override
    public void commit(String pipeline, long txid, byte[] metadata) {
      commit(pipeline, txid, metadata, List.of());
    }

    @Override
    public void commit(String pipeline, long txid, byte[] metadata, List<OutboxEntry> outbox) {
      if (down.get()) {
        throw new StoreException("injected: store unreachable", null, true, ErrorContext.NONE);
      }
      real.commit(pipeline, txid, metadata, outbox);
    }

    @Override
    public boolean keepsOutbox() {
      return real.keepsOutbox();
    }

    @Override
    public void reserveAttempts(String pipeline, long attemptCeiling, long txidWindow) {
      real.reserveAttempts(pipeline, attemptCeiling, txidWindow);
    }
  }

  /**
   * A {@link GrowingSpout} that reports its lag: end = records appended, committed = the offset in the checkpoint
   * (read from the checkpoint store, as a real spout reads its source); {@code visible} holds new input back,
   * {@code unreadable} makes the lag read fail.
   */
  static class LaggingSpout extends GrowingSpout implements LagReporting {
    /** Records beyond this count are held back (appended, so counted in the end, but not emitted yet). */
    final AtomicInteger visible = new AtomicInteger(Integer.MAX_VALUE);
    final AtomicBoolean unreadable = new AtomicBoolean();
    volatile CheckpointStore checkpoints;

    LaggingSpout(int cut) {
      super(cut);
    }

    @Override
    int available() {
      return Math.min(records.size(), visible.get());
    }

    @Override
    public Map<String, PartitionLag> sourceLag() {
      if (unreadable.get()) {
        throw new StoreException("injected: source unreachable", null, true, ErrorContext.NONE);
      }
      Checkpoint c = checkpoints.load("svc");
      long committed = c.hasCommitted() ? Codecs.longs().decode(c.committedMetadata()) : 0L;
      return Map.of("0", new PartitionLag(records.size(), committed));
    }
  }

  /** An opaque spout over a list that tests append to; each batch takes up to {@code cut} records. */
  static class GrowingSpout implements OpaqueSpout<Integer, Long> {
    final List<Integer> records = new CopyOnWriteArrayList<>();
    final int cut;

    GrowingSpout(int cut) {
      this.cut = cut;
    }

    void append(int from, int to) {
      records.addAll(IntStream.range(from, to).boxed().toList());
    }

    @Override
    public String name() {
      return "growing";
    }

    @Override
    public Codec<Long> metadataCodec() {
      return Codecs.longs();
    }

    /** How many records may be emitted now. */
    int available() {
      return records.size();
    }

    @Override
    public boolean isReady(long txid, Optional<Long> previous) {
      return previous.orElse(0L) < available();
    }

    @Override
    public Long emit(BatchAttempt attempt, Optional<Long> previous, Collector<Integer> out) {
      int from = previous.orElse(0L).intValue();
      int to = Math.min(available(), from + cut);
      for (int i = from; i < to; i++) {
        out.emit(records.get(i));
      }
      return (long) to;
    }
  }
}
