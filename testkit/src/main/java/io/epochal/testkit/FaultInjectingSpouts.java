package io.epochal.testkit;

import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.OpaqueSpout;
import io.epochal.spout.TransactionalSpout;
import io.epochal.spouts.ForwardingSpouts;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The spout wrappers of {@link FaultInjector#wrap(TransactionalSpout)} and {@link FaultInjector#wrap(OpaqueSpout)}:
 * record every emission in the injector's timeline and fire {@link FaultPoint#AFTER_EMIT} by the emitted txid;
 * coordinator calls are delegated unchanged. Stateless; the wrappers are thread-safe if the wrapped spouts are.
 */
final class FaultInjectingSpouts {
  private FaultInjectingSpouts() {
  }

  static <T, M> TransactionalSpout<T, M> transactional(FaultInjector injector, TransactionalSpout<T, M> spout) {
    return new ForwardingSpouts.Transactional<>() {
      @Override
      public TransactionalSpout<T, M> wrapped() {
        return spout;
      }

      @Override
      public <U, R> R aroundEmit(BatchAttempt attempt, Collector<U> out, Function<Collector<U>, R> emission) {
        return emitThrough(injector, attempt, out, emission);
      }

      @Override
      public String toString() {
        return "FaultInjecting(" + spout + ")";
      }
    };
  }

  static <T, M> OpaqueSpout<T, M> opaque(FaultInjector injector, OpaqueSpout<T, M> spout) {
    return new ForwardingSpouts.Opaque<>() {
      @Override
      public OpaqueSpout<T, M> wrapped() {
        return spout;
      }

      @Override
      public <U, R> R aroundEmit(BatchAttempt attempt, Collector<U> out, Function<Collector<U>, R> emission) {
        return emitThrough(injector, attempt, out, emission);
      }

      @Override
      public String toString() {
        return "FaultInjecting(" + spout + ")";
      }
    };
  }

  private static <T, R> R emitThrough(FaultInjector injector, BatchAttempt attempt, Collector<T> out,
      Function<Collector<T>, R> emission) {
    List<T> records = new ArrayList<>();
    R result = emission.apply(r -> {
      out.emit(r);
      records.add(r);
    });
    injector.timeline().emitted(attempt, records);
    Fault f = injector.take(FaultPoint.AFTER_EMIT, attempt.txid());
    if (f != null) {
      throw injector.raise(f, attempt.txid());
    }
    return result;
  }
}
