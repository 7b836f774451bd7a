package io.epochal.errors;

import io.epochal.api.Stable;

/**
 * The pipeline asks for a delivery guarantee that its spout, state and store cannot deliver together.
 * Thrown by {@code build()}; the message names the spout, the state and the fix.
 *
 * @since 0.1.0
 */
@Stable
public final class GuaranteeNotDeliverableException extends EpochalException {
  private static final long serialVersionUID = 1L;

  /**
   * A refused pairing; not retryable (the pipeline must be built differently).
   *
   * @param message the spout, the state, why they cannot deliver the guarantee together, and the fix
   */
  public GuaranteeNotDeliverableException(String message) {
    super(message);
  }
}
