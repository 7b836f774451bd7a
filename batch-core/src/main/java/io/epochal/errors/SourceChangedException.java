package io.epochal.errors;

import io.epochal.api.Stable;

/**
 * The input behind recorded spout metadata changed (a file truncated or rewritten under a recorded offset, a
 * partition that disappeared). Replaying would emit different tuples under a txid that may already be applied,
 * so the pipeline stops instead of skipping or re-reading silently.
 *
 * @since 0.1.0
 */
@Stable
public final class SourceChangedException extends EpochalException {
  private static final long serialVersionUID = 1L;

  /**
   * A changed input; not retryable.
   *
   * @param message the spout, the partition or position concerned, and how the input changed
   */
  public SourceChangedException(String message) {
    super(message);
  }
}
