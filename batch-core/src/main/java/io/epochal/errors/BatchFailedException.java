package io.epochal.errors;

import io.epochal.api.Stable;

/**
 * A batch kept failing after the retry policy was exhausted. The pipeline stopped; nothing of the batch is
 * committed and no later batch was committed either. The cause is the last attempt's failure.
 *
 * @since 0.1.0
 */
@Stable
public final class BatchFailedException extends EpochalException {
  private static final long serialVersionUID = 1L;
  private final long txid;
  private final int attempts;

  public BatchFailedException(String pipeline, long txid, int attempts, Throwable cause) {
    super("Pipeline '" + pipeline + "' stopped: batch txid " + txid + " failed " + attempts
        + " attempt(s); last failure: " + cause, cause, false,
        ErrorContext.NONE.withPipeline(pipeline).withTxid(txid));
    this.txid = txid;
    this.attempts = attempts;
  }

  public long txid() { return txid; }

  public int attempts() { return attempts; }
}
