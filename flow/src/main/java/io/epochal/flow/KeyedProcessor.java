package io.epochal.flow;

import io.epochal.api.Evolving;
import java.util.List;

/**
 * A keyed computation in the style of YTsaurus Flow's process functions: it declares named state clients once, in
 * {@link #init}, and then handles each key of each batch in {@link #process}, reading and writing the key's states
 * through accessors.
 *
 * <p><b>Lifecycle.</b> The pipeline calls the processor supplier once when the computation is declared (a spec pass:
 * {@code init} runs against a declaring context that records the states, so that the pipeline can validate table
 * ownership before it is built; the instance is then discarded), and once per partition when the pipeline is built.
 * Each partition's instance gets {@code init} once, then {@code process} for every key of every batch routed to the
 * partition. Every instance must declare the same states in the same order.
 *
 * <p><b>Per key, per batch.</b> {@code process(key, records, out)} is called once per key that has records in the
 * batch, with that key's records in emission order. Keys of one partition are processed one after the other on one
 * thread, in the order of their first record in the batch; different partitions run in parallel. Every key of the
 * batch was loaded, for every state client, in one bulk lookup per state before the first {@code process} call.
 *
 * <p><b>Replays.</b> A failed batch is processed again under the same txid, from the state as committed before it:
 * nothing a failed attempt wrote is visible, and its emitted records are discarded. {@code process} must therefore
 * not have side effects outside its states and its emitter.
 *
 * <p><b>Thread-safety.</b> An instance is used by one thread at a time; fields may hold state clients, never
 * accessors (an accessor is valid only in its epoch).
 *
 * @param <K> the key type (see {@link io.epochal.flow.Flow#process} for the supported key types)
 * @param <T> the input record type
 * @param <R> the output record type
 * @since 0.1.0
 */
@Evolving
public interface KeyedProcessor<K, T, R> {

  /**
   * Declares the processor's state clients, and keeps them in fields.
   *
   * @param context declares states and tells where the processor runs
   */
  void init(ProcessorContext<K> context);

  /**
   * Handles the records of one key in one batch.
   *
   * @param key the key, never null
   * @param records the key's records of this batch in emission order, never empty, unmodifiable
   * @param out receives the output records
   */
  void process(K key, List<T> records, Emitter<R> out);

  /**
   * Handles one fired timer of one of the processor's {@link TimerSpec}s ({@link ProcessorContext#timers}). Called
   * after the batch's {@link #process} calls, per partition in trigger order (per spec; per key, a key's timers fire
   * in trigger order). The timer's deletion, the handler's state changes, the timers it adds or deletes and its
   * outputs commit together in the batch's epoch; if the attempt fails, none of it is visible and the timer stays
   * pending, to fire again in the replay. Outputs are attached to {@code key}.
   *
   * <p>The default throws {@link IllegalStateException}: a processor that declares timers must override it.
   *
   * @param key the timer's key
   * @param timer the fired timer
   * @param out receives the output records
   * @since 0.5.0
   */
  default void onTimer(K key, Timer timer, Emitter<R> out) {
    throw new IllegalStateException("timer " + timer + " of key '" + key + "' fired, but " + getClass().getName()
        + " does not override KeyedProcessor.onTimer");
  }

  /**
   * Handles the late records of one key in one batch, under {@link WatermarkStrategy.LatePolicy#SIDE_OUTPUT}: those
   * whose timestamp is below the watermark in force when the batch started. Called after {@link #process} for the
   * key's records that are on time (if any). What it emits joins the computation's output stream, attached to
   * {@code key}: tag it to route it downstream (e.g. with {@code filter}).
   *
   * <p>The default throws {@link IllegalStateException}: a processor with that late policy must override it.
   *
   * @param key the key
   * @param records the key's late records of this batch in emission order, never empty, unmodifiable
   * @param out receives the output records
   * @since 0.5.0
   */
  default void processLate(K key, List<T> records, Emitter<R> out) {
    throw new IllegalStateException(records.size() + " late record(s) of key '" + key + "' arrived under late policy "
        + "SIDE_OUTPUT, but " + getClass().getName() + " does not override KeyedProcessor.processLate");
  }
}
