package io.epochal.spouts;

import io.epochal.pipeline.Sleeper;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.NonTransactionalSpout;
import io.epochal.spout.OpaqueSpout;
import io.epochal.spout.Spout;
import io.epochal.spout.TransactionalSpout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Wrappers that inject faults into the emitter part of any spout kind, following a {@link FaultPlan}, and count
 * how often each {@link FaultPoint} fired so that tests can show the failure points were reached. Obtain one with
 * {@link #wrap(TransactionalSpout, FaultPlan)}, {@link #wrap(OpaqueSpout, FaultPlan)} or
 * {@link #wrap(NonTransactionalSpout, FaultPlan)}; the result is a spout of the same kind.
 *
 * <p>Per emit call, in this order: {@link FaultPoint#BEFORE_EMIT} throws {@link InjectedFault} before the wrapped
 * spout is called; {@link FaultPoint#SLOW_EMIT} waits the plan's delay through its {@link Sleeper} (an interrupt
 * ends the wait early and keeps the thread's interrupt flag; emission continues); {@link FaultPoint#MID_EMIT}
 * throws from the collector after the planned number of records; {@link FaultPoint#AFTER_EMIT} throws after the
 * wrapped spout returned (its returned position, if any, is discarded). Everything else (name, kind, codec,
 * {@code nextBatch}/{@code isReady}, {@code success}, {@code close}) is delegated unchanged.
 *
 * <p><b>Replay promise:</b> that of the wrapped spout, for every attempt that does not fail: a failed attempt may
 * have emitted some or all of its records before the fault, which the engine must discard.
 *
 * <p><b>Thread-safety:</b> the counters are thread-safe; the wrapper is as thread-safe as the wrapped spout and the
 * plan's predicates and sleeper.
 *
 * <p><b>Nulls:</b> null arguments throw {@link NullPointerException}.
 *
 * @since 0.1.0
 */
public abstract sealed class FaultInjectingSpout implements ForwardingSpouts.EmitDecorator
    permits FaultInjectingSpout.Transactional, FaultInjectingSpout.Opaque, FaultInjectingSpout.NonTransactional {

  private final String name;
  private final FaultPlan plan;
  private final AtomicLong emitCalls = new AtomicLong();
  private final Map<FaultPoint, List<BatchAttempt>> firings = new EnumMap<>(FaultPoint.class); // guarded by itself

  private FaultInjectingSpout(Spout<?, ?> wrapped, FaultPlan plan) {
    this.name = Objects.requireNonNull(wrapped, "spout").name();
    this.plan = Objects.requireNonNull(plan, "plan");
    for (FaultPoint point : FaultPoint.values()) {
      firings.put(point, new ArrayList<>());
    }
  }

  /**
   * Wraps a transactional spout.
   *
   * @throws NullPointerException if an argument is {@code null}
   */
  public static <T, M> Transactional<T, M> wrap(TransactionalSpout<T, M> spout, FaultPlan plan) {
    return new Transactional<>(spout, plan);
  }

  /**
   * Wraps an opaque spout.
   *
   * @throws NullPointerException if an argument is {@code null}
   */
  public static <T, M> Opaque<T, M> wrap(OpaqueSpout<T, M> spout, FaultPlan plan) {
    return new Opaque<>(spout, plan);
  }

  /**
   * Wraps a non-transactional spout.
   *
   * @throws NullPointerException if an argument is {@code null}
   */
  public static <T> NonTransactional<T> wrap(NonTransactionalSpout<T> spout, FaultPlan plan) {
    return new NonTransactional<>(spout, plan);
  }

  /** @return the plan this wrapper follows */
  public FaultPlan plan() {
    return plan;
  }

  /** @return the wrapped spout */
  public abstract Spout<?, ?> wrapped();

  /** @return how many emit calls this wrapper received, failed or not */
  public long emitCalls() {
    return emitCalls.get();
  }

  /** @return how often {@code point} fired */
  public int fired(FaultPoint point) {
    synchronized (firings) {
      return firings.get(Objects.requireNonNull(point, "point")).size();
    }
  }

  /** @return the attempts at which {@code point} fired, in firing order (a copy) */
  public List<BatchAttempt> firings(FaultPoint point) {
    synchronized (firings) {
      return List.copyOf(firings.get(Objects.requireNonNull(point, "point")));
    }
  }

  /** @return the total number of faults thrown (every point but {@link FaultPoint#SLOW_EMIT}) */
  public int faultsThrown() {
    return fired(FaultPoint.BEFORE_EMIT) + fired(FaultPoint.MID_EMIT) + fired(FaultPoint.AFTER_EMIT);
  }

  private void record(FaultPoint point, BatchAttempt attempt) {
    synchronized (firings) {
      firings.get(point).add(attempt);
    }
  }

  private InjectedFault fault(FaultPoint point, BatchAttempt attempt) {
    record(point, attempt);
    return new InjectedFault(name, point, attempt);
  }

  /**
   * Runs one emission of the wrapped spout with the plan's faults around it (every emit call of this wrapper comes
   * here).
   *
   * @throws InjectedFault when the plan says so
   */
  @Override
  public final <T, R> R aroundEmit(BatchAttempt attempt, Collector<T> out, Function<Collector<T>, R> emission) {
    Objects.requireNonNull(attempt, "attempt");
    Objects.requireNonNull(out, "out");
    emitCalls.incrementAndGet();
    if (plan.throwsBeforeEmit(attempt)) {
      throw fault(FaultPoint.BEFORE_EMIT, attempt);
    }
    if (plan.delaysEmit(attempt)) {
      record(FaultPoint.SLOW_EMIT, attempt);
      delay(plan.delay());
    }
    Collector<T> collector = out;
    if (plan.throwsMidEmit(attempt)) {
      long limit = plan.midEmitAfterRecords();
      long[] passed = {0};
      collector = r -> {
        if (passed[0] == limit) {
          throw fault(FaultPoint.MID_EMIT, attempt);
        }
        passed[0]++;
        out.emit(r);
      };
    }
    R result = emission.apply(collector);
    if (plan.throwsAfterEmit(attempt)) {
      throw fault(FaultPoint.AFTER_EMIT, attempt);
    }
    return result;
  }

  private void delay(Duration duration) {
    try {
      plan.sleeper().sleep(duration);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "FaultInjectingSpout(" + wrapped() + ")";
  }

  /**
   * A fault-injecting {@link TransactionalSpout}: {@code nextBatch} is delegated untouched, so a replay gets the same
   * metadata and (unless it fails) the same records. Thread-safety and nulls as the enclosing class.
   *
   * @param <T> the record type
   * @param <M> the batch metadata type
   */
  public static final class Transactional<T, M> extends FaultInjectingSpout
      implements ForwardingSpouts.Transactional<T, M> {
    private final TransactionalSpout<T, M> spout;

    private Transactional(TransactionalSpout<T, M> spout, FaultPlan plan) {
      super(spout, plan);
      this.spout = spout;
    }

    @Override
    public TransactionalSpout<T, M> wrapped() {
      return spout;
    }
  }

  /**
   * A fault-injecting {@link OpaqueSpout}: a failed attempt's returned position is discarded, so the engine must
   * replay from the committed one. Thread-safety and nulls as the enclosing class.
   *
   * @param <T> the record type
   * @param <M> the position type
   */
  public static final class Opaque<T, M> extends FaultInjectingSpout implements ForwardingSpouts.Opaque<T, M> {
    private final OpaqueSpout<T, M> spout;

    private Opaque(OpaqueSpout<T, M> spout, FaultPlan plan) {
      super(spout, plan);
      this.spout = spout;
    }

    @Override
    public OpaqueSpout<T, M> wrapped() {
      return spout;
    }
  }

  /**
   * A fault-injecting {@link NonTransactionalSpout}: no replay promise, like the wrapped spout. Thread-safety and
   * nulls as the enclosing class.
   *
   * @param <T> the record type
   */
  public static final class NonTransactional<T> extends FaultInjectingSpout
      implements ForwardingSpouts.NonTransactional<T> {
    private final NonTransactionalSpout<T> spout;

    private NonTransactional(NonTransactionalSpout<T> spout, FaultPlan plan) {
      super(spout, plan);
      this.spout = spout;
    }

    @Override
    public NonTransactionalSpout<T> wrapped() {
      return spout;
    }
  }
}
