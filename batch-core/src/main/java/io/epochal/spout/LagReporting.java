package io.epochal.spout;

import io.epochal.api.Stable;
import java.util.Map;

/**
 * A spout that can say, per source partition, how far its committed position is behind the end of its source: what
 * the {@code epochal.source.lag} gauges of the metrics module ({@code EpochalMetrics.bindLag}) read. The Kafka spouts
 * and the YTsaurus queue spouts implement it; a functional interface, so a lambda can forward to the spout a
 * rebuilt pipeline runs now.
 *
 * <p>Implementations must allow {@link #sourceLag()} from any thread while the engine runs the spout on its
 * coordinator thread (use a client of their own or a thread-safe one, never the coordinator's state unguarded), bound
 * it by a timeout, and throw rather than guess when the source cannot be read: a caller shows a failed read as
 * unknown, never as 0.
 *
 * @since 0.5.0
 */
@FunctionalInterface
@Stable
public interface LagReporting {

  /**
   * The end and committed positions of every source partition the spout knows now, by the spout's partition names
   * (e.g. {@code topic-0} for Kafka, the tablet index for a YTsaurus queue). A partition without a committed batch
   * reports the position the spout would start it from. May block up to the implementation's timeout.
   *
   * @return the positions, by partition name; not {@code null}
   * @throws RuntimeException if the source cannot be read now (unreachable, closed, timed out)
   */
  Map<String, PartitionLag> sourceLag();
}
