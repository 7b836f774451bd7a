package io.epochal.testkit;

import io.epochal.pipeline.Stream;
import java.util.List;
import java.util.Map;

/**
 * A check target's one run: declares the pipeline under test on the kit's source for each incarnation, and reads the
 * state to compare after the run. One per run, used from the run's thread: not thread-safe.
 *
 * @param <T> the record type of the input
 * @param <K> the key type of the compared state
 * @param <V> the value type of the compared state
 */
interface ReplaySession<T, K, V> {
  void declare(Stream<T> source, ReplayContext context);

  Map<K, V> read(List<T> input, int partitions, long lastTxid);

  default String restartNote() {
    return "rebuilds the pipeline over the same world";
  }

  void close();

  /**
   * What a {@link ReplayCheck} checks: opens a session per run.
   *
   * @param <T> the record type of the input
   * @param <K> the key type of the compared state
   * @param <V> the value type of the compared state
   */
  @FunctionalInterface
  interface Target<T, K, V> {
    ReplaySession<T, K, V> open(FaultInjector faults, String pipeline);
  }
}
