package io.epochal.errors;

/**
 * The pipeline asks for a delivery guarantee that its spout, state and store cannot deliver together.
 * Thrown by {@code build()}; the message names the spout, the state and the fix.
 */
public final class GuaranteeNotDeliverableException extends EpochalException {
  private static final long serialVersionUID = 1L;

  public GuaranteeNotDeliverableException(String message) {
    super(message);
  }
}
