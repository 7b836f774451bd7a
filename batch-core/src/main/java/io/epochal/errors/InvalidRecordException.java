package io.epochal.errors;

/**
 * A record or key that the pipeline cannot process: a null key, a null record, a null field required by an
 * operation. Never dropped silently; the batch fails with this error and is not retried (retrying cannot help).
 */
public final class InvalidRecordException extends EpochalException {
  private static final long serialVersionUID = 1L;

  public InvalidRecordException(String message) {
    super(message);
  }
}
