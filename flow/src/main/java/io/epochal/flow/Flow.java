package io.epochal.flow;

import io.epochal.api.Evolving;
import io.epochal.flow.internal.FlowComputation;
import io.epochal.flow.internal.FlowPartition;
import io.epochal.flow.internal.WatermarkObserver;
import io.epochal.pipeline.KeyedProcessFunction;
import io.epochal.pipeline.Stream;
import io.epochal.spout.BatchAttempt;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Entry point of the Flow-style API: declares a {@link KeyedProcessor} computation on a stream of a pipeline.
 *
 * <pre>{@code
 * TableCheckpointStore checkpoints = TableCheckpointStore.on(TableStores.inMemory());
 * FlowStates states = FlowStates.create();   // the pipeline's checkpoint store: a TableCheckpointStore
 * PipelineBuilder builder = Pipeline.newBuilder("ads").checkpointStore(checkpoints);
 * Stream<Event> events = builder.source(spout);
 * Stream<String> out = Flow.process(events, "banner-stats", Event::bannerId, BannerStats::new, states);
 * }</pre>
 *
 * <p>How it runs: one keyed-process node ({@code groupBy(keyFn).process(..)}): the records are grouped by
 * {@code keyFn} (run once per record, and once more when a delayed input releases it) into the pipeline's
 * partitions (contiguous ranges of {@code farm_hash(key)}, {@link io.epochal.pipeline.Partitioner}); in the commit
 * phase of every batch, each partition with records begins the engine's epoch, loads every key of its records in one
 * bulk lookup per state (cache hits excluded), calls {@link KeyedProcessor#process} once per key, and at the end
 * writes the changed states into the epoch's staging, committed with the checkpoint. The emitted records form the
 * returned stream, in the same batch, each attached to the key it was emitted for.
 * The computation is a state of the pipeline named {@code name}, so {@code name} must be unique among the pipeline's
 * states.
 *
 * <p>Supported key types: those of {@code groupBy} ({@link String}, integral numbers, {@link Boolean},
 * {@link Double}, {@link io.epochal.pipeline.Bytes}, a {@link List} of those; a {@code byte[]} has no value equality
 * and is refused); each state's {@link io.epochal.store.table.KeyCodec} maps the key to the table's key columns.
 *
 * <p>Stateless and thread-safe: static methods only.
 *
 * @since 0.1.0
 */
@Evolving
public final class Flow {
  private Flow() {
  }

  /**
   * Declares a keyed computation on {@code input}. Calls {@code processor} once now to read the states its
   * {@code init} declares (and claims their external tables), then once per partition when the pipeline is built.
   *
   * @param input the records to process
   * @param name the computation's name, unique among the pipeline's states; part of its internal tables' paths
   * @param keyFn the key of a record; never null
   * @param processor makes a processor instance (one per partition)
   * @param states where the states live
   * @param <K> the key type
   * @param <T> the record type
   * @param <R> the output record type
   * @return the stream of emitted records
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code name} is blank or holds {@code /}, or the processor declares two states
   *     with one name
   * @throws io.epochal.errors.TableClaimedTwiceException if a state claims a table another writer claimed
   */
  public static <K, T, R> Stream<R> process(Stream<T> input, String name, Function<? super T, ? extends K> keyFn,
      Supplier<? extends KeyedProcessor<K, T, R>> processor, FlowStates states) {
    return declare(input, name, keyFn, processor, states, null, null);
  }

  /**
   * Like {@link #process(Stream, String, Function, Supplier, FlowStates)}, for a computation with an event-time
   * watermark (see {@link WatermarkStrategy}): its {@link TimeDomain#EVENT_TIME} timers fire when the watermark passes
   * their trigger, its processors read it ({@link ProcessorContext#currentWatermark}) and its late records follow the
   * strategy's late policy. The watermark is kept in the internal table {@code <pipeline>/<name>/.watermark}, claimed
   * like a state's, and committed with every batch's epoch; it needs the epoch protocol. The pipeline gains a state
   * named {@code <name>/watermark} (the node that observes the records' timestamps before the computation).
   *
   * @param input the records to process
   * @param name the computation's name, unique among the pipeline's states; part of its internal tables' paths
   * @param keyFn the key of a record; never null
   * @param processor makes a processor instance (one per partition)
   * @param states where the states live
   * @param watermarks assigns the records' event times and derives the computation's watermark from them
   * @param <K> the key type
   * @param <T> the record type
   * @param <R> the output record type
   * @return the stream of emitted records
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException as the other overload
   * @throws IllegalStateException if the checkpoint store does not commit with the epoch protocol
   * @since 0.5.0
   */
  public static <K, T, R> Stream<R> process(Stream<T> input, String name, Function<? super T, ? extends K> keyFn,
      Supplier<? extends KeyedProcessor<K, T, R>> processor, FlowStates states,
      WatermarkStrategy<? super T> watermarks) {
    return declare(input, name, keyFn, processor, states, Objects.requireNonNull(watermarks, "watermarks"), null);
  }

  /**
   * Like {@link #process(Stream, String, Function, Supplier, FlowStates, WatermarkStrategy)}, reading the input with
   * an event-time delay (see {@link DelaySpec}): each record (after the late policy sorted it out: late records are
   * delayed under {@code PROCESS}, dropped under {@code DROP}, handed to {@code processLate} at once under
   * {@code SIDE_OUTPUT}) is buffered in the internal tables {@code <pipeline>/<name>/.delayed.timers},
   * {@code .delayed.timer-slots} and {@code .delayed.timer-tree}, claimed like a state's, and reaches
   * {@link KeyedProcessor#process} in the first batch after whose records the watermark is at least its timestamp
   * plus the delay: after that batch's records, before its timers fire, with the watermark after the batch's records
   * ({@link ProcessorContext#currentWatermark}). The records' timestamps move the watermark when they arrive, not
   * when they are released. Buffering and release commit with the epochs, like timers.
   *
   * @param input the records to process
   * @param name the computation's name, unique among the pipeline's states; part of its internal tables' paths
   * @param keyFn the key of a record; never null
   * @param processor makes a processor instance (one per partition)
   * @param states where the states live
   * @param watermarks assigns the records' event times and derives the computation's watermark, which releases the
   *     delayed records
   * @param delay the delay and the codec of the buffered records
   * @param <K> the key type
   * @param <T> the record type
   * @param <R> the output record type
   * @return the stream of emitted records
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException as the other overloads
   * @since 0.5.0
   */
  public static <K, T, R> Stream<R> process(Stream<T> input, String name, Function<? super T, ? extends K> keyFn,
      Supplier<? extends KeyedProcessor<K, T, R>> processor, FlowStates states,
      WatermarkStrategy<? super T> watermarks, DelaySpec<T> delay) {
    return declare(input, name, keyFn, processor, states, Objects.requireNonNull(watermarks, "watermarks"),
        Objects.requireNonNull(delay, "delay"));
  }

  private static <K, T, R> Stream<R> declare(Stream<T> input, String name, Function<? super T, ? extends K> keyFn,
      Supplier<? extends KeyedProcessor<K, T, R>> processor, FlowStates states,
      WatermarkStrategy<? super T> watermarks, DelaySpec<T> delay) {
    Objects.requireNonNull(input, "input");
    Objects.requireNonNull(states, "states");
    FlowComputation<K, T, R> computation = new FlowComputation<>(name, keyFn, processor, states.cache(),
        states.clock(), watermarks, delay);
    computation.watermarkObserver().ifPresent(observer -> input.partitionPersist(
        WatermarkObserver.stateName(name), observer, WatermarkObserver.updater()));
    return input.<K>groupBy(keyFn).process(name, computation, new KeyedProcessFunction<FlowPartition<K, T, R>, K, T,
        R>() {
      @Override
      public void begin(FlowPartition<K, T, R> state, BatchAttempt batch, List<K> keys) {
        state.load(batch, keys);
      }

      @Override
      public void process(FlowPartition<K, T, R> state, BatchAttempt batch, K key, List<T> records,
          Consumer<? super R> out) {
        state.process(batch, key, records, out);
      }

      @Override
      public void finish(FlowPartition<K, T, R> state, BatchAttempt batch, BiConsumer<? super K, ? super R> out) {
        state.finish(batch, out);
      }
    }).toStream();
  }
}
