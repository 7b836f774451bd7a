package io.epochal.pipeline;

import io.epochal.api.Stable;
import io.epochal.spout.BatchAttempt;
import io.epochal.state.State;
import java.util.List;
import java.util.function.Consumer;

/**
 * A keyed processor over a state ({@link GroupedStream#process}): for every partition with records in a batch, inside
 * the state's {@code begin(epoch)..end()}, {@link #begin} once with the partition's keys, then {@link #process} once
 * per key with that key's records (in emission order). The keys are those {@code groupBy} computed: the key function
 * runs once per record. Every record emitted through {@code out} is attached to the key being processed.
 *
 * @param <S> the state type
 * @param <K> the key type
 * @param <T> the input record type
 * @param <R> the output record type
 * @since 0.3.0
 */
@Stable
public interface KeyedProcessFunction<S extends State, K, T, R> {

  /**
   * Called once per partition and batch attempt before any {@link #process}, e.g. to load the keys in bulk.
   *
   * @param state the partition's state, inside its {@code begin(epoch)..end()}
   * @param batch the batch attempt being applied
   * @param keys the partition's keys with records in the batch, each once
   */
  default void begin(S state, BatchAttempt batch, List<K> keys) {
  }

  /**
   * Processes one key's records of the batch; emits zero or more records for that key.
   *
   * @param state the partition's state, inside its {@code begin(epoch)..end()}
   * @param batch the batch attempt being applied
   * @param key the key being processed
   * @param records the key's records in the batch, in emission order, at least one
   * @param out takes the emitted records; a null record is an {@link io.epochal.errors.InvalidRecordException}
   */
  void process(S state, BatchAttempt batch, K key, List<T> records, Consumer<? super R> out);

  /**
   * Called once per partition and batch attempt after the last {@link #process} (also for a partition without
   * records, when the state's factory {@linkplain io.epochal.state.StateFactory#takesEveryBatch() takes every
   * batch}), e.g. to fire timers. Each record emitted through {@code out} is attached to the key given with it.
   * The default does nothing.
   *
   * @param state the partition's state, inside its {@code begin(epoch)..end()}
   * @param batch the batch attempt being applied
   * @param out takes (key, record) pairs; a null key or record is an {@link io.epochal.errors.InvalidRecordException}
   * @since 0.5.0
   */
  default void finish(S state, BatchAttempt batch, java.util.function.BiConsumer<? super K, ? super R> out) {
  }
}
