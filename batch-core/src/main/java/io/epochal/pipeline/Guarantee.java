package io.epochal.pipeline;

import io.epochal.api.Stable;

/**
 * The delivery guarantee of a pipeline's state updates. {@link #EXACTLY_ONCE} is the default; the other two are
 * explicit opt-ins for pipelines whose spout, state or store cannot deliver it.
 *
 * @since 0.1.0
 */
@Stable
public enum Guarantee {
  /** Every record affects committed state exactly once, whatever fails and however often. */
  EXACTLY_ONCE,
  /** No record is lost, but a replayed batch may be counted twice. */
  AT_LEAST_ONCE,
  /** No record is counted twice, but a failed batch may be lost. */
  AT_MOST_ONCE
}
