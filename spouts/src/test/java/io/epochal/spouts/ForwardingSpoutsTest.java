package io.epochal.spouts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.NonTransactionalSpout;
import io.epochal.spout.OpaqueSpout;
import io.epochal.spout.SpoutKind;
import io.epochal.spout.TransactionalSpout;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The forwarding wrappers (what the testkit's fault injector builds on, formerly tested through the spouts' own
 * fault-injecting spout): every lifecycle call reaches the wrapped spout unchanged, every emission runs through the
 * decorator, which may record it, hand it another collector, replace an opaque position, or fail it.
 */
class ForwardingSpoutsTest {
  static final List<Long> INPUT = LongStream.range(0, 100).boxed().toList();

  static BatchAttempt at(long txid, int attempt) {
    return new BatchAttempt(txid, attempt);
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

  /** Records each decorated attempt and the records of its emission; fails the attempts in {@code failAfter}. */
  static final class Recording implements ForwardingSpouts.EmitDecorator {
    final List<BatchAttempt> attempts = new ArrayList<>();
    final List<Object> records = new ArrayList<>();
    final List<BatchAttempt> failAfter;

    Recording(BatchAttempt... failAfter) {
      this.failAfter = List.of(failAfter);
    }

    @Override
    public <T, R> R aroundEmit(BatchAttempt attempt, Collector<T> out, Function<Collector<T>, R> emission) {
      attempts.add(attempt);
      R result = emission.apply(r -> {
        records.add(r);
        out.emit(r);
      });
      if (failAfter.contains(attempt)) {
        throw new IllegalStateException("failed after emit: " + attempt);
      }
      return result;
    }
  }

  @Test
  void shouldForwardTheTransactionalLifecycleAndRunEachEmissionThroughTheDecorator() {
    ListSpout<Long> list = ListSpout.of("list", INPUT, 10);
    Recording recording = new Recording(at(2, 1));
    TransactionalSpout<Long, Range> spout = new ForwardingSpouts.Transactional<>() {
      @Override
      public TransactionalSpout<Long, Range> wrapped() {
        return list;
      }

      @Override
      public <U, R> R aroundEmit(BatchAttempt attempt, Collector<U> out, Function<Collector<U>, R> emission) {
        return recording.aroundEmit(attempt, out, emission);
      }
    };
    assertEquals("list", spout.name());
    assertSame(Range.codec(), spout.metadataCodec());
    assertEquals(SpoutKind.TRANSACTIONAL, spout.kind());
    Range r1 = spout.nextBatch(1, Optional.empty()).orElseThrow();
    assertEquals(list.nextBatch(1, Optional.empty()), Optional.of(r1));
    Range r2 = spout.nextBatch(2, Optional.of(r1)).orElseThrow();
    List<Long> out = new ArrayList<>();
    spout.emit(at(1, 1), r1, out::add);
    assertEquals(LongStream.range(0, 10).boxed().toList(), out);
    out.clear();
    assertThrows(IllegalStateException.class, () -> spout.emit(at(2, 1), r2, out::add));
    assertEquals(LongStream.range(10, 20).boxed().toList(), out, "the whole batch went out before the failure");
    out.clear();
    spout.emit(at(2, 2), r2, out::add);
    assertEquals(LongStream.range(10, 20).boxed().toList(), out, "the replay emits the same records");
    assertEquals(List.of(at(1, 1), at(2, 1), at(2, 2)), recording.attempts);
    assertEquals(30, recording.records.size());
  }

  @Test
  void shouldForwardTheOpaqueLifecycleAndReturnTheDecoratedPosition() {
    ReCuttingOpaqueSpout<Long> recut = ReCuttingOpaqueSpout.of("recut", INPUT, 2, 5, 7);
    Recording recording = new Recording(at(1, 1));
    OpaqueSpout<Long, Long> spout = new ForwardingSpouts.Opaque<>() {
      @Override
      public OpaqueSpout<Long, Long> wrapped() {
        return recut;
      }

      @Override
      public <U, R> R aroundEmit(BatchAttempt attempt, Collector<U> out, Function<Collector<U>, R> emission) {
        return recording.aroundEmit(attempt, out, emission);
      }
    };
    assertEquals(SpoutKind.OPAQUE, spout.kind());
    assertEquals("recut", spout.name());
    assertSame(recut.metadataCodec(), spout.metadataCodec());
    assertTrue(spout.isReady(1, Optional.empty()));
    assertThrows(IllegalStateException.class, () -> spout.emit(at(1, 1), Optional.empty(), r -> { }));
    List<Long> out = new ArrayList<>();
    Long position = spout.emit(at(1, 2), Optional.empty(), out::add);
    assertEquals(recut.cut(at(1, 2), Optional.empty()).end(), position, "the wrapped spout's position");
    assertEquals(position, out.size());
    assertSame(recut, ((ForwardingSpouts.Opaque<Long, Long>) spout).wrapped());
  }

  /** A transactional spout that declares itself weaker (its replays are not exact): the wrapper must say so too. */
  @Test
  void shouldForwardTheWrappedSpoutsDeclaredKind() {
    TransactionalSpout<Long, Range> weaker = new TransactionalSpout<>() {
      final ListSpout<Long> list = ListSpout.of("weaker", INPUT, 10);

      @Override
      public String name() {
        return list.name();
      }

      @Override
      public SpoutKind kind() {
        return SpoutKind.NON_TRANSACTIONAL;
      }

      @Override
      public io.epochal.codec.Codec<Range> metadataCodec() {
        return list.metadataCodec();
      }

      @Override
      public Optional<Range> nextBatch(long txid, Optional<Range> previous) {
        return list.nextBatch(txid, previous);
      }

      @Override
      public void emit(BatchAttempt attempt, Range metadata, Collector<Long> out) {
        list.emit(attempt, metadata, out);
      }
    };
    ForwardingSpouts.Transactional<Long, Range> wrapper = new ForwardingSpouts.Transactional<>() {
      @Override
      public TransactionalSpout<Long, Range> wrapped() {
        return weaker;
      }

      @Override
      public <T, R> R aroundEmit(BatchAttempt attempt, Collector<T> out, Function<Collector<T>, R> emission) {
        return emission.apply(out);
      }
    };
    assertEquals(SpoutKind.NON_TRANSACTIONAL, wrapper.kind());
  }

  @Test
  void shouldForwardTheNonTransactionalLifecycle() {
    CountingSpout counting = new CountingSpout();
    List<String> seen = new ArrayList<>();
    NonTransactionalSpout<String> spout = new ForwardingSpouts.NonTransactional<>() {
      @Override
      public NonTransactionalSpout<String> wrapped() {
        return counting;
      }

      @Override
      public <U, R> R aroundEmit(BatchAttempt attempt, Collector<U> out, Function<Collector<U>, R> emission) {
        return emission.apply(r -> {
          seen.add(attempt + ":" + r);
          out.emit(r);
        });
      }
    };
    assertEquals(SpoutKind.NON_TRANSACTIONAL, spout.kind());
    assertEquals("counting", spout.name());
    assertTrue(spout.isReady(3));
    assertEquals(counting.isReady(10), spout.isReady(10));
    List<String> out = new ArrayList<>();
    spout.emit(at(1, 1), out::add);
    assertEquals(List.of("n1", "n2"), out);
    assertEquals(List.of(at(1, 1) + ":n1", at(1, 1) + ":n2"), seen);
    spout.success(1);
    spout.close();
    assertEquals(List.of(1L), counting.successes);
    assertTrue(counting.closed);
    assertEquals(counting.metadataCodec().id(), spout.metadataCodec().id());
  }
}
