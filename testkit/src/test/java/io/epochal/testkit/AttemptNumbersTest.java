package io.epochal.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Guarantee;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.spout.BatchAttempt;
import io.epochal.spouts.ListSpout;
import io.epochal.spouts.ReCuttingOpaqueSpout;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import io.epochal.state.opaque.OpaqueMap;
import io.epochal.state.opaque.OpaqueTableLayout;
import io.epochal.state.opaque.OpaqueValue;
import io.epochal.store.CheckpointStore;
import io.epochal.store.InMemoryCheckpointStore;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStores;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The attempt number of a txid strictly grows (issue 10, finding 10): batches in flight behind a failed one are
 * re-emitted with a higher attempt, and so is every txid an earlier run may have started after a restart. On the old
 * engine both tests saw the same (txid, attempt) twice.
 */
class AttemptNumbersTest {
  private static final List<Long> NUMBERS = LongStream.range(0, 60).boxed().toList();

  @Test
  void shouldNumberBatchesDroppedBehindAFailedOneAboveTheirFirstEmission() {
    AttemptRecorder recorder = new AttemptRecorder();
    FaultInjector faults = new FaultInjector(List.of(Fault.fail(FaultPoint.BEFORE_STATE_WRITE, 2)));
    InMemoryBackingMap<Long, OpaqueValue<Long>> store = new InMemoryBackingMap<>();
    PipelineBuilder b = Pipeline.newBuilder("drops").maxBatchesInFlight(3).guarantee(Guarantee.AT_LEAST_ONCE)
        .retryPolicy(RetryPolicy.immediate(5)).checkpointStore(faults.wrap(new InMemoryCheckpointStore()));
    b.source(recorder.opaque(ReCuttingOpaqueSpout.of("numbers", NUMBERS, 3, 5, 11))).groupBy(x -> x % 3)
        .persistentAggregate("sums", OpaqueMap.factory(faults.wrap(store)), Aggregators.sumLong(x -> x));
    try (Pipeline p = b.build()) {
      p.runUntilIdle();
    }
    assertEquals(1, faults.fired().size());
    List<BatchAttempt> emitted = recorder.emitted();
    assertTrue(emitted.contains(new BatchAttempt(3, 1)) && emitted.contains(new BatchAttempt(3, 2)),
        "txid 3 was in flight behind the failed txid 2, dropped and emitted again: " + emitted);
    assertEquals(java.util.Optional.empty(), recorder.violation());
    assertEquals(NUMBERS.stream().mapToLong(x -> x).sum(),
        store.snapshot().values().stream().mapToLong(OpaqueValue::curr).sum(), "and every record counted once");
  }

  @Test
  void shouldNumberAttemptsAfterARestartAboveThoseOfTheCrashedRun() {
    for (boolean table : new boolean[] {false, true}) {
      AttemptRecorder recorder = new AttemptRecorder();
      FaultInjector faults = new FaultInjector(List.of(Fault.fail(FaultPoint.AFTER_EMIT, 2),
          Fault.crash(FaultPoint.BEFORE_STATE_WRITE, 2)));
      CheckpointStore base;
      StateFactory<MapState<Long, Long>> counts;
      if (table) {
        TableCheckpointStore cps = TableCheckpointStore.on(TableStores.inMemory());
        base = cps;
        counts = faults.wrapStates(OpaqueTableLayout.factory(KeyCodec.longs(), Codecs.longs()));
      } else {
        base = new InMemoryCheckpointStore();
        counts = OpaqueMap.factory(faults.wrap(new InMemoryBackingMap<Long, OpaqueValue<Long>>()));
      }
      CheckpointStore checkpoints = faults.wrap(base);
      ListSpout<Long> spout = ListSpout.of("numbers", NUMBERS, 10);
      for (int run = 0; run < 2; run++) {
        PipelineBuilder b = Pipeline.newBuilder("restarts").retryPolicy(RetryPolicy.immediate(5))
            .checkpointStore(checkpoints);
        b.source(recorder.transactional(faults.wrap(spout))).groupBy(x -> x % 4).persistentAggregate("counts", counts,
            Aggregators.count());
        try (Pipeline p = b.build()) {
          if (run == 0) {
            assertThrows(SimulatedCrash.class, p::runUntilIdle);
          } else {
            p.runUntilIdle();
            assertEquals(6, p.lastCommittedTxid());
          }
        }
      }
      List<BatchAttempt> emitted = recorder.emitted();
      // first run: txid 2 failed once, then crashed; the run reserved attempts up to 5 (5 tries x 1 in flight) and a
      // window of 1, so the restart knows txid 2 (committed 1 + window 1) may have been started, and txid 3 not
      assertEquals(List.of(new BatchAttempt(1, 1), new BatchAttempt(2, 1), new BatchAttempt(2, 2),
          new BatchAttempt(2, 6), new BatchAttempt(3, 1), new BatchAttempt(4, 1)), emitted.subList(0, 6),
          table ? "table" : "memory");
      assertEquals(java.util.Optional.empty(), recorder.violation(), table ? "table" : "memory");
      assertEquals(10, base.load("restarts").attemptCeiling(), "the restart's attempts are reserved: 6..10");
      assertEquals(1, base.load("restarts").txidWindow());
    }
  }
}
