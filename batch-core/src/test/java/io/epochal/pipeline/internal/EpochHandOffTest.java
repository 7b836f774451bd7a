package io.epochal.pipeline.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.MapStateRef;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.pipeline.Stream;
import io.epochal.pipeline.internal.EngineTesting.ListSpout;
import io.epochal.pipeline.internal.EngineTesting.LogState;
import io.epochal.spout.BatchAttempt;
import io.epochal.state.Epoch;
import io.epochal.state.ForwardingMapState;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.NonTransactionalMap;
import io.epochal.state.SnapshottableMap;
import io.epochal.state.StateContext;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;
import io.epochal.store.Checkpoint;
import io.epochal.store.CheckpointEpoch;
import io.epochal.store.CheckpointStore;
import io.epochal.store.InMemoryCheckpointStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The engine hands each state partition the epoch it opened, once per batch attempt, and nothing else carries the
 * txid: a state learns (txid, attempt) only from {@code begin(epoch)}, and its map calls outside begin..end fail.
 */
class EpochHandOffTest {

  /** An in-memory checkpoint store recording every epoch the engine opens. */
  private static final class RecordingEpochs implements CheckpointStore {
    final InMemoryCheckpointStore real = new InMemoryCheckpointStore();
    final List<CheckpointEpoch> opened = new CopyOnWriteArrayList<>();

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
    }

    @Override
    public void reserveAttempts(String pipeline, long attemptCeiling, long txidWindow) {
      real.reserveAttempts(pipeline, attemptCeiling, txidWindow);
    }

