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
  private final String table;
  private final String key;
  private final long storedTxid;
  private final long batchTxid;

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

  public String table() { return table; }

  public String key() { return key; }

  public long storedTxid() { return storedTxid; }

  public long batchTxid() { return batchTxid; }
}
