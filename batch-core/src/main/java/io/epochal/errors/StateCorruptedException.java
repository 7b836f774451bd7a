package io.epochal.errors;

import java.util.OptionalLong;

/**
 * Stored bytes could not be decoded or failed their integrity check. Names the table, the key and (when known) the
 * txid of the cell, also in {@link #context()}. Not retryable: the pipeline stops and nothing is overwritten, so the
 * bytes remain available for inspection.
 */
public final class StateCorruptedException extends EpochalException {
  private static final long serialVersionUID = 1L;

  /**
   * @param table the table's path
   * @param key the key (as far as it could be decoded)
   * @param txid the cell's txid, or what is known of it (e.g. the pipeline's committed txid, said so)
   * @param cause what the decoder or the integrity check found
   */
  public StateCorruptedException(String table, Object key, String txid, Throwable cause) {
    super(message(table, key, "txid " + txid, cause), cause, false, context(table, key, OptionalLong.empty()));
  }

  /**
   * @param table the table's path
   * @param key the key (as far as it could be decoded)
   * @param txid the cell's txid, if known
   * @param cause what the decoder or the integrity check found
   */
  public StateCorruptedException(String table, Object key, OptionalLong txid, Throwable cause) {
    super(message(table, key, txid.isPresent() ? "txid " + txid.getAsLong() : "txid not readable", cause), cause,
        false, context(table, key, txid));
  }

  private static ErrorContext context(String table, Object key, OptionalLong txid) {
    ErrorContext c = ErrorContext.of(table, key);
    return txid.isPresent() ? c.withTxid(txid.getAsLong()) : c;
  }

  private static String message(String table, Object key, String txid, Throwable cause) {
    return "State table '" + table + "' key '" + key + "' (" + txid + ") holds bytes that cannot be decoded: "
        + (cause == null ? "unknown format" : cause.getMessage())
        + ". The pipeline stops; nothing was overwritten.";
  }
}
