package io.epochal.errors;

/**
 * Base of every exception Epochal throws for a detected protocol, data or configuration problem.
 * Unchecked, because none of them can be handled by retrying the same call blindly.
 */
public class EpochalException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public EpochalException(String message) {
    super(message);
  }

  public EpochalException(String message, Throwable cause) {
    super(message, cause);
  }
}
