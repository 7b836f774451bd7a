package io.epochal.errors;

import io.epochal.api.Stable;

/**
 * The writer's lease was taken over by another worker: this writer is fenced off. Its commit failed and changed
 * nothing. A fenced worker must stop; retrying with the same lease can never succeed.
 *
 * @since 0.1.0
 */
@Stable
public final class LeaseLostException extends EpochalException {
  private static final long serialVersionUID = 1L;

  /**
   * A fenced-off writer; not retryable.
   *
   * @param message whose lease was taken over, by whom, and which commit was refused
   */
  public LeaseLostException(String message) {
    super(message);
  }
}
