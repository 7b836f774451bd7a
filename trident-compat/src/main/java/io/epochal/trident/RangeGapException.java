package io.epochal.trident;

import io.epochal.api.Evolving;

/**
 * A guarded opaque spout on Storm emitted a partition's range for a txid that does not start where the range of the
 * previous txid ended: committed, the records between the two would be lost (or counted twice if the range starts
 * before). Storm's opaque partitioned executor does this when its metadata cache holds an emission that never
 * committed (a stale coordinator's batch). The guard refuses the batch (inside Storm's {@code FailedException}); the
 * state never commits it. Not retryable in place: a replay by the same executor starts from the same cache, so the
 * refusal repeats until the executor restarts (its worker) and reads the committed metadata again. Thrown by the
 * spouts that {@link StormStateBuilder#guard} wraps. Immutable.
 *
 * @since 0.2.0
 */
@Evolving
public final class RangeGapException extends GuardRefusalException {
  private static final long serialVersionUID = 1L;
  /** The txid of the partition's previous recorded emission. */
  private final long previousTxid;
  /** The refused range's start metadata, as canonical JSON. */
  private final String start;
  /** Where the previous txid's range ended, as canonical JSON. */
  private final String previousEnd;

  /**
   * Creates the exception (not retryable), with a message naming the spout, the partition, both txids and where the
   * two ranges start and end.
   *
   * @param table the ledger table the emissions are recorded in
   * @param spout the guarded spout's name
   * @param partition the spout partition id
   * @param txid the txid refused
   * @param previousTxid the txid of the partition's previous recorded emission
   * @param start the refused range's start metadata (canonical JSON)
   * @param previousEnd where the previous range ended (canonical JSON)
   */
  public RangeGapException(String table, String spout, String partition, long txid, long previousTxid, String start,
      String previousEnd) {
    super("spout '" + spout + "' emitted partition " + partition + " under txid " + txid + " from " + start
        + ", but the range of txid " + previousTxid + " ended at " + previousEnd + ": the records between them would"
        + " be skipped or repeated; batch " + txid + " is refused", false, table, spout, partition, txid);
    this.previousTxid = previousTxid;
    this.start = start;
    this.previousEnd = previousEnd;
  }

  /** @return the txid of the partition's previous recorded emission */
  public long previousTxid() {
    return previousTxid;
  }

  /** @return the refused range's start metadata as canonical JSON */
  public String start() {
    return start;
  }

  /** @return where the previous txid's range ended, as canonical JSON */
  public String previousEnd() {
    return previousEnd;
  }
}
