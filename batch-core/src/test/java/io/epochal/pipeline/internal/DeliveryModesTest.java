package io.epochal.pipeline.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Guarantee;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.PipelineListener;
import io.epochal.pipeline.internal.EngineTesting.ListSpout;
import io.epochal.pipeline.internal.EngineTesting.OffsetSpout;
import io.epochal.sink.CollectingSink;
import io.epochal.spout.BatchAttempt;
import io.epochal.state.Epoch;
import io.epochal.state.ForwardingBackingMap;
import io.epochal.state.IBackingMap;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.NonTransactionalMap;
import io.epochal.store.Checkpoint;
import io.epochal.store.CheckpointEpoch;
import io.epochal.store.CheckpointStore;
import io.epochal.store.InMemoryCheckpointStore;
import io.epochal.store.OutboxEntry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * What each delivery mode makes the coordinator do: {@code AT_MOST_ONCE} records a batch's position before processing
 * it and drops (never replays) a failed batch, also one left pending by a stopped run; {@code AT_LEAST_ONCE} writes no
 * pending metadata and opens epochs that re-apply cells; {@code EXACTLY_ONCE} replays and records as before.
 */
class DeliveryModesTest {

  /** Counts the pending records and commits that reach the store; delegates everything. */
  static class CountingCheckpoints implements CheckpointStore {
    final InMemoryCheckpointStore inner = new InMemoryCheckpointStore();
    final List<Long> pendingRecorded = new CopyOnWriteArrayList<>();
    final List<Long> committed = new CopyOnWriteArrayList<>();

    @Override
    public Checkpoint load(String pipeline) {
      return inner.load(pipeline);
    }

    @Override
    public void recordPending(String pipeline, long txid, byte[] metadata) {
      pendingRecorded.add(txid);
      inner.recordPending(pipeline, txid, metadata);
    }

    @Override
    public void commit(String pipeline, long txid, byte[] metadata) {
      commit(pipeline, txid, metadata, List.of());
    }

    @Override
    public void commit(String pipeline, long txid, byte[] metadata, List<OutboxEntry> outbox) {
      committed.add(txid);
      inner.commit(pipeline, txid, metadata, outbox);
    }

    @Override
    public boolean keepsOutbox() {
      return inner.keepsOutbox();
    }

    @Override
    public void reserveAttempts(String pipeline, long attemptCeiling, long txidWindow) {
      inner.reserveAttempts(pipeline, attemptCeiling, txidWindow);
    }

    @Override
    public CheckpointEpoch openEpoch(String pipeline, BatchAttempt attempt) {
      return CheckpointEpoch.of(this, pipeline, attempt, java.util.Optional.empty());
    }
  }

  /** Fails {@code multiPut} for the attempts {@code fails} selects, before writing, with {@code failure}. */
  static final class FailingMap<K, C> extends ForwardingBackingMap<K, C> {
    private final Predicate<BatchAttempt> fails;
    private final java.util.function.Supplier<RuntimeException> failure;
    private BatchAttempt current;
    final List<Boolean> skipsApplied = new CopyOnWriteArrayList<>();

    FailingMap(IBackingMap<K, C> inner, Predicate<BatchAttempt> fails,
        java.util.function.Supplier<RuntimeException> failure) {
      super(inner);
      this.fails = fails;
      this.failure = failure;
    }

    @Override
    public void begin(Epoch epoch) {
      current = epoch.attempt();
      skipsApplied.add(epoch.skipsAppliedCells());
      super.begin(epoch);
    }

    @Override
    public void multiPut(Map<K, C> cells) {
      if (fails.test(current)) {
        throw failure.get();
      }
      super.multiPut(cells);
    }
  }

  static RuntimeException retryable() {
    return new EpochalException("injected store timeout", null, true, ErrorContext.NONE);
  }

