package io.epochal.testkit;

import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import io.epochal.store.CheckpointStore;
import io.epochal.store.InMemoryCheckpointStore;

/**
 * The stores of one run of a {@link ReplayCheck.MapTarget}: fault-wrapped states for each incarnation, and an
 * unwrapped reader of the final state. One per run, used from the run's thread: not thread-safe unless an
 * implementation says so.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
interface ReplayWorld<K, V> {
  /** A factory of fault-wrapped states for one incarnation (may set the context's checkpoint store). */
  StateFactory<? extends MapState<K, V>> states(ReplayContext context);

  /** An unwrapped factory over the same stores, to read the final state. */
  StateFactory<? extends MapState<K, V>> reader();

  /** The checkpoint store the states of {@link #reader()} are made against (after {@code reader()}). */
  default CheckpointStore readerCheckpoints() {
    return new InMemoryCheckpointStore();
  }

  /** What a restart does to the stores, for the timeline. */
  default String restartNote() {
    return "rebuilds the pipeline over the same stores (the store object survives the crash)";
  }

  default void close() {
  }

  /**
   * Opens one run's world.
   *
   * @param <K> the key type
   * @param <V> the value type
   */
  @FunctionalInterface
  interface Factory<K, V> {
    ReplayWorld<K, V> open(FaultInjector faults, String pipeline);
  }
}
