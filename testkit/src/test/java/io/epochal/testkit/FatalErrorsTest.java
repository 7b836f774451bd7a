package io.epochal.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.InvalidRecordException;
import io.epochal.errors.StoreException;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.CombinerAggregator;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.PipelineListener;
import io.epochal.pipeline.ReducerAggregator;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.spout.BatchAttempt;
import io.epochal.spouts.ListSpout;
import io.epochal.state.IBackingMap;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.NonTransactionalMap;
import io.epochal.state.opaque.OpaqueMap;
import io.epochal.state.opaque.OpaqueValue;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.store.InMemoryCheckpointStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Errors no replay can fix stop the pipeline in the batch where they happen, at their first occurrence, naming what
 * they can (issue 10, findings 5, 11 and 12): a null from combine, reduce or an updater; an overflowing aggregate; a
 * full disk or a read-only file system; a non-retryable store error. Each test would have passed a wrong count or
 * retried the error on the old engine.
 */
class FatalErrorsTest {

  /** Counts attempts, failed and committed, as the engine reports them. */
  static final class Attempts implements PipelineListener {
    final List<BatchAttempt> failed = new ArrayList<>();
    int committed;

    @Override
    public void onBatchCommitted(io.epochal.pipeline.BatchReport report) {
      committed++;
    }

    @Override
    public void onAttemptFailed(BatchAttempt attempt, Throwable cause) {
      failed.add(attempt);
    }
  }

  /** A backing map whose every call fails with {@code failure}, counting the calls. */
  static <K, C> IBackingMap<K, C> failing(Supplier<RuntimeException> failure, AtomicInteger calls) {
    return new IBackingMap<>() {
      @Override
      public Map<K, C> multiGet(Collection<? extends K> keys) {
        calls.incrementAndGet();
        throw failure.get();
      }

      @Override
      public void multiPut(Map<K, C> cells) {
        calls.incrementAndGet();
        throw failure.get();
      }
    };
  }

  /** A combiner of longs whose combine returns null when the sum reaches {@code nullAt}. */
  static CombinerAggregator<String, Long> nullAt(long nullAt) {
    return new CombinerAggregator<>() {
      @Override
      public Long init(String record) {
        return 1L;
      }

      @Override
      public Long combine(Long left, Long right) {
        return left + right >= nullAt ? null : left + right;
      }

      @Override
      public Long zero() {
        return 0L;
      }
    };
  }

  private static PipelineBuilder builder(String name, Attempts attempts) {
    return Pipeline.newBuilder(name).retryPolicy(RetryPolicy.immediate(10)).listener(attempts)
        .checkpointStore(new InMemoryCheckpointStore());
  }

  private static void assertContext(EpochalException e, String pipeline, String table, String key, long txid) {
    ErrorContext c = e.context();
    assertEquals(Optional.of(pipeline), c.pipeline(), e.getMessage());
    assertEquals(Optional.of(table), c.table(), e.getMessage());
    assertEquals(Optional.of(key), c.key(), e.getMessage());
    assertEquals(OptionalLong.of(txid), c.txid(), e.getMessage());
  }

  // ---------------------------------------------------------------------------------------- finding 5: nulls

  /** Old engine: HashMap.merge removed "a" when combine returned null, and the batch committed without it. */
  @Test
  void shouldStopWhenCombineReturnsNullWithinOneBatchInsteadOfDroppingTheKey() {
    InMemoryBackingMap<String, TransactionalValue<Long>> store = new InMemoryBackingMap<>();
    Attempts attempts = new Attempts();
    PipelineBuilder b = builder("null-combine", attempts);
    b.source(ListSpout.of("letters", List.of("a", "b", "a"), 3)).groupBy(s -> s)
        .persistentAggregate("counts", TransactionalMap.factory(store), nullAt(2));
    try (Pipeline p = b.build()) {
      InvalidRecordException e = assertThrows(InvalidRecordException.class, p::runUntilIdle);
      assertTrue(e.getMessage().contains("null") && e.getMessage().contains("combine"), e.getMessage());
      assertContext(e, "null-combine", "counts", "a", 1);
      assertFalse(e.retryable());
      assertEquals(0, p.lastCommittedTxid(), "the batch with the null is not committed");
      assertEquals(0, p.metrics().failedAttempts(), "not retried");
    }
    assertEquals(List.of(new BatchAttempt(1, 1)), attempts.failed, "the listener sees the one attempt that stops"
        + " the pipeline; it is not retried");
    assertEquals(Map.of(), store.snapshot(), "nothing written: neither 'b' nor 'a' without its count");
  }

