package io.epochal.trident;

import io.epochal.api.Evolving;

/**
 * A guarded spout on Storm was asked to emit a txid more than the batches in flight below the highest txid it already
 * emitted: only a stale master batch coordinator sends that (a frozen worker resumed after Storm reassigned its
 * executors: its coordinator, with the same task id as the new one, drives the live executors with its old txid).
 * Storm's opaque partitioned executor would cache the metadata of that emission and continue the next real batch
 * from it, skipping a range; the guard refuses the batch (inside Storm's {@code FailedException}) before the
 * executor caches anything from it. Not retryable: the stale coordinator's retries are refused too, until Storm
 * halts its worker. Thrown by the spouts that {@link StormStateBuilder#guard} wraps. Immutable.
 *
 * @since 0.2.0
 */
@Evolving
public final class StaleBatchException extends GuardRefusalException {
  private static final long serialVersionUID = 1L;
  /** The highest txid the partition had emitted when the stale txid arrived. */
  private final long highestTxid;
  /** How many batches in flight the check allowed below {@link #highestTxid}. */
  private final long inFlight;

  /**
   * Creates the exception (not retryable), with a message naming the spout, the partition and the txids.
   *
   * @param table the ledger table the emissions are recorded in
   * @param spout the guarded spout's name
   * @param partition the spout partition id
   * @param txid the txid refused
   * @param highestTxid the highest txid the partition emitted
   * @param inFlight the batches in flight the check allowed below it
   */
  public StaleBatchException(String table, String spout, String partition, long txid, long highestTxid,
      long inFlight) {
    super("spout '" + spout + "' was asked to emit partition " + partition + " under txid " + txid
        + ", but txid " + highestTxid + " was already emitted and at most " + inFlight + " batches are in flight: "
        + "a stale coordinator (a resumed frozen worker whose executors Storm reassigned) drives this executor; batch "
        + txid + " is refused so that it cannot make the next batch skip a range", false,
        table, spout, partition, txid);
    this.highestTxid = highestTxid;
    this.inFlight = inFlight;
  }

  /** @return the highest txid the partition had emitted */
  public long highestTxid() {
    return highestTxid;
  }

  /** @return the batches in flight the check allowed below the highest txid */
  public long inFlight() {
    return inFlight;
  }
}