    @Override
    public CheckpointEpoch openEpoch(String pipeline, BatchAttempt attempt) {
      CheckpointEpoch e = CheckpointStore.super.openEpoch(pipeline, attempt);
      opened.add(e);
      return e;
    }
  }

  /** Makes {@link LogState}s and keeps them, partition by partition. */
  private static final class KeptStates implements StateFactory<LogState> {
    final List<String> log = Collections.synchronizedList(new ArrayList<>());
    final List<LogState> made = new CopyOnWriteArrayList<>();

    @Override
    public LogState makeState(StateContext context) {
      LogState s = new LogState(log, new ArrayList<>());
      made.add(s);
      return s;
    }

    @Override
    public StateKind kind() {
      return StateKind.TRANSACTIONAL;
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3})
  void eachPartitionIsBegunOnceWithExactlyTheEpochTheEngineOpened(int partitions) {
    RecordingEpochs checkpoints = new RecordingEpochs();
    KeptStates states = new KeptStates();
    PipelineBuilder b = Pipeline.newBuilder("hand-off").checkpointStore(checkpoints)
        .retryPolicy(RetryPolicy.immediate(3)).threads(partitions).partitions(partitions).sleeper(d -> { });
    Stream<String> words = b.source(new ListSpout<>(List.of(List.of("a", "b", "c"), List.of("d", "e", "f"),
        List.of("g", "h", "i"))));
    words.partitionPersist("log", states, (LogState state, BatchAttempt batch, List<String> records) -> {
      assertSame(state.requireEpoch("update").attempt(), state.epochs.get(state.epochs.size() - 1).attempt());
      assertEquals(batch, state.requireEpoch("update").attempt(), "the updater's batch is the state's epoch");
      if (batch.txid() == 2 && batch.attempt() == 1) {
        throw new EpochalException("injected", null, true, ErrorContext.NONE);
      }
    });
    try (Pipeline p = b.build()) {
      assertEquals(3, p.runUntilIdle().lastTxid());
    }
    List<BatchAttempt> attempts = checkpoints.opened.stream().map(Epoch::attempt).toList();
    assertEquals(List.of(new BatchAttempt(1, 1), new BatchAttempt(2, 1), new BatchAttempt(2, 2),
        new BatchAttempt(3, 1)), attempts);
    assertEquals(partitions, states.made.size());
    for (LogState s : states.made) {
      assertEquals(checkpoints.opened.size(), s.epochs.size(), "every partition got records in every attempt");
      for (int i = 0; i < s.epochs.size(); i++) {
        assertSame(checkpoints.opened.get(i), s.epochs.get(i), "the state got the very epoch the engine opened");
      }
    }
  }

  /** Counts the begins of a map state, per epoch. */
  private static final class CountingBegins extends ForwardingMapState<String, Long> {
    final List<Epoch> begun;

    CountingBegins(MapState<String, Long> inner, List<Epoch> begun) {
      super(inner);
      this.begun = begun;
    }

    @Override
    public void begin(Epoch epoch) {
      begun.add(epoch);
      super.begin(epoch);
    }
  }

  @Test
  void aStateUpdatedThenQueriedInOneBatchIsBegunOnceAndTheQuerySeesTheUpdate() {
    RecordingEpochs checkpoints = new RecordingEpochs();
    InMemoryBackingMap<String, Long> store = new InMemoryBackingMap<>();
    List<Epoch> begun = new CopyOnWriteArrayList<>();
    StateFactory<MapState<String, Long>> plain = NonTransactionalMap.factory(store);
    StateFactory<MapState<String, Long>> counting = new StateFactory<>() {
      @Override
      public MapState<String, Long> makeState(StateContext context) {
        return new CountingBegins(plain.makeState(context), begun);
      }

      @Override
      public StateKind kind() {
        return StateKind.NON_TRANSACTIONAL;
      }
    };
    PipelineBuilder b = Pipeline.newBuilder("update-then-query").checkpointStore(checkpoints).sleeper(d -> { })
        .guarantee(io.epochal.pipeline.Guarantee.AT_LEAST_ONCE);
    Stream<String> words = b.source(new ListSpout<>(List.of(List.of("a", "a"), List.of("a"))));
    MapStateRef<String, Long> counts = words.groupBy(w -> w).persistentAggregate("counts", counting,
        Aggregators.count());
    List<String> seen = new CopyOnWriteArrayList<>();
    KeptStates sink = new KeptStates();
    words.lookup(counts, w -> w, (w, v) -> w + "=" + v.orElse(0L))
        .partitionPersist("seen", sink, (LogState state, BatchAttempt batch, List<String> records) -> {
          seen.addAll(records);
        });
    try (Pipeline p = b.build()) {
      assertEquals(2, p.runUntilIdle().lastTxid());
    }
    assertEquals(List.of("a=2", "a=2", "a=3"), seen, "the lookup reads the batch's own update");
    // AT_LEAST_ONCE hands the states the store's epoch wrapped (it does not skip applied cells): same attempts.
    assertEquals(checkpoints.opened.stream().map(Epoch::attempt).toList(), begun.stream().map(Epoch::attempt).toList(),
        "begun once per epoch, by the update, not again by the query");
    assertTrue(begun.stream().noneMatch(Epoch::skipsAppliedCells), "an AT_LEAST_ONCE epoch re-applies cells");
  }

  @Test
  void mapCallsOutsideBeginAndEndFailClearlyAndAReadOnlyEpochOnlyReads() {
    InMemoryBackingMap<String, Long> store = new InMemoryBackingMap<>();
    MapState<String, Long> map = NonTransactionalMap.over(store);
    IllegalStateException before = assertThrows(IllegalStateException.class, () -> map.multiGet(List.of("a")));
    assertTrue(before.getMessage().contains("multiGet of NonTransactionalMap over"), before.getMessage());
    assertTrue(before.getMessage().contains("outside begin(epoch)..end()"), before.getMessage());
    assertThrows(IllegalStateException.class, () -> map.multiPut(Map.of("a", 1L)));
    assertThrows(IllegalStateException.class, () -> map.multiUpdate(Map.of("a", v -> 1L)));
    assertEquals(Map.of(), store.snapshot(), "nothing reached the store");

    map.begin(Epoch.of("p", new BatchAttempt(1, 1)));
    map.multiPut(Map.of("a", 1L));
    map.end();
    assertThrows(IllegalStateException.class, () -> map.multiPut(Map.of("a", 2L)), "after end()");
    map.begin(Epoch.of("p", new BatchAttempt(2, 1)));
    map.abort();
    assertThrows(IllegalStateException.class, () -> map.multiGet(List.of("a")), "after abort()");

    SnapshottableMap<String, Long> global = new SnapshottableMap<>(map, "$global");
    global.begin(Epoch.readAfter("p", 1));
    assertEquals(Optional.empty(), global.get());
    assertEquals(Map.of("a", 1L), global.multiGet(List.of("a")));
    IllegalStateException readOnly = assertThrows(IllegalStateException.class, () -> global.set(5L));
    assertTrue(readOnly.getMessage().contains("read-only"), readOnly.getMessage());
    global.end();
    assertEquals(Map.of("a", 1L), store.snapshot());
  }

  @Test
  void theReadOnlyEpochIsTheBatchAfterTheCommittedTxid() {
    Epoch e = Epoch.readAfter("p", 7);
    assertEquals(new BatchAttempt(8, 1), e.attempt());
    assertTrue(e.readOnly());
    assertEquals(Optional.empty(), e.staging(Object.class));
    assertThrows(IllegalArgumentException.class, () -> Epoch.readAfter("p", -1));
    assertThrows(IllegalArgumentException.class, () -> Epoch.readAfter("p", Long.MAX_VALUE));
    assertEquals(false, Epoch.of("p", new BatchAttempt(1, 1)).readOnly());
  }
}
