package io.epochal.errors;

/**
 * Stored bytes could not be decoded. Names the table, the key and (when known) the txid of the cell.
 * The pipeline stops and nothing is overwritten, so the bytes remain available for inspection.
 */
public final class StateCorruptedException extends EpochalException {
  private static final long serialVersionUID = 1L;

  public StateCorruptedException(String table, Object key, String txid, Throwable cause) {
    super("State table '" + table + "' key '" + key + "' (txid " + txid + ") holds bytes that cannot be decoded: "
        + (cause == null ? "unknown format" : cause.getMessage())
        + ". The pipeline stops; nothing was overwritten.", cause);
  }
}
