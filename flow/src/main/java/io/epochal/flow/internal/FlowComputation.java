package io.epochal.flow.internal;

import io.epochal.cache.StateCache;
import io.epochal.errors.StagingUnavailableException;
import io.epochal.flow.KeyedProcessor;
import io.epochal.state.StateContext;
import io.epochal.state.StateKind;
import io.epochal.store.table.EpochBuffer;
import io.epochal.store.table.TableBackedStateFactory;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A declared Flow computation, and the factory of its per-partition states. Construction runs the spec pass: one
 * processor instance's {@code init} against a declaring context, which records the declared states and claims the
 * external tables. Immutable after construction; thread-safe. Internal.
 *
 * @param <K> the key type
 * @param <T> the record type
 * @param <R> the output type
 */
public final class FlowComputation<K, T, R> implements TableBackedStateFactory<FlowPartition<K, T, R>> {
  private final String name;
  private final Function<? super T, ? extends K> keyFn;
  private final Supplier<? extends KeyedProcessor<K, T, R>> processors;
  private final StateCache cache;
  private final List<InitContext.Declared> declared;
  private final boolean hasTimers;
  private final io.epochal.flow.TimerClock clock;
  /** The computation's watermark; null without a watermark strategy. */
  private final ComputationWatermark watermark;
  /** The input delay; null without one. */
  private final io.epochal.flow.DelaySpec<T> delay;

  /**
   * Declares a computation without watermark, on the system processing-time clock
   * ({@link io.epochal.flow.TimerClock#system()}), and runs its spec pass.
   *
   * @param name the computation's name, unique among the pipeline's states; part of its internal tables' paths
   * @param keyFn the key of a record (the computation's {@code groupBy} key)
   * @param processors makes a processor instance: one now for the spec pass, then one per partition
   * @param cache the shared cache the computation's states keep their committed rows in
   * @throws IllegalArgumentException if {@code name} is blank or holds {@code /}, or two states share a name
   * @throws io.epochal.errors.TableClaimedTwiceException if an external table is claimed by another writer
   */
  public FlowComputation(String name, Function<? super T, ? extends K> keyFn,
      Supplier<? extends KeyedProcessor<K, T, R>> processors, StateCache cache) {
    this(name, keyFn, processors, cache, io.epochal.flow.TimerClock.system());
  }

  /**
   * Like the other constructor, with the processing-time clock of the computation's timers.
   *
   * @param name the computation's name, unique among the pipeline's states; part of its internal tables' paths
   * @param keyFn the key of a record (the computation's {@code groupBy} key)
   * @param processors makes a processor instance: one now for the spec pass, then one per partition
   * @param cache the shared cache the computation's states keep their committed rows in
   * @param clock the processing-time clock of the timers and of the watermark's idleness timeout
   * @throws IllegalArgumentException if {@code name} is blank or holds {@code /}, or two states share a name
   */
  public FlowComputation(String name, Function<? super T, ? extends K> keyFn,
      Supplier<? extends KeyedProcessor<K, T, R>> processors, StateCache cache, io.epochal.flow.TimerClock clock) {
    this(name, keyFn, processors, cache, clock, null);
  }

  /**
   * Like the other constructors, with the computation's watermark strategy (null for none).
   *
   * @param name the computation's name, unique among the pipeline's states; part of its internal tables' paths
   * @param keyFn the key of a record (the computation's {@code groupBy} key)
   * @param processors makes a processor instance: one now for the spec pass, then one per partition
   * @param cache the shared cache the computation's states keep their committed rows in
   * @param clock the processing-time clock of the timers and of the watermark's idleness timeout
   * @param watermarks the computation's watermark strategy, or null for none
   * @throws IllegalArgumentException if {@code name} is blank or holds {@code /}, or two states share a name
   */
  public FlowComputation(String name, Function<? super T, ? extends K> keyFn,
      Supplier<? extends KeyedProcessor<K, T, R>> processors, StateCache cache, io.epochal.flow.TimerClock clock,
      io.epochal.flow.WatermarkStrategy<? super T> watermarks) {
    this(name, keyFn, processors, cache, clock, watermarks, null);
  }

