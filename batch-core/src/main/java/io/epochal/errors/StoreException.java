package io.epochal.errors;

/**
 * A store could not be read or written (I/O error, unreachable service, schema or format mismatch). The
 * message names the store and, where known, the table, key and txid. Wraps the store's native exception.
 */
public class StoreException extends EpochalException {
  private static final long serialVersionUID = 1L;

  public StoreException(String message) {
    super(message);
  }

  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
