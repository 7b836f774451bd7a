package io.epochal.errors;

import io.epochal.api.Stable;
import java.util.OptionalLong;

/**
 * Stored bytes could not be decoded or failed their integrity check. Names the table, the key and (when known) the
 * txid of the cell, also in {@link #context()}. Not retryable: the pipeline stops and nothing is overwritten, so the
 * bytes remain available for inspection.
 *
 * @since 0.1.0
 */
@Stable
public final class StateCorruptedException extends EpochalException {
  private static final long serialVersionUID = 1L;

  /**
   * @param table the table's path
   * @param key the key (as far as it could be decoded)
   * @param txid the cell's txid, or what is known of it (e.g. the pipeline's committed txid, said so); a decimal
   *     number is also recorded as the context's txid
   * @param cause what the decoder or the integrity check found
   */
  public StateCorruptedException(String table, Object key, String txid, Throwable cause) {
    this(table, key, "txid " + txid, parse(txid), cause);
  }

  /**
   * @param table the table's path
   * @param key the key (as far as it could be decoded)
   * @param txidNote what the message says about the txid, e.g. {@code "no txid column; read in epoch 7"}
   * @param txid the txid recorded in {@link #context()}: the cell's, or the batch's that read it
   * @param cause what the decoder or the integrity check found
   */
  public StateCorruptedException(String table, Object key, String txidNote, OptionalLong txid, Throwable cause) {
    super(message(table, key, txidNote, cause), cause, false, context(table, key, txid));
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

  private static OptionalLong parse(String txid) {
    if (txid == null) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Long.parseLong(txid.trim()));
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
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
