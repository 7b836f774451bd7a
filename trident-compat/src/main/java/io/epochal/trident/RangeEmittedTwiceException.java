package io.epochal.trident;

import io.epochal.api.Evolving;

/**
 * A partitioned opaque spout on Storm emitted one range of a partition (the same start metadata, with records) under
 * two live txids: STORM-1557, Storm's coordinator starting txids out of order with more than one batch in flight,
 * which would count the range twice. Thrown (inside Storm's {@code FailedException}, so Storm fails the batch and
 * replays it and every later one) by the spouts that {@link StormStateBuilder#guard} wraps. Retryable: the replay
 * emits the range once. Immutable.
 *
 * @since 0.1.0
 */
@Evolving
public final class RangeEmittedTwiceException extends GuardRefusalException {
  private static final long serialVersionUID = 1L;
  /** The other live txid that already emitted the range. */
  private final long firstTxid;
  /** The range's start metadata, as canonical JSON. */
  private final String start;

  /**
   * Creates the exception (retryable), with a message naming the spout, the partition, the range and both txids.
   *
   * @param table the ledger table the emissions are recorded in
   * @param spout the guarded spout's name
   * @param partition the spout partition id
   * @param txid the txid refused
   * @param firstTxid the other live txid that emitted the same range
   * @param start the range's start metadata (canonical JSON)
   */
  public RangeEmittedTwiceException(String table, String spout, String partition, long txid, long firstTxid,
      String start) {
    super("spout '" + spout + "' emitted partition " + partition + " from " + start + " under txid " + txid
        + " although txid " + firstTxid + " already emitted that range (STORM-1557: Storm started the txids out of "
        + "order with several batches in flight); batch " + txid + " is failed so that Storm replays it", true,
        table, spout, partition, txid);
    this.firstTxid = firstTxid;
    this.start = start;
  }

  /** @return the other live txid that emitted the range */
  public long firstTxid() {
    return firstTxid;
  }

  /** @return the range's start metadata as canonical JSON */
  public String start() {
    return start;
  }
}