  /** Records drops and failed attempts. */
  static final class Drops implements PipelineListener {
    final List<Long> dropped = new CopyOnWriteArrayList<>();
    final List<Throwable> causes = new CopyOnWriteArrayList<>();
    final List<BatchAttempt> failed = new CopyOnWriteArrayList<>();

    @Override
    public void onBatchDropped(long txid, Throwable cause) {
      dropped.add(txid);
      causes.add(cause);
    }

    @Override
    public void onAttemptFailed(BatchAttempt attempt, Throwable cause) {
      failed.add(attempt);
    }
  }

  static PipelineBuilder counting(String name, Guarantee g, CheckpointStore checkpoints, Drops drops,
      io.epochal.spout.Spout<String, ?> spout, IBackingMap<String, Long> map) {
    PipelineBuilder b = Pipeline.newBuilder(name).guarantee(g).checkpointStore(checkpoints).listener(drops)
        .sleeper(d -> { });
    b.source(spout).groupBy(w -> w).persistentAggregate("counts", NonTransactionalMap.factory(map),
        Aggregators.count());
    return b;
  }

  @Test
  void atMostOnceDropsAFailedBatchInsteadOfReplayingIt() {
    ListSpout<String> spout = new ListSpout<>(List.of(List.of("a"), List.of("a", "b"), List.of("a")));
    InMemoryBackingMap<String, Long> store = new InMemoryBackingMap<>("counts");
    FailingMap<String, Long> map = new FailingMap<>(store, a -> a.txid() == 2, DeliveryModesTest::retryable);
    CountingCheckpoints checkpoints = new CountingCheckpoints();
    Drops drops = new Drops();
    try (Pipeline p = counting("amo", Guarantee.AT_MOST_ONCE, checkpoints, drops, spout, map).build()) {
      assertEquals(3, p.runUntilIdle().lastTxid());
    }
    assertEquals(List.of("1/1/0", "2/1/1", "3/1/2"), spout.emissions, "txid 2 is emitted once, never replayed");
    assertEquals(List.of(2L), drops.dropped);
    assertEquals("injected store timeout", drops.causes.get(0).getMessage());
    assertEquals(Map.of("a", 2L), store.snapshot(), "batch 2's records are lost, the others counted once");
    assertEquals(List.of(1L, 2L, 3L), checkpoints.pendingRecorded, "every position is recorded before processing");
    assertEquals(List.of(1L, 2L, 3L), checkpoints.committed, "the dropped txid commits with its position");
  }

  @Test
  void atMostOnceDropsAnOpaqueBatchAtThePositionItsEmissionReached() {
    OffsetSpout<String> spout = new OffsetSpout<>(List.of("a", "b", "c", "d"), 2);
    InMemoryBackingMap<String, Long> store = new InMemoryBackingMap<>("counts");
    FailingMap<String, Long> map = new FailingMap<>(store, a -> a.txid() == 1, DeliveryModesTest::retryable);
    Drops drops = new Drops();
    CountingCheckpoints checkpoints = new CountingCheckpoints();
    try (Pipeline p = counting("amo-opaque", Guarantee.AT_MOST_ONCE, checkpoints, drops, spout, map).build()) {
      assertEquals(2, p.runUntilIdle().lastTxid());
    }
    assertEquals(List.of(1L), drops.dropped);
    assertEquals(List.of(1L, 2L), checkpoints.pendingRecorded, "AT_MOST_ONCE records an opaque batch's position too");
    assertEquals(Map.of("c", 1L, "d", 1L), store.snapshot(), "the next batch starts after the dropped one");
  }

