package io.epochal.store.table;

import io.epochal.state.Epoch;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.epochal.codec.Codecs;
import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.MapStateRef;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.pipeline.Stream;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.TransactionalSpout;
import io.epochal.state.CachedMap;
import io.epochal.state.IBackingMap;
import io.epochal.state.State;
import io.epochal.state.StateContext;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Caches drop what a failed attempt put in them: CachedMap over an epoch-buffered table map. */
class CachedMapAbortTest {

  /** Batches {@code ["a"], ["a"], ["a"]}; metadata is the batch index. */
  private static final class Words implements TransactionalSpout<String, Long> {
    @Override
    public String name() {
      return "words";
    }

    @Override
    public io.epochal.codec.Codec<Long> metadataCodec() {
      return Codecs.longs();
    }

    @Override
    public Optional<Long> nextBatch(long txid, Optional<Long> previous) {
      long next = previous.map(p -> p + 1).orElse(0L);
      return next < 3 ? Optional.of(next) : Optional.empty();
    }

    @Override
    public void emit(BatchAttempt attempt, Long metadata, Collector<String> out) {
      out.emit("a");
    }
  }

  /**
   * A state declared after the counts, failing the first attempt of txid 2 after the counts were written (in its
   * update: states end only after the commit phase's last node, and the lookup below must not see that attempt).
   */
  private static class FailOnce implements State {
    boolean failed;

    @Override
    public void begin(Epoch epoch) {
    }

    @Override
    public void end() {
    }

    void failOnceIn(BatchAttempt batch) {
      if (batch.txid() == 2 && !failed) {
        failed = true;
        throw new EpochalException("injected after the counts of txid 2", null, true, ErrorContext.NONE);
      }
    }
  }

  @Test
  void aReplayOverACachedEpochBufferedMapDoesNotSeeTheFailedAttemptsCell() {
    TableCheckpointStore checkpoints = TableCheckpointStore.on(TableStores.inMemory());
    List<CachedMap<?, ?>> caches = new ArrayList<>();
    BackingMapLayer cached = new BackingMapLayer() {
      @Override
      public <K, C> IBackingMap<K, C> wrap(IBackingMap<K, C> inner) {
        CachedMap<K, C> c = new CachedMap<>(inner, 100);
        caches.add(c);
        return c;
      }
    };
    PipelineBuilder b = Pipeline.newBuilder("cached").checkpointStore(checkpoints)
        .retryPolicy(RetryPolicy.immediate(3)).sleeper(d -> { });
    Stream<String> words = b.source(new Words());
    MapStateRef<String, Long> counts = words.groupBy(w -> w).persistentAggregate("counts",
        TableStates.builder(KeyCodec.strings(), Codecs.longs()).layer(cached).nonTransactional(),
        Aggregators.count());
    FailOnce failOnce = new FailOnce();
    words.partitionPersist("fail-once", new StateFactory<FailOnce>() {
      @Override
      public FailOnce makeState(StateContext context) {
        return failOnce;
      }

      @Override
      public StateKind kind() {
        return StateKind.TRANSACTIONAL;
      }
    }, (state, batch, records) -> state.failOnceIn(batch));
    List<Long> seen = new ArrayList<>();
    words.lookup(counts, w -> w, (w, v) -> v.orElse(0L)).partitionPersist("seen", new StateFactory<FailOnce>() {
      @Override
      public FailOnce makeState(StateContext context) {
        return new FailOnce();
      }

      @Override
      public StateKind kind() {
        return StateKind.TRANSACTIONAL;
      }
    }, (state, batch, records) -> seen.addAll(records));
    try (Pipeline p = b.build()) {
      assertEquals(1, p.runUntilIdle().failedAttempts());
      assertEquals(3, p.lastCommittedTxid());
    }
    assertEquals(1, caches.size());
    // txid 2's failed attempt cached count 2; its replay must count from the committed 1 again (else 1, 3, 4).
    assertEquals(List.of(1L, 2L, 3L), seen);
    @SuppressWarnings("unchecked")
    CachedMap<String, Long> cache = (CachedMap<String, Long>) caches.get(0);
    assertEquals(Map.of("a", 3L), cache.multiGet(List.of("a")));
  }
}