  /** Old engine: the map's NullPointerException was retried 10 times, then BatchFailedException. */
  @Test
  void shouldStopAtOnceWhenCombineWithTheStoredValueReturnsNull() {
    InMemoryBackingMap<String, OpaqueValue<Long>> store = new InMemoryBackingMap<>();
    Attempts attempts = new Attempts();
    PipelineBuilder b = builder("null-across", attempts);
    b.source(ListSpout.of("letters", List.of("a", "b", "a"), 2)).groupBy(s -> s)
        .persistentAggregate("counts", OpaqueMap.factory(store), nullAt(2));
    try (Pipeline p = b.build()) {
      InvalidRecordException e = assertThrows(InvalidRecordException.class, p::runUntilIdle);
      assertContext(e, "null-across", "counts", "a", 2);
      assertEquals(1, p.lastCommittedTxid());
      assertEquals(0, p.metrics().failedAttempts(), "not retried");
    }
    assertEquals(1L, store.snapshot().get("a").curr(), "txid 1's count stays, txid 2 wrote nothing");
  }

  @Test
  void shouldStopAtOnceWhenReduceReturnsNull() {
    ReducerAggregator<String, String> reducer = new ReducerAggregator<>() {
      @Override
      public String init() {
        return "";
      }

      @Override
      public String reduce(String current, String record) {
        return current.isEmpty() ? record : null;
      }
    };
    Attempts attempts = new Attempts();
    PipelineBuilder b = builder("null-reduce", attempts);
    b.source(ListSpout.of("letters", List.of("a", "a"), 2)).groupBy(s -> s)
        .persistentAggregate("joined", TransactionalMap.factory(new InMemoryBackingMap<>()), reducer);
    try (Pipeline p = b.build()) {
      InvalidRecordException e = assertThrows(InvalidRecordException.class, p::runUntilIdle);
      assertTrue(e.getMessage().contains("reduce"), e.getMessage());
      assertContext(e, "null-reduce", "joined", "a", 1);
      assertEquals(0, p.metrics().failedAttempts());
    }
  }

  /** A StateUpdater that puts a null value: the map's NullPointerException used to be retried. */
  @Test
  void shouldStopAtOnceWhenAStateUpdaterPutsNullOrItsUpdaterReturnsNull() {
    for (boolean viaUpdater : new boolean[] {false, true}) {
      InMemoryBackingMap<String, TransactionalValue<Long>> store = new InMemoryBackingMap<>();
      Attempts attempts = new Attempts();
      PipelineBuilder b = builder("null-persist", attempts);
      b.source(ListSpout.of("letters", List.of("a", "b"), 2)).groupBy(s -> s)
          .partitionPersist("counts", TransactionalMap.<String, Long>factory(store), (state, batch, records) -> {
            Map<String, Long> values = new HashMap<>();
            Map<String, io.epochal.state.ValueUpdater<Long>> updaters = new HashMap<>();
            for (String r : records) {
              values.put(r, r.equals("b") ? null : 1L);
              updaters.put(r, stored -> r.equals("b") ? null : 1L);
            }
            if (viaUpdater) {
              state.multiUpdate(updaters);
            } else {
              state.multiPut(values);
            }
          });
      try (Pipeline p = b.build()) {
        InvalidRecordException e = assertThrows(InvalidRecordException.class, p::runUntilIdle);
        assertEquals(Optional.of("b"), e.context().key(), e.getMessage());
        assertEquals(Optional.of("counts"), e.context().table(), e.getMessage());
        assertEquals(OptionalLong.of(1), e.context().txid(), e.getMessage());
        assertEquals(0, p.metrics().failedAttempts(), "not retried");
      }
      assertEquals(Map.of(), store.snapshot());
    }
  }

