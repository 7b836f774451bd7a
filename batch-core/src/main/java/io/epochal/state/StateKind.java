package io.epochal.state;

import io.epochal.api.Stable;

/**
 * How a state tolerates replayed batches. Together with the spout kind and the store's atomicity it decides the
 * guarantee a pipeline delivers (see the pairing table in README.md).
 *
 * @since 0.1.0
 */
@Stable
public enum StateKind {
  /** Applies every update it is given: a replayed batch is applied twice. */
  NON_TRANSACTIONAL,
  /** Stores {@code (value, txid)}: skips a batch it already applied. Needs the same records on every replay. */
  TRANSACTIONAL,
  /** Stores {@code (curr, prev, txid)}: recomputes a replayed batch from {@code prev}, even if its records changed. */
  OPAQUE,
  /** Never written by the pipeline (queries only). */
  READ_ONLY
}
