package io.epochal.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.spout.BatchAttempt;
import io.epochal.spout.OpaqueSpout;
import io.epochal.spout.SpoutKind;
import io.epochal.spout.TransactionalSpout;
import io.epochal.spouts.ListSpout;
import io.epochal.spouts.Range;
import io.epochal.spouts.ReCuttingOpaqueSpout;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The fault injector's spout wrappers (the one fault model's spout point; this keeps the intent of the deleted
 * {@code spouts} fault-injecting spout's tests): {@link FaultPoint#AFTER_EMIT} fires once, by the emitted txid, after
 * the whole batch went out; the replay emits again and succeeds; the lifecycle is forwarded unchanged.
 */
class FaultInjectorSpoutTest {
  static final List<Long> INPUT = LongStream.range(0, 100).boxed().toList();

  static BatchAttempt at(long txid, int attempt) {
    return new BatchAttempt(txid, attempt);
  }

  @Test
  void shouldFailAfterTheWholeTransactionalBatchWasEmittedOnceThenLetTheReplayThrough() {
    ListSpout<Long> list = ListSpout.of("list", INPUT, 10);
    FaultInjector injector = new FaultInjector(List.of(Fault.fail(FaultPoint.AFTER_EMIT, 2)));
    TransactionalSpout<Long, Range> spout = injector.wrap(list);
    assertEquals("list", spout.name());
    assertSame(Range.codec(), spout.metadataCodec());
    assertEquals(SpoutKind.TRANSACTIONAL, spout.kind());
    Range r1 = spout.nextBatch(1, Optional.empty()).orElseThrow();
    assertEquals(list.nextBatch(1, Optional.empty()), Optional.of(r1));
    Range r2 = spout.nextBatch(2, Optional.of(r1)).orElseThrow();
    List<Long> out = new ArrayList<>();
    spout.emit(at(1, 1), r1, out::add);
    assertEquals(10, out.size());
    out.clear();
    InjectedFailure failure = assertThrows(InjectedFailure.class, () -> spout.emit(at(2, 1), r2, out::add));
    assertEquals(Fault.fail(FaultPoint.AFTER_EMIT, 2), failure.fault());
    assertEquals(LongStream.range(10, 20).boxed().toList(), out, "all records emitted before the fault");
    out.clear();
    spout.emit(at(2, 2), r2, out::add);
    assertEquals(LongStream.range(10, 20).boxed().toList(), out, "the replay succeeds with the same records");
    assertEquals(List.of(Fault.fail(FaultPoint.AFTER_EMIT, 2)), injector.fired());
    assertEquals(List.of(), injector.unfired());
    assertEquals(3, injector.timeline().events().stream()
        .filter(e -> e.kind() == TimelineEvent.Kind.EMITTED).count(), injector.timeline().events()::toString);
  }

  @Test
  void shouldFailEveryScheduledAttemptAndCrashAsAnError() {
    FaultInjector injector = new FaultInjector(List.of(Fault.fail(FaultPoint.AFTER_EMIT, 1),
        Fault.fail(FaultPoint.AFTER_EMIT, 1), Fault.crash(FaultPoint.AFTER_EMIT, 1)));
    TransactionalSpout<Long, Range> spout = injector.wrap(ListSpout.of("list", INPUT, 4));
    Range r1 = spout.nextBatch(1, Optional.empty()).orElseThrow();
    assertThrows(InjectedFailure.class, () -> spout.emit(at(1, 1), r1, r -> { }));
    assertThrows(InjectedFailure.class, () -> spout.emit(at(1, 2), r1, r -> { }));
    SimulatedCrash crash = assertThrows(SimulatedCrash.class, () -> spout.emit(at(1, 3), r1, r -> { }));
    assertTrue(crash.fault().crash());
    List<Long> out = new ArrayList<>();
    spout.emit(at(1, 4), r1, out::add);
    assertEquals(List.of(0L, 1L, 2L, 3L), out);
    assertEquals(3, injector.fired().size());
  }

  @Test
  void shouldFailAnOpaqueEmissionAfterItsCutSoTheReplayCutsFromTheCommittedPosition() {
    ReCuttingOpaqueSpout<Long> recut = ReCuttingOpaqueSpout.of("recut", INPUT, 2, 5, 7);
    FaultInjector injector = new FaultInjector(List.of(Fault.fail(FaultPoint.AFTER_EMIT, 1)));
    OpaqueSpout<Long, Long> spout = injector.wrap(recut);
    assertEquals(SpoutKind.OPAQUE, spout.kind());
    assertEquals("recut", spout.name());
    assertSame(recut.metadataCodec(), spout.metadataCodec());
    assertTrue(spout.isReady(1, Optional.empty()));
    List<Long> first = new ArrayList<>();
    assertThrows(InjectedFailure.class, () -> spout.emit(at(1, 1), Optional.empty(), first::add));
    assertEquals(recut.cut(at(1, 1), Optional.empty()).end(), first.size(), "the first cut went out whole");
    List<Long> out = new ArrayList<>();
    Long position = spout.emit(at(1, 2), Optional.empty(), out::add);
    assertEquals(recut.cut(at(1, 2), Optional.empty()).end(), position, "the replay re-cuts from the start");
    assertEquals(position, out.size());
  }

  @Test
  void shouldNotFireAnotherTxidsFault() {
    FaultInjector injector = new FaultInjector(List.of(Fault.fail(FaultPoint.AFTER_EMIT, 3)));
    TransactionalSpout<Long, Range> spout = injector.wrap(ListSpout.of("list", INPUT, 5));
    spout.emit(at(1, 1), new Range(0, 5), r -> { });
    spout.emit(at(2, 1), new Range(5, 10), r -> { });
    assertEquals(List.of(), injector.fired());
    assertEquals(List.of(Fault.fail(FaultPoint.AFTER_EMIT, 3)), injector.unfired());
  }
}