  @Test
  void shouldStopAtOnceWhenANonTransactionalUpdaterReturnsNull() {
    MapState<String, Long> map = NonTransactionalMap.over(new InMemoryBackingMap<>("plain"));
    map.begin(io.epochal.state.Epoch.of("test", new io.epochal.spout.BatchAttempt(4, 1)));
    InvalidRecordException e = assertThrows(InvalidRecordException.class,
        () -> map.multiUpdate(Map.of("k", stored -> null)));
    assertEquals(Optional.of("k"), e.context().key());
    assertEquals(OptionalLong.of(4), e.context().txid());
    assertFalse(EpochalException.isRetryable(e));
  }

  // ---------------------------------------------------------------------------- finding 12: exact arithmetic

  /** Old engine: sumLong wrapped around silently and stored a negative sum. */
  @Test
  void shouldStopWhenSumLongOverflowsNamingTheKeyInsteadOfWrappingAround() {
    InMemoryBackingMap<String, TransactionalValue<Long>> store = new InMemoryBackingMap<>();
    Attempts attempts = new Attempts();
    PipelineBuilder b = builder("overflow", attempts);
    b.source(ListSpout.of("amounts", List.of(Long.MAX_VALUE - 1, 1L, 1L), 2))
        .groupBy(x -> "total").persistentAggregate("sums", TransactionalMap.factory(store),
            Aggregators.sumLong(x -> x));
    try (Pipeline p = b.build()) {
      InvalidRecordException e = assertThrows(InvalidRecordException.class, p::runUntilIdle);
      assertTrue(e.getMessage().contains("sumLong overflowed"), e.getMessage());
      assertInstanceOf(ArithmeticException.class, e.getCause());
      assertContext(e, "overflow", "sums", "total", 2);
      assertEquals(1, p.lastCommittedTxid());
      assertEquals(0, p.metrics().failedAttempts(), "not retried");
    }
    assertEquals(new TransactionalValue<>(Long.MAX_VALUE, 1), store.snapshot().get("total"), "never wrapped around");
  }

  @Test
  void countAndSumLongAreExact() {
    assertThrows(ArithmeticException.class, () -> Aggregators.count().combine(Long.MAX_VALUE, 1L));
    assertThrows(ArithmeticException.class, () -> Aggregators.<Long>sumLong(x -> x).combine(Long.MIN_VALUE, -1L));
    assertEquals(-3L, Aggregators.<Long>sumLong(x -> x).combine(-1L, -2L));
    assertFalse(EpochalException.isRetryable(new ArithmeticException("overflow")), "arithmetic is deterministic");
  }

  // ------------------------------------------------------------- finding 11: unfixable errors are not retried

