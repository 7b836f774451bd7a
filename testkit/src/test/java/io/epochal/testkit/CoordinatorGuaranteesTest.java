package io.epochal.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codec;
import io.epochal.codec.Codecs;
import io.epochal.errors.BatchFailedException;
import io.epochal.errors.InvalidRecordException;
import io.epochal.errors.StateAheadException;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.OpaqueSpout;
import io.epochal.spout.TransactionalSpout;
import io.epochal.spouts.ListSpout;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.opaque.OpaqueMap;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.store.InMemoryCheckpointStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Coordinator guarantees observable from outside: ordering, no double emission, stops that never guess. */
class CoordinatorGuaranteesTest {

  /** A transactional spout over 0..n-1 in fixed ranges that records every (txid → range) it emits. */
  static final class RecordingSpout implements TransactionalSpout<Long, Long> {
    final int n;
    final int batch;
    final Map<Long, List<Long>> rangesByTxid = new HashMap<>();
    final Map<Long, Long> txidByStart = new HashMap<>();
    final List<Long> emissions = new ArrayList<>();

    RecordingSpout(int n, int batch) {
      this.n = n;
      this.batch = batch;
    }

    @Override
    public String name() {
      return "numbers";
    }

    @Override
    public Codec<Long> metadataCodec() {
      return Codecs.longs();
    }

    @Override
    public Optional<Long> nextBatch(long txid, Optional<Long> previous) {
      long start = previous.map(p -> p + batch).orElse(0L);
      return start < n ? Optional.of(start) : Optional.empty();
    }

    @Override
    public void emit(BatchAttempt attempt, Long start, Collector<Long> out) {
      Long other = txidByStart.putIfAbsent(start, attempt.txid());
      if (other != null && other != attempt.txid()) {
        throw new AssertionError("range starting at " + start + " emitted under txids " + other + " and "
            + attempt.txid());
      }
      emissions.add(attempt.txid());
      List<Long> records = new ArrayList<>();
      for (long i = start; i < Math.min(n, start + batch); i++) {
        out.emit(i);
        records.add(i);
      }
      rangesByTxid.put(attempt.txid(), records);
    }
  }

  @Test
  void shouldNeverEmitOneRangeUnderTwoTxidsWhileBatchesOverlapAndFail() {
    RecordingSpout spout = new RecordingSpout(200, 7);
    InMemoryBackingMap<Long, TransactionalValue<Long>> store = new InMemoryBackingMap<>();
    FaultInjector faults = new FaultInjector(List.of(new Fault(FaultPoint.INSIDE_MULTIPUT, 3, false, 1),
        new Fault(FaultPoint.AFTER_STATE_WRITES, 5, false, 0), new Fault(FaultPoint.BEFORE_STATE_WRITE, 5, false, 0),
        new Fault(FaultPoint.DURING_CHECKPOINT_COMMIT, 9, false, 0)));
    PipelineBuilder b = Pipeline.newBuilder("no-double-emit").partitions(3).threads(2).maxBatchesInFlight(4)
        .retryPolicy(RetryPolicy.immediate(10)).checkpointStore(faults.wrap(new InMemoryCheckpointStore()));
    b.source(spout).groupBy(i -> i % 5).persistentAggregate("sums",
        TransactionalMap.factory(faults.wrap(store)), Aggregators.sumLong(i -> i));
    try (Pipeline p = b.build()) {
      p.runUntilIdle();
      assertEquals(29, p.lastCommittedTxid());
    }
    assertEquals(4, faults.fired().size(), "every fault fired: " + faults.unfired());
    // txids are 1..29, each a distinct range, covering 0..199 exactly once
    List<Long> all = new ArrayList<>();
    for (long t = 1; t <= 29; t++) {
      all.addAll(spout.rangesByTxid.get(t));
    }
    assertEquals(200, all.size());
    assertEquals(200, all.stream().distinct().count());
    long expected = 0;
    for (long i = 0; i < 200; i++) {
      expected += i;
    }
    long sum = store.snapshot().values().stream().mapToLong(TransactionalValue::value).sum();
    assertEquals(expected, sum);
  }

  @Test
  void shouldDiscardBatchesInFlightBehindAFailedOpaqueBatchSoNoRecordCommitsTwice() {
    List<long[]> committedRanges = new ArrayList<>();
    OpaqueSpout<Long, Long> spout = new OpaqueSpout<>() {
      @Override
      public String name() {
        return "opaque-numbers";
      }

      @Override
      public Codec<Long> metadataCodec() {
        return Codecs.longs();
      }

      @Override
      public boolean isReady(long txid, Optional<Long> previous) {
        return previous.orElse(0L) < 100;
      }

      @Override
      public Long emit(BatchAttempt attempt, Optional<Long> previous, Collector<Long> out) {
        long start = previous.orElse(0L);
        long end = Math.min(100, start + 3 + attempt.attempt()); // replays cut longer batches
        for (long i = start; i < end; i++) {
          out.emit(i);
        }
        return end;
      }
    };
    InMemoryBackingMap<Long, io.epochal.state.opaque.OpaqueValue<Long>> store = new InMemoryBackingMap<>();
    FaultInjector faults = new FaultInjector(List.of(new Fault(FaultPoint.BEFORE_STATE_WRITE, 2, false, 0),
        new Fault(FaultPoint.BEFORE_STATE_WRITE, 6, false, 0)));
    PipelineBuilder b = Pipeline.newBuilder("opaque-in-flight").maxBatchesInFlight(3)
        .guarantee(io.epochal.pipeline.Guarantee.AT_LEAST_ONCE) // per-key opaque: only pre-write failures here
        .retryPolicy(RetryPolicy.immediate(10)).checkpointStore(faults.wrap(new InMemoryCheckpointStore()))
        .listener(new io.epochal.pipeline.PipelineListener() {
          @Override
          public void onBatchCommitted(io.epochal.pipeline.BatchReport r) {
            committedRanges.add(new long[] {r.txid(), r.records()});
          }
        });
    b.source(spout).groupBy(i -> 0L).persistentAggregate("count", OpaqueMap.factory(faults.wrap(store)),
        Aggregators.count());
    try (Pipeline p = b.build()) {
      p.runUntilIdle();
    }
    assertEquals(2, faults.fired().size());
    assertEquals(100L, store.snapshot().get(0L).curr(), "every record counted exactly once");
    assertEquals(100L, committedRanges.stream().mapToLong(r -> r[1]).sum());
  }

