package io.epochal.errors;

import io.epochal.api.Stable;

/**
 * A stored cell carries a txid higher than the batch being applied: the state is ahead of the coordinator
 * (coordinator metadata lost or reset, or a second writer). Epochal never guesses in this case; the pipeline stops.
 * Storm's {@code TransactionalMap} silently re-bases such a cell; Epochal refuses for every map kind.
 *
 * @since 0.1.0
 */
@Stable
public final class StateAheadException extends EpochalException {
  private static final long serialVersionUID = 1L;
  /** The path of the state table holding the cell. */
  private final String table;
  /** The cell's key, as text. */
  private final String key;
  /** The txid the stored cell carries. */
  private final long storedTxid;
  /** The txid of the batch being applied, lower than {@link #storedTxid}. */
  private final long batchTxid;

  /**
   * A cell found ahead of the batch being applied; never retryable.
   *
   * @param table the path of the state table holding the cell
   * @param key the cell's key (kept as {@code String.valueOf(key)})
   * @param storedTxid the txid the stored cell carries
   * @param batchTxid the txid of the batch being applied, lower than {@code storedTxid}
   */
  public StateAheadException(String table, Object key, long storedTxid, long batchTxid) {
    super("State table '" + table + "' key '" + key + "' is at txid " + storedTxid
        + " but the batch being applied is txid " + batchTxid
        + ": the state is ahead of the coordinator (lost or reset coordinator metadata, or another writer)."
        + " Refusing to guess; restore the coordinator metadata or point the pipeline at a fresh state.",
        null, false, ErrorContext.of(table, key).withTxid(storedTxid));
    this.table = table;
    this.key = String.valueOf(key);
    this.storedTxid = storedTxid;
    this.batchTxid = batchTxid;
  }

  /** @return the path of the state table holding the cell */
  public String table() { return table; }

  /** @return the cell's key, as text */
  public String key() { return key; }

  /** @return the txid the stored cell carries */
  public long storedTxid() { return storedTxid; }

  /** @return the txid of the batch that was being applied */
  public long batchTxid() { return batchTxid; }
}
