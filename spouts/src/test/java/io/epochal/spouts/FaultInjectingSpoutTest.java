package io.epochal.spouts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codec;
import io.epochal.pipeline.Sleeper;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.NonTransactionalSpout;
import io.epochal.spout.SpoutKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class FaultInjectingSpoutTest {

  static final List<Long> INPUT = LongStream.range(0, 100).boxed().toList();

  static BatchAttempt at(long txid, int attempt) {
    return new BatchAttempt(txid, attempt);
  }

  /** A sleeper that records the requested delays and never sleeps. */
  static final class RecordingSleeper implements Sleeper {
    final List<Duration> slept = new ArrayList<>();

    @Override
    public void sleep(Duration duration) {
      slept.add(duration);
    }
  }

  /** A non-transactional spout emitting "n1", "n2", ... counting its lifecycle calls. */
  static final class CountingSpout implements NonTransactionalSpout<String> {
    int emitted;
    final List<Long> successes = new ArrayList<>();
    boolean closed;

    @Override
    public String name() {
      return "counting";
    }

    @Override
    public boolean isReady(long txid) {
      return txid < 10;
    }

    @Override
    public void emit(BatchAttempt attempt, Collector<String> out) {
      out.emit("n" + ++emitted);
      out.emit("n" + ++emitted);
    }

    @Override
    public void success(long txid) {
      successes.add(txid);
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  @Test
  void shouldThrowBeforeEmitOnlyForPlannedAttempts() {
    ListSpout<Long> list = ListSpout.of("list", INPUT, 10);
    FaultInjectingSpout.Transactional<Long, Range> spout = FaultInjectingSpout.wrap(list,
        FaultPlan.builder().throwBeforeEmit(FaultPlan.firstAttemptOf(2)).build());
    Range r1 = spout.nextBatch(1, Optional.empty()).orElseThrow();
    Range r2 = spout.nextBatch(2, Optional.of(r1)).orElseThrow();
    List<Long> out = new ArrayList<>();
    spout.emit(at(1, 1), r1, out::add);
    assertEquals(10, out.size());
    out.clear();
    InjectedFault fault = assertThrows(InjectedFault.class, () -> spout.emit(at(2, 1), r2, out::add));
    assertEquals(List.of(), out, "nothing emitted before the fault");
    assertEquals(FaultPoint.BEFORE_EMIT, fault.point());
    assertEquals(at(2, 1), fault.batchAttempt());
    assertEquals("list", fault.spout());
    assertTrue(fault.getMessage().contains("BEFORE_EMIT") && fault.getMessage().contains("txid 2")
        && fault.getMessage().contains("attempt 1"), fault.getMessage());
    spout.emit(at(2, 2), r2, out::add);
    assertEquals(LongStream.range(10, 20).boxed().toList(), out, "the replay succeeds with the same records");
    assertEquals(1, spout.fired(FaultPoint.BEFORE_EMIT));
    assertEquals(List.of(at(2, 1)), spout.firings(FaultPoint.BEFORE_EMIT));
    assertEquals(0, spout.fired(FaultPoint.AFTER_EMIT));
    assertEquals(3, spout.emitCalls());
    assertEquals(1, spout.faultsThrown());
  }

  @Test
  void shouldThrowAfterTheWholeBatchWasEmitted() {
    FaultInjectingSpout.Transactional<Long, Range> spout = FaultInjectingSpout.wrap(ListSpout.of("list", INPUT, 4),
        FaultPlan.builder().throwAfterEmit(FaultPlan.attemptsOf(1, 2)).build());
    Range r1 = spout.nextBatch(1, Optional.empty()).orElseThrow();
    for (int attempt = 1; attempt <= 2; attempt++) {
      List<Long> out = new ArrayList<>();
      int a = attempt;
      InjectedFault fault = assertThrows(InjectedFault.class, () -> spout.emit(at(1, a), r1, out::add));
      assertEquals(FaultPoint.AFTER_EMIT, fault.point());
      assertEquals(List.of(0L, 1L, 2L, 3L), out, "all records emitted before the fault");
    }
    List<Long> out = new ArrayList<>();
    spout.emit(at(1, 3), r1, out::add);
    assertEquals(List.of(0L, 1L, 2L, 3L), out);
    assertEquals(List.of(at(1, 1), at(1, 2)), spout.firings(FaultPoint.AFTER_EMIT));
  }

  @Test
  void shouldThrowMidEmitAfterThePlannedNumberOfRecords() {
    FaultInjectingSpout.Transactional<Long, Range> spout = FaultInjectingSpout.wrap(ListSpout.of("list", INPUT, 5),
        FaultPlan.builder().throwMidEmit(FaultPlan.always(), 3).build());
    List<Long> out = new ArrayList<>();
    InjectedFault fault = assertThrows(InjectedFault.class, () -> spout.emit(at(1, 1), new Range(0, 5), out::add));
    assertEquals(FaultPoint.MID_EMIT, fault.point());
    assertEquals(List.of(0L, 1L, 2L), out);
    out.clear();
    spout.emit(at(2, 1), new Range(5, 8), out::add);
    assertEquals(List.of(5L, 6L, 7L), out, "a batch of at most 3 records passes");
    assertEquals(1, spout.fired(FaultPoint.MID_EMIT));
  }

  @Test
  void shouldDelayThroughTheInjectedSleeper() {
    RecordingSleeper sleeper = new RecordingSleeper();
    FaultInjectingSpout.Transactional<Long, Range> spout = FaultInjectingSpout.wrap(ListSpout.of("list", INPUT, 5),
        FaultPlan.builder().delayEmit(a -> a.txid() % 2 == 0, Duration.ofSeconds(30)).sleeper(sleeper).build());
    List<Long> out = new ArrayList<>();
    long started = System.nanoTime();
    spout.emit(at(1, 1), new Range(0, 1), out::add);
    spout.emit(at(2, 1), new Range(1, 2), out::add);
    spout.emit(at(4, 3), new Range(2, 3), out::add);
    assertTrue(System.nanoTime() - started < Duration.ofSeconds(10).toNanos(), "no real sleep");
    assertEquals(List.of(0L, 1L, 2L), out);
    assertEquals(List.of(Duration.ofSeconds(30), Duration.ofSeconds(30)), sleeper.slept);
    assertEquals(List.of(at(2, 1), at(4, 3)), spout.firings(FaultPoint.SLOW_EMIT));
    assertEquals(0, spout.faultsThrown());
  }

  @Test
  void shouldKeepTheInterruptFlagAndEmitWhenTheDelayIsInterrupted() {
    FaultInjectingSpout.Transactional<Long, Range> spout = FaultInjectingSpout.wrap(ListSpout.of("list", INPUT, 5),
        FaultPlan.builder().delayEmit(FaultPlan.always(), Duration.ofSeconds(1)).sleeper(d -> {
          throw new InterruptedException("test");
        }).build());
    List<Long> out = new ArrayList<>();
    try {
      spout.emit(at(1, 1), new Range(0, 2), out::add);
      assertTrue(Thread.currentThread().isInterrupted());
    } finally {
      Thread.interrupted();
    }
    assertEquals(List.of(0L, 1L), out);
  }

  @Test
  void shouldDiscardTheOpaquePositionWhenFailingAfterEmit() {
    ReCuttingOpaqueSpout<Long> recut = ReCuttingOpaqueSpout.of("recut", INPUT, 2, 5, 7);
    FaultInjectingSpout.Opaque<Long, Long> spout = FaultInjectingSpout.wrap(recut,
        FaultPlan.builder().throwAfterEmit(FaultPlan.firstAttemptOf(1)).throwBeforeEmit(FaultPlan.firstAttemptOf(2))
            .build());
    assertEquals(SpoutKind.OPAQUE, spout.kind());
    assertTrue(spout.isReady(1, Optional.empty()));
    assertThrows(InjectedFault.class, () -> spout.emit(at(1, 1), Optional.empty(), r -> { }));
    List<Long> out = new ArrayList<>();
    Long position = spout.emit(at(1, 2), Optional.empty(), out::add);
    assertEquals(recut.cut(at(1, 2), Optional.empty()).end(), position);
    assertEquals(position, out.size());
    assertThrows(InjectedFault.class, () -> spout.emit(at(2, 1), Optional.of(position), r -> { }));
    assertEquals(1, spout.fired(FaultPoint.AFTER_EMIT));
    assertEquals(1, spout.fired(FaultPoint.BEFORE_EMIT));
    assertSame(recut, spout.wrapped());
    assertSame(recut.metadataCodec(), spout.metadataCodec());
  }

  @Test
  void shouldWrapNonTransactionalSpoutsAndDelegateTheLifecycle() {
    CountingSpout counting = new CountingSpout();
    FaultInjectingSpout.NonTransactional<String> spout = FaultInjectingSpout.wrap(counting,
        FaultPlan.builder().throwMidEmit(FaultPlan.firstAttemptOf(1), 1).build());
    assertEquals(SpoutKind.NON_TRANSACTIONAL, spout.kind());
    assertEquals("counting", spout.name());
    assertTrue(spout.isReady(3));
    List<String> out = new ArrayList<>();
    assertThrows(InjectedFault.class, () -> spout.emit(at(1, 1), out::add));
    assertEquals(List.of("n1"), out);
    out.clear();
    spout.emit(at(1, 2), out::add);
    assertEquals(List.of("n3", "n4"), out);
    spout.success(1);
    spout.close();
    assertEquals(List.of(1L), counting.successes);
    assertTrue(counting.closed);
    Codec<byte[]> codec = spout.metadataCodec();
    assertEquals(counting.metadataCodec().id(), codec.id());
  }

  @Test
  void shouldDelegateTheTransactionalLifecycle() {
    ListSpout<Long> list = ListSpout.of("list", INPUT, 30);
    FaultInjectingSpout.Transactional<Long, Range> spout = FaultInjectingSpout.wrap(list, FaultPlan.none());
    assertEquals(list.nextBatch(1, Optional.empty()), spout.nextBatch(1, Optional.empty()));
    assertEquals("list", spout.name());
    assertSame(Range.codec(), spout.metadataCodec());
    assertEquals(SpoutKind.TRANSACTIONAL, spout.kind());
    assertThrows(NullPointerException.class, () -> FaultInjectingSpout.wrap(list, null));
  }
}