  @Test
  void shouldStopWithTableKeyAndBothTxidsWhenStateIsAheadOfTheCoordinator() {
    InMemoryBackingMap<String, TransactionalValue<Long>> store = new InMemoryBackingMap<>();
    store.multiPut(Map.of("a", new TransactionalValue<>(10L, 7)));
    PipelineBuilder b = Pipeline.newBuilder("ahead").retryPolicy(RetryPolicy.immediate(3));
    b.source(ListSpout.of("letters", List.of("a", "b"), 5)).groupBy(s -> s)
        .persistentAggregate("letter-counts", TransactionalMap.factory(store), Aggregators.count());
    try (Pipeline p = b.build()) {
      StateAheadException e = assertThrows(StateAheadException.class, p::runUntilIdle);
      assertEquals("letter-counts", e.table());
      assertEquals("a", e.key());
      assertEquals(7, e.storedTxid());
      assertEquals(1, e.batchTxid());
      assertFalse(e.retryable());
      assertEquals(0, p.lastCommittedTxid());
    }
    assertEquals(new TransactionalValue<>(10L, 7), store.snapshot().get("a"), "nothing overwritten");
  }

  @Test
  void shouldStopWithTheCauseWhenRetriesAreExhaustedAndSkipNothing() {
    InMemoryBackingMap<String, TransactionalValue<Long>> store = new InMemoryBackingMap<>();
    List<Duration> waits = new ArrayList<>();
    FaultInjector faults = new FaultInjector(List.of(new Fault(FaultPoint.BEFORE_STATE_WRITE, 2, false, 0),
        new Fault(FaultPoint.BEFORE_STATE_WRITE, 2, false, 0), new Fault(FaultPoint.BEFORE_STATE_WRITE, 2, false, 0)));
    PipelineBuilder b = Pipeline.newBuilder("exhausted")
        .retryPolicy(new RetryPolicy(3, Duration.ofMillis(10), Duration.ofMillis(15))).sleeper(waits::add)
        .checkpointStore(faults.wrap(new InMemoryCheckpointStore()));
    b.source(ListSpout.of("letters", List.of("a", "b", "c"), 1)).groupBy(s -> s)
        .persistentAggregate("counts", TransactionalMap.factory(faults.wrap(store)), Aggregators.count());
    try (Pipeline p = b.build()) {
      BatchFailedException e = assertThrows(BatchFailedException.class, p::runUntilIdle);
      assertEquals(2, e.txid());
      assertEquals(3, e.attempts());
      assertTrue(e.getCause() instanceof InjectedFailure);
      assertEquals(1, p.lastCommittedTxid(), "batch 1 committed, batch 2 not, batch 3 never started");
      assertThrows(IllegalStateException.class, p::runUntilIdle, "a stopped pipeline refuses to run on");
    }
    assertEquals(List.of(Duration.ofMillis(10), Duration.ofMillis(15)), waits, "bounded exponential backoff");
    assertEquals(Map.of("a", new TransactionalValue<>(1L, 1)), store.snapshot());
  }

  @Test
  void shouldFailTheBatchOnANullKeyInsteadOfDroppingTheRecord() {
    PipelineBuilder b = Pipeline.newBuilder("null-key").retryPolicy(RetryPolicy.immediate(5));
    b.source(ListSpout.of("letters", List.of("a", "", "c"), 5))
        .groupBy(s -> s.isEmpty() ? null : s)
        .persistentAggregate("counts", TransactionalMap.<String, Long>factory(new InMemoryBackingMap<>()),
            Aggregators.count());
    try (Pipeline p = b.build()) {
      InvalidRecordException e = assertThrows(InvalidRecordException.class, p::runUntilIdle);
      assertTrue(e.getMessage().contains("null key"), e.getMessage());
      assertEquals(0, p.metrics().failedAttempts(), "not retried: a replay cannot fix a null key");
    }
  }

  @Test
  void shouldResumeAfterTheLastCommittedTxidWhenRebuiltOverTheSameStores() {
    InMemoryBackingMap<String, TransactionalValue<Long>> store = new InMemoryBackingMap<>();
    InMemoryCheckpointStore checkpoints = new InMemoryCheckpointStore();
    ListSpout<String> spout = ListSpout.of("letters", List.of("a", "b"), 1);
    for (int run = 0; run < 2; run++) {
      PipelineBuilder b = Pipeline.newBuilder("resume").checkpointStore(checkpoints);
      b.source(spout).groupBy(s -> s)
          .persistentAggregate("counts", TransactionalMap.factory(store), Aggregators.count());
      try (Pipeline p = b.build()) {
        p.runUntilIdle();
      }
      spout.append("a");
    }
    assertEquals(3, checkpoints.load("resume").committedTxid());
    assertEquals(Map.of("a", new TransactionalValue<>(2L, 3), "b", new TransactionalValue<>(1L, 2)),
        store.snapshot());
  }
}