  /**
   * Like the other constructors, with the computation's input delay (null for none; needs a watermark strategy).
   *
   * @param name the computation's name, unique among the pipeline's states; part of its internal tables' paths
   * @param keyFn the key of a record (the computation's {@code groupBy} key)
   * @param processors makes a processor instance: one now for the spec pass, then one per partition
   * @param cache the shared cache the computation's states keep their committed rows in
   * @param clock the processing-time clock of the timers and of the watermark's idleness timeout
   * @param watermarks the computation's watermark strategy, or null for none
   * @param delay the input delay, or null for none
   * @throws IllegalArgumentException if {@code name} is blank or holds {@code /}, two states share a name, or a delay
   *     is given without a watermark strategy
   */
  public FlowComputation(String name, Function<? super T, ? extends K> keyFn,
      Supplier<? extends KeyedProcessor<K, T, R>> processors, StateCache cache, io.epochal.flow.TimerClock clock,
      io.epochal.flow.WatermarkStrategy<? super T> watermarks, io.epochal.flow.DelaySpec<T> delay) {
    if (delay != null && watermarks == null) {
      throw new IllegalArgumentException("the input delay of computation '" + name + "' needs a watermark strategy");
    }
    this.delay = delay;
    this.clock = Objects.requireNonNull(clock, "clock");
    this.watermark = watermarks == null ? null : new ComputationWatermark(watermarks, clock);
    Objects.requireNonNull(name, "name");
    if (name.isBlank() || name.contains("/")) {
      throw new IllegalArgumentException("computation name '" + name + "' must be non-blank and hold no '/'");
    }
    this.name = name;
    this.keyFn = Objects.requireNonNull(keyFn, "keyFn");
    this.processors = Objects.requireNonNull(processors, "processor");
    this.cache = Objects.requireNonNull(cache, "cache");
    KeyedProcessor<K, T, R> probe = newProcessor();
    InitContext<K> spec = InitContext.declaring(this);
    probe.init(spec);
    this.declared = spec.finish();
    this.hasTimers = !spec.timers().isEmpty()
        || spec.states().stream().anyMatch(st -> st.spec().ttl().isPresent());
  }

  io.epochal.flow.TimerClock clock() {
    return clock;
  }

  /**
   * Every partition runs every batch when the computation declares timers or a state with a TTL (any partition may
   * have due timers or expirations) or has a watermark (which may advance in any batch).
   */
  @Override
  public boolean takesEveryBatch() {
    return hasTimers || watermark != null;
  }

  /** @return the computation's watermark, null without a watermark strategy */
  ComputationWatermark watermark() {
    return watermark;
  }

  /**
   * @return the node feeding the computation's watermark, to declare on its input just before the keyed-process
   *     node; empty without a watermark strategy
   */
  public Optional<WatermarkObserver> watermarkObserver() {
    return watermark == null ? Optional.empty() : Optional.of(new WatermarkObserver(this, watermark));
  }

  KeyedProcessor<K, T, R> newProcessor() {
    return Objects.requireNonNull(processors.get(), "processor supplier of computation '" + name + "' returned null");
  }

  String name() {
    return name;
  }

  Function<? super T, ? extends K> keyFn() {
    return keyFn;
  }

  /** @return the input delay, null without one */
  io.epochal.flow.DelaySpec<T> delay() {
    return delay;
  }

  StateCache cache() {
    return cache;
  }

  List<InitContext.Declared> declared() {
    return declared;
  }

  /**
   * @throws io.epochal.errors.TableClaimedTwiceException if a table is claimed by another writer
   * @throws io.epochal.errors.SchemaMismatchException if a table has another schema
   * @throws IllegalStateException if an external table does not exist, or the partition's {@code init} declares other
   *     states than the spec pass
   * @throws StagingUnavailableException if the pipeline's checkpoint store offers no {@link EpochBuffer} (it is not a
   *     table checkpoint store)
   * @throws IllegalStateException if the computation has a watermark or timers and the staging does not commit with
   *     the epoch protocol (they must commit with their epoch)
   * @throws io.epochal.flow.TimerPartitionsChangedException if pending timers were written with another partition
   *     count than the pipeline's
   */
  @Override
  public FlowPartition<K, T, R> makeState(StateContext context) {
    EpochBuffer staging = context.staging(EpochBuffer.class).orElseThrow(() -> new StagingUnavailableException(
        context.pipeline(), "of Flow computation '" + name + "'", EpochBuffer.class.getSimpleName(),
        "not a table checkpoint store"));
    if (watermark != null) {
      if (!staging.atomic()) {
        throw new IllegalStateException("the watermark of computation '" + name + "' needs the epoch protocol (a "
            + "store with atomic multi-table commit), but pipeline '" + context.pipeline() + "' commits per key on "
            + staging.store().describe());
      }
      String path = Watermarks.path(staging.tablePrefix(), context.pipeline(), name);
      staging.claim(path, "computation '" + name + "' watermark of pipeline '" + context.pipeline() + "'");
      watermark.open(staging.store(), path);
    }
    return new FlowPartition<>(this, context, staging);
  }

  /**
   * Non-transactional: Flow rows carry no txid. The guarantee check makes it exactly-once where the staging commits
   * atomically with the epoch (nothing of a failed attempt is visible, so a replay starts from the committed state)
   * and refuses it under the per-key protocol (a replay would apply twice) unless {@code AT_LEAST_ONCE} is chosen.
   */
  @Override
  public StateKind kind() {
    return StateKind.NON_TRANSACTIONAL;
  }

  @Override
  public String describe() {
    StringBuilder sb = new StringBuilder("Flow computation '").append(name).append("' (");
    for (int i = 0; i < declared.size(); i++) {
      sb.append(i == 0 ? "" : ", ").append(declared.get(i));
    }
    return sb.append(')').toString();
  }

  @Override
  public String toString() {
    return describe();
  }
}
