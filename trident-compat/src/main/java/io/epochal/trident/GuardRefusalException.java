package io.epochal.trident;

import io.epochal.api.Evolving;
import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;

/**
 * A batch that a spout wrapped by {@link StormStateBuilder#guard} refused to emit, for one partition of the spout: a
 * range emitted under a second txid ({@link RangeEmittedTwiceException}), a stale coordinator's txid
 * ({@link StaleBatchException}), or a range that does not continue the previous txid's ({@link RangeGapException}).
 * Storm receives it inside its {@code FailedException} and fails the batch; the refused batch sends no tuple, so no
 * state counts it. Whether a replay can succeed is {@link #retryable()}. Immutable.
 *
 * @since 0.2.0
 */
@Evolving
public abstract sealed class GuardRefusalException extends EpochalException
    permits RangeEmittedTwiceException, StaleBatchException, RangeGapException {
  private static final long serialVersionUID = 1L;
  /** The name of the guarded spout that refused the batch. */
  private final String spout;
  /** The id of the spout partition whose emission was refused. */
  private final String partition;
  /** The txid of the refused batch. */
  private final long txid;

  GuardRefusalException(String message, boolean retryable, String table, String spout, String partition,
      long txid) {
    super(message, null, retryable, ErrorContext.of(table, spout + "/" + partition).withTxid(txid));
    this.spout = spout;
    this.partition = partition;
    this.txid = txid;
  }

  /** @return the guarded spout's name */
  public String spout() {
    return spout;
  }

  /** @return the spout partition id */
  public String partition() {
    return partition;
  }

  /** @return the refused txid */
  public long txid() {
    return txid;
  }
}
