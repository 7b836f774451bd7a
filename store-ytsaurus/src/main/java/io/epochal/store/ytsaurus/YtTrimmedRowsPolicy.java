package io.epochal.store.ytsaurus;

import io.epochal.api.Evolving;

/**
 * What a queue spout does when rows it must read were trimmed from the queue before the pipeline committed them.
 *
 * @since 0.4.0
 */
@Evolving
public enum YtTrimmedRowsPolicy {
  /** Stop with {@link YtQueueTrimmedException} (the default; keeps exactly-once). */
  FAIL,
  /**
   * Log the trimmed offsets and continue at the first row still there. The spout then declares itself
   * {@link io.epochal.spout.SpoutKind#NON_TRANSACTIONAL}: an {@code EXACTLY_ONCE} pipeline refuses to build with it;
   * opt in with a weaker guarantee.
   */
  SKIP
}