  /** Old engine: "No space left on device" was retried up to the retry policy (100 attempts in the report). */
  @Test
  void shouldStopAfterTheFirstNoSpaceLeftOnDeviceSayingWhatToDo() {
    for (String symptom : new String[] {"No space left on device", "Read-only file system"}) {
      AtomicInteger calls = new AtomicInteger();
      UncheckedIOException io = new UncheckedIOException(new IOException("write /state/000012.log: " + symptom));
      Attempts attempts = new Attempts();
      PipelineBuilder b = builder("disk", attempts);
      b.source(ListSpout.of("letters", List.of("a"), 1)).groupBy(s -> s)
          .persistentAggregate("counts", TransactionalMap.factory(failing(() -> io, calls)), Aggregators.count());
      try (Pipeline p = b.build()) {
        StoreException e = assertThrows(StoreException.class, p::runUntilIdle);
        assertSame(io, e.getCause(), "the original failure is the cause");
        assertFalse(e.retryable());
        assertTrue(e.getMessage().contains(symptom) && e.getMessage().contains("No retry can fix this")
            && e.getMessage().contains("then restart"), e.getMessage());
        assertEquals(Optional.of("disk"), e.context().pipeline());
        assertEquals(OptionalLong.of(1), e.context().txid());
        assertEquals(0, p.metrics().failedAttempts());
      }
      assertEquals(1, calls.get(), "exactly one attempt touched the store");
      assertEquals(List.of(new BatchAttempt(1, 1)), attempts.failed, "the listener sees the one attempt that stops"
        + " the pipeline; it is not retried");
    }
  }

  @Test
  void shouldSurfaceANonRetryableStoreErrorAsItIsAfterOneAttempt() {
    AtomicInteger calls = new AtomicInteger();
    StoreException fatal = new StoreException("format mismatch in store X", null, false,
        ErrorContext.of("counts", null));
    Attempts attempts = new Attempts();
    PipelineBuilder b = builder("fatal-store", attempts);
    b.source(ListSpout.of("letters", List.of("a", "b"), 1)).groupBy(s -> s)
        .persistentAggregate("counts", OpaqueMap.factory(failing(() -> fatal, calls)), Aggregators.count());
    try (Pipeline p = b.build()) {
      assertSame(fatal, assertThrows(StoreException.class, p::runUntilIdle), "not wrapped in BatchFailedException");
      assertEquals(0, p.lastCommittedTxid());
    }
    assertEquals(1, calls.get(), "exactly one attempt");
    assertEquals(List.of(new BatchAttempt(1, 1)), attempts.failed, "the listener sees the one attempt that stops"
        + " the pipeline; it is not retried");
  }

  /** A retryable store error is still retried (the contrast of the two tests above). */
  @Test
  void shouldStillRetryARetryableStoreError() {
    AtomicInteger calls = new AtomicInteger();
    Attempts attempts = new Attempts();
    PipelineBuilder b = Pipeline.newBuilder("flaky").retryPolicy(RetryPolicy.immediate(3)).listener(attempts);
    b.source(ListSpout.of("letters", List.of("a"), 1)).groupBy(s -> s).persistentAggregate("counts",
        TransactionalMap.factory(failing(() -> new StoreException("timeout"), calls)), Aggregators.count());
    try (Pipeline p = b.build()) {
      io.epochal.errors.BatchFailedException e =
          assertThrows(io.epochal.errors.BatchFailedException.class, p::runUntilIdle);
      assertEquals(3, e.attempts());
    }
    assertEquals(3, calls.get());
    assertEquals(3, attempts.failed.size());
  }

  /** A key that no store can hold (an unpaired surrogate) used to fail at the store and be retried. */
  @Test
  void shouldStopAtOnceOnAKeyWithAnUnpairedSurrogate() {
    Attempts attempts = new Attempts();
    PipelineBuilder b = builder("surrogate", attempts);
    b.source(ListSpout.of("words", List.of("ok", "bad\ud800"), 2)).groupBy(s -> s)
        .persistentAggregate("counts", TransactionalMap.factory(new InMemoryBackingMap<>()), Aggregators.count());
    try (Pipeline p = b.build()) {
      InvalidRecordException e = assertThrows(InvalidRecordException.class, p::runUntilIdle);
      assertTrue(e.getMessage().contains("unpaired surrogate"), e.getMessage());
      assertEquals(Optional.of("surrogate"), e.context().pipeline());
      assertEquals(OptionalLong.of(1), e.context().txid());
      assertEquals(0, p.metrics().failedAttempts());
    }
    assertEquals(List.of(new BatchAttempt(1, 1)), attempts.failed, "the listener sees the one attempt that stops"
        + " the pipeline; it is not retried");
  }
}
