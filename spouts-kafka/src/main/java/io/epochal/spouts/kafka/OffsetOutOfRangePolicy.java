package io.epochal.spouts.kafka;

import io.epochal.api.Evolving;

/**
 * What a Kafka spout does when an offset it must read is no longer (or not yet) in the partition's log; see
 * {@link KafkaOffsetOutOfRangeException}.
 *
 * <p>Only {@link #FAIL} keeps the exactly-once promise: with a reset policy the spout declares itself
 * {@link io.epochal.spout.SpoutKind#NON_TRANSACTIONAL} (records may be lost), so a pipeline building it must opt in to
 * {@code AT_LEAST_ONCE} or {@code AT_MOST_ONCE} explicitly; an {@code EXACTLY_ONCE} pipeline refuses it at build
 * time.
 *
 * @since 0.1.0
 */
@Evolving
public enum OffsetOutOfRangePolicy {
  /** Stop with {@link KafkaOffsetOutOfRangeException} (the default). */
  FAIL,
  /**
   * Continue from the log start: records deleted before they were committed are lost (logged as a warning with the
   * offsets skipped). Past the log end (a re-created topic), start over at its beginning.
   */
  RESET_TO_EARLIEST,
  /** Continue from the log end: everything not yet committed is skipped (logged as a warning). */
  RESET_TO_LATEST
}
