package io.epochal.pipeline.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.BatchFailedException;
import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.InvalidRecordException;
import io.epochal.errors.StoreException;
import io.epochal.pipeline.Guarantee;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.pipeline.RunSummary;
import io.epochal.pipeline.internal.EngineTesting.ListSpout;
import io.epochal.pipeline.internal.EngineTesting.LogStates;
import io.epochal.pipeline.internal.EngineTesting.OffsetSpout;
import io.epochal.pipeline.internal.EngineTesting.OnceSpout;
import io.epochal.spout.SpoutKind;
import io.epochal.state.StateKind;
import io.epochal.store.Checkpoint;
import io.epochal.store.CheckpointStore;
import io.epochal.store.InMemoryCheckpointStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The coordinator and executor, in the core module: window, retries, attempts, the durable commit. */
class CoordinatorTest {

  private static EpochalException retryable(String what) {
    return new EpochalException(what, null, true, ErrorContext.NONE);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3})
  void aRetryableFailureAbortsAndReplaysTheSameTxidUnderAHigherAttempt(int threads) {
    ListSpout<String> spout = new ListSpout<>(List.of(List.of("a"), List.of("b"), List.of("c")));
    LogStates states = new LogStates(StateKind.TRANSACTIONAL);
    try (Pipeline p = pipeline("r", new InMemoryCheckpointStore(), RetryPolicy.immediate(3), threads, 1, null,
        spout, states, b -> b.txid() == 2 && b.attempt() == 1)) {
      RunSummary run = p.runUntilIdle();
      assertEquals(3, run.lastTxid());
      assertEquals(1, run.failedAttempts());
      assertEquals(1, p.metrics().failedAttempts());
    }
    assertEquals(List.of("1/1/0", "2/1/1", "2/2/1", "3/1/2"), spout.emissions);
    assertEquals(List.of("1:a", "2:b", "3:c"), states.applied);
    List<String> expected = new ArrayList<>(List.of("begin 1", "end 1", "begin 2"));
    // every partition's state is aborted: the one that received "b" in its epoch of txid 2, the others never begun
    expected.add("abort 2");
    expected.addAll(java.util.Collections.nCopies(threads - 1, "abort none"));
    expected.addAll(List.of("begin 2", "end 2", "begin 3", "end 3"));
    assertEquals(expected, states.log);
  }

  @Test
  void aNonRetryableFailureStopsAtItsFirstOccurrenceAndARebuildResumesAboveEarlierAttempts() {
    ListSpout<String> spout = new ListSpout<>(List.of(List.of("a"), List.of("b"), List.of("c")));
    InMemoryCheckpointStore checkpoints = new InMemoryCheckpointStore();
    LogStates states = new LogStates(StateKind.TRANSACTIONAL);
    Pipeline p = pipeline("n", checkpoints, RetryPolicy.immediate(5), 1, 1, null, spout, states,
        b -> b.txid() == 2);
    assertThrows(InvalidRecordException.class, p::runUntilIdle);
    assertEquals(1, p.lastCommittedTxid());
    assertEquals(0, p.metrics().failedAttempts());
    assertEquals(List.of("1/1/0", "2/1/1"), spout.emissions);
    assertThrows(IllegalStateException.class, p::runUntilIdle);
    p.close();

    try (Pipeline again = pipeline("n", checkpoints, RetryPolicy.immediate(5), 1, 1, null, spout, states,
        b -> false)) {
      again.runUntilIdle();
      assertEquals(3, again.lastCommittedTxid());
    }
    String replay = spout.emissions.get(2);
    assertTrue(replay.startsWith("2/"), replay);
    assertTrue(Integer.parseInt(replay.split("/")[1]) > 1, "a restarted run numbers txid 2 above attempt 1: " + replay);
  }

  @Test
  void exhaustedRetriesStopWithBatchFailed() {
    ListSpout<String> spout = new ListSpout<>(List.of(List.of("a")));
    LogStates states = new LogStates(StateKind.TRANSACTIONAL);
    try (Pipeline p = pipeline("x", new InMemoryCheckpointStore(), RetryPolicy.immediate(2), 1, 1, null, spout,
        states, b -> true)) {
      BatchFailedException e = assertThrows(BatchFailedException.class, p::runUntilIdle);
      assertEquals(java.util.OptionalLong.of(1L), e.context().txid());
      assertEquals(0, p.lastCommittedTxid());
      assertEquals(2, p.metrics().failedAttempts());
    }
    assertEquals(List.of("1/1/0", "1/2/0"), spout.emissions);
  }

  @Test
  void anOpaqueFailureDropsTheBatchesInFlightBehindItAndReCutsThem() {
    OffsetSpout<Integer> spout = new OffsetSpout<>(IntStream.range(0, 10).boxed().toList(), 2);
    LogStates states = new LogStates(StateKind.OPAQUE);
    try (Pipeline p = pipeline("o", new InMemoryCheckpointStore(), RetryPolicy.immediate(3), 1, 3,
        Guarantee.AT_LEAST_ONCE, spout, states, b -> b.txid() == 1 && b.attempt() == 1)) {
      p.runUntilIdle();
      assertEquals(5, p.lastCommittedTxid());
    }
    // The window held txids 1-3 when txid 1 failed: 2 and 3 were dropped and emitted again after it.
    assertEquals(List.of("1/1/0-2", "2/1/2-4", "3/1/4-6"), spout.emissions.subList(0, 3));
    Map<Long, String> last = new HashMap<>();
    for (String e : spout.emissions) {
      last.put(Long.parseLong(e.split("/")[0]), e);
    }
    assertEquals("1/2/0-2", last.get(1L));
    assertTrue(Integer.parseInt(last.get(2L).split("/")[1]) > 1, last.get(2L));
    assertTrue(Integer.parseInt(last.get(3L).split("/")[1]) > 1, last.get(3L));
    List<Object> expected = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      expected.add((i / 2 + 1) + ":" + i);
    }
    assertEquals(expected, states.applied, "every record once, under the txid of its final cut");
  }

  @Test
  void aCheckpointCommitThatLandedButReportedAFailureCountsAsCommitted() {
    InMemoryCheckpointStore real = new InMemoryCheckpointStore();
    AtomicInteger lostReplies = new AtomicInteger();
    CheckpointStore lossy = new CheckpointStore() {
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
        real.commit(pipeline, txid, metadata);
        if (txid == 1) {
          lostReplies.incrementAndGet();
          throw new StoreException("reply lost");
        }
      }

      @Override
      public void reserveAttempts(String pipeline, long attemptCeiling, long txidWindow) {
        real.reserveAttempts(pipeline, attemptCeiling, txidWindow);
      }
    };
    ListSpout<String> spout = new ListSpout<>(List.of(List.of("a"), List.of("b")));
    LogStates states = new LogStates(StateKind.TRANSACTIONAL);
    try (Pipeline p = pipeline("l", lossy, RetryPolicy.immediate(3), 1, 1, null, spout, states, b -> false)) {
      p.runUntilIdle();
      assertEquals(2, p.lastCommittedTxid());
      assertEquals(0, p.metrics().failedAttempts());
    }
    assertEquals(1, lostReplies.get());
    assertEquals(List.of("1/1/0", "2/1/1"), spout.emissions);
  }

  @Test
  void theSpoutIsWrappedOnceByKind() {
    BatchSource tx = BatchSource.of(new ListSpout<>(List.of(List.of("a"))));
    BatchSource op = BatchSource.of(new OffsetSpout<>(List.of(1), 1));
    BatchSource nt = BatchSource.of(new OnceSpout<>(List.of(List.of("a"))));
    assertEquals(SpoutKind.TRANSACTIONAL, tx.kind());
    assertEquals(SpoutKind.OPAQUE, op.kind());
    assertEquals(SpoutKind.NON_TRANSACTIONAL, nt.kind());
    assertTrue(tx.cutsBeforeEmission());
    assertFalse(op.cutsBeforeEmission());
    assertFalse(nt.cutsBeforeEmission());

    List<String> recorded = new ArrayList<>();
    BatchSource.Pending pending = new BatchSource.Pending() {
      @Override
      public byte[] recovered(long txid) {
        return null;
      }

      @Override
      public void record(long txid, byte[] metadata) {
        recorded.add(txid + ":" + metadata.length);
      }
    };
    InFlight b = new InFlight(1);
    assertTrue(tx.open(b, Optional.empty(), pending));
    assertEquals(Optional.of(0L), b.meta);
    assertEquals(List.of("1:8"), recorded, "a transactional cut is recorded before emission");
    InFlight o = new InFlight(1);
    assertTrue(op.open(o, Optional.empty(), pending));
    assertEquals(Optional.empty(), o.meta, "an opaque cut is known only after the emission");
    InFlight n = new InFlight(1);
    assertTrue(nt.open(n, Optional.empty(), pending));
    assertEquals(0, ((byte[]) n.meta.orElseThrow()).length);
    assertEquals(1, recorded.size());
  }

  @Test
  void aStateThatFailsInAPartitionTaskSurfacesItsOwnError() {
    ListSpout<String> spout = new ListSpout<>(List.of(List.of("a", "b", "c", "d")));
    LogStates states = new LogStates(StateKind.TRANSACTIONAL);
    InvalidRecordException boom = new InvalidRecordException("boom");
    try (Pipeline q = pipeline("pt", new InMemoryCheckpointStore(), RetryPolicy.immediate(2), 4, 1, null, spout,
        states, b -> true, () -> boom)) {
      assertSame(boom, assertThrows(InvalidRecordException.class, q::runUntilIdle));
    }
  }

  private static Pipeline pipeline(String name, CheckpointStore checkpoints, RetryPolicy retries, int threads,
      int inFlight, Guarantee guarantee, io.epochal.spout.Spout<?, ?> spout, LogStates states,
      java.util.function.Predicate<io.epochal.spout.BatchAttempt> failWhen) {
    return pipeline(name, checkpoints, retries, threads, inFlight, guarantee, spout, states, failWhen,
        () -> failWhenNonRetryable(name));
  }

  private static RuntimeException failWhenNonRetryable(String name) {
    return name.equals("n") ? new InvalidRecordException("bad record") : retryable("injected");
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Pipeline pipeline(String name, CheckpointStore checkpoints, RetryPolicy retries, int threads,
      int inFlight, Guarantee guarantee, io.epochal.spout.Spout<?, ?> spout, LogStates states,
      java.util.function.Predicate<io.epochal.spout.BatchAttempt> failWhen,
      java.util.function.Supplier<RuntimeException> failure) {
    io.epochal.pipeline.PipelineBuilder b = Pipeline.newBuilder(name).checkpointStore(checkpoints)
        .retryPolicy(retries).threads(threads).maxBatchesInFlight(inFlight).sleeper(d -> { });
    if (threads > 1) {
      b.partitions(threads);
    }
    if (guarantee != null) {
      b.guarantee(guarantee);
    }
    io.epochal.pipeline.Stream<Object> s = (io.epochal.pipeline.Stream<Object>) b.source((io.epochal.spout.Spout) spout);
    s.partitionPersist("log", states, EngineTesting.updater(failWhen, failure));
    return b.build();
  }
}