  @Test
  void atMostOnceRetriesAFailureBeforeThePositionIsRecorded() {
    ListSpout<String> spout = new ListSpout<>(List.of(List.of("a"), List.of("b")));
    InMemoryBackingMap<String, Long> store = new InMemoryBackingMap<>("counts");
    int[] failures = {1};
    CountingCheckpoints checkpoints = new CountingCheckpoints() {
      @Override
      public void recordPending(String pipeline, long txid, byte[] metadata) {
        if (txid == 2 && failures[0]-- > 0) {
          throw retryable();
        }
        super.recordPending(pipeline, txid, metadata);
      }
    };
    Drops drops = new Drops();
    try (Pipeline p = counting("amo-record", Guarantee.AT_MOST_ONCE, checkpoints, drops, spout, store).build()) {
      assertEquals(2, p.runUntilIdle().lastTxid());
    }
    assertEquals(List.of(), drops.dropped, "nothing was processed before the record failed: retried, not dropped");
    assertEquals(1, drops.failed.size());
    assertEquals(Map.of("a", 1L, "b", 1L), store.snapshot());
  }

  @Test
  void atMostOnceDropsTheBatchAStoppedRunLeftPending() {
    ListSpout<String> spout = new ListSpout<>(List.of(List.of("a"), List.of("b"), List.of("c")));
    InMemoryBackingMap<String, Long> store = new InMemoryBackingMap<>("counts");
    CountingCheckpoints checkpoints = new CountingCheckpoints();
    // A non-retryable failure of txid 2 after its position was recorded stops the first run.
    FailingMap<String, Long> dying = new FailingMap<>(store, a -> a.txid() == 2,
        () -> new EpochalException("disk gone", null, false, ErrorContext.NONE));
    Drops first = new Drops();
    try (Pipeline p = counting("amo-restart", Guarantee.AT_MOST_ONCE, checkpoints, first, spout, dying).build()) {
      assertThrows(EpochalException.class, p::runUntilIdle);
      assertEquals(1, p.lastCommittedTxid());
    }
    assertEquals(List.of(), first.dropped, "a non-retryable failure stops the pipeline; it drops nothing itself");
    assertEquals(List.of(2L), List.copyOf(checkpoints.load("amo-restart").pendingMetadata().keySet()));

    Drops second = new Drops();
    try (Pipeline p = counting("amo-restart", Guarantee.AT_MOST_ONCE, checkpoints, second, spout, store).build()) {
      assertEquals(3, p.runUntilIdle().lastTxid());
    }
    assertEquals(List.of(2L), second.dropped, "the restarted pipeline drops the pending batch");
    assertTrue(second.causes.get(0).getMessage().contains("earlier run"), second.causes.get(0).getMessage());
    assertEquals(List.of("1", "2", "3"), spout.emissions.stream().map(e -> e.substring(0, e.indexOf('/'))).toList(),
        "txid 2 is emitted once, by the first run, never again: " + spout.emissions);
    assertEquals(Map.of("a", 1L, "c", 1L), store.snapshot());
  }

  @Test
  void atMostOnceDropsAPendingBatchOfMergedSourcesAtEverySourcesPosition() {
    ListSpout<String> cuts = new ListSpout<>(List.of(List.of("a"), List.of("b")));
    OffsetSpout<String> offsets = new OffsetSpout<>(List.of("x", "y", "z", "w"), 2);
    InMemoryBackingMap<String, Long> store = new InMemoryBackingMap<>("counts");
    CountingCheckpoints checkpoints = new CountingCheckpoints();
    java.util.function.Function<IBackingMap<String, Long>, PipelineBuilder> merged = map -> {
      PipelineBuilder b = Pipeline.newBuilder("amo-merged").guarantee(Guarantee.AT_MOST_ONCE)
          .checkpointStore(checkpoints).sleeper(d -> { });
      b.source(cuts).merge(b.source(offsets)).groupBy(w -> w)
          .persistentAggregate("counts", NonTransactionalMap.factory(map), Aggregators.count());
      return b;
    };
    FailingMap<String, Long> dying = new FailingMap<>(store, a -> a.txid() == 1,
        () -> new EpochalException("disk gone", null, false, ErrorContext.NONE));
    try (Pipeline p = merged.apply(dying).build()) {
      assertThrows(EpochalException.class, p::runUntilIdle);
    }
    Drops drops = new Drops();
    try (Pipeline p = merged.apply(store).listener(drops).build()) {
      assertEquals(2, p.runUntilIdle().lastTxid());
    }
    assertEquals(List.of(1L), drops.dropped);
    assertEquals(Map.of("b", 1L, "z", 1L, "w", 1L), store.snapshot(),
        "txid 2 continues after both sources' positions of the dropped txid 1");
  }

