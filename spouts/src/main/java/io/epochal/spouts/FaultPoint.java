package io.epochal.spouts;

/**
 * Where a {@link FaultInjectingSpout} injects a fault into one emit call, in the order they are checked. An enum:
 * immutable and thread-safe.
 *
 * @since 0.1.0
 */
public enum FaultPoint {
  /** Throw {@link InjectedFault} before the wrapped spout emits anything. */
  BEFORE_EMIT,
  /** Delay the emission through the plan's {@link io.epochal.pipeline.Sleeper} (a slow source); no exception. */
  SLOW_EMIT,
  /** Throw {@link InjectedFault} from the collector once the wrapped spout has emitted a given number of records. */
  MID_EMIT,
  /** Throw {@link InjectedFault} after the wrapped spout emitted the whole batch (and returned its position). */
  AFTER_EMIT
}