  @Test
  void exactlyOnceReplaysTheSameFailureAndRecordsEachCut() {
    ListSpout<String> spout = new ListSpout<>(List.of(List.of("a"), List.of("a", "b"), List.of("a")));
    CountingCheckpoints checkpoints = new CountingCheckpoints();
    Drops drops = new Drops();
    CollectingSink<String> out = new CollectingSink<>("out");
    boolean[] failed = {false};
    PipelineBuilder b = Pipeline.newBuilder("eo").checkpointStore(checkpoints).listener(drops).sleeper(d -> { });
    b.source(spout).map(w -> {
      if (w.equals("b") && !failed[0]) {
        failed[0] = true;
        throw retryable();
      }
      return w;
    }).to("out", out);
    try (Pipeline p = b.build()) {
      assertEquals(3, p.runUntilIdle().lastTxid());
    }
    assertEquals(List.of(), drops.dropped);
    assertEquals(List.of("1/1/0", "2/1/1", "2/2/1", "3/1/2"), spout.emissions);
    assertEquals(List.of(1L, 2L, 3L), checkpoints.pendingRecorded, "exactly-once records every cut before emission");
  }

  @Test
  void exactlyOnceAndAtLeastOnceRecordNoPendingMetadataForAnOpaqueSpout() {
    for (Guarantee g : List.of(Guarantee.EXACTLY_ONCE, Guarantee.AT_LEAST_ONCE)) {
      CountingCheckpoints checkpoints = new CountingCheckpoints();
      PipelineBuilder b = Pipeline.newBuilder("opaque-" + g).guarantee(g).checkpointStore(checkpoints);
      b.source(new OffsetSpout<>(List.of("a", "b", "c"), 2)).to("out", new CollectingSink<String>("out"));
      try (Pipeline p = b.build()) {
        assertEquals(2, p.runUntilIdle().lastTxid());
      }
      assertEquals(List.of(), checkpoints.pendingRecorded, g.toString());
      assertEquals(List.of(1L, 2L), checkpoints.committed, g.toString());
    }
  }

  @Test
  void atLeastOnceRecordsNoPendingMetadataAndOpensEpochsThatReapplyCells() {
    ListSpout<String> spout = new ListSpout<>(List.of(List.of("a"), List.of("a", "b"), List.of("a")));
    InMemoryBackingMap<String, Long> store = new InMemoryBackingMap<>("counts");
    boolean[] failedOnce = {false};
    FailingMap<String, Long> map = new FailingMap<>(store, a -> a.txid() == 2 && !failedOnce[0], () -> {
      failedOnce[0] = true;
      return retryable();
    });
    CountingCheckpoints checkpoints = new CountingCheckpoints();
    Drops drops = new Drops();
    try (Pipeline p = counting("alo", Guarantee.AT_LEAST_ONCE, checkpoints, drops, spout, map).build()) {
      assertEquals(3, p.runUntilIdle().lastTxid());
    }
    assertEquals(List.of(), checkpoints.pendingRecorded, "AT_LEAST_ONCE writes no pending metadata");
    assertEquals(List.of("1/1/0", "2/1/1", "2/2/1", "3/1/2"), spout.emissions, "the failed batch is replayed");
    assertEquals(List.of(), drops.dropped);
    assertFalse(map.skipsApplied.isEmpty());
    assertTrue(map.skipsApplied.stream().noneMatch(s -> s), "every AT_LEAST_ONCE epoch re-applies cells");
    assertEquals(Map.of("a", 3L, "b", 1L), store.snapshot());
  }
}
