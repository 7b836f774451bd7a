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
  /** The txid of the batch that kept failing. */
  private final long txid;
  /** How many attempts were made at the batch, the last one included. */
  private final int attempts;

  /**
   * A batch that failed on every attempt the retry policy allowed; never retryable.
   *
   * @param pipeline the pipeline's name, for the message and the context
   * @param txid the txid of the batch that kept failing
   * @param attempts how many attempts were made, the last one included (at least 1)
   * @param cause the last attempt's failure
   */
  public BatchFailedException(String pipeline, long txid, int attempts, Throwable cause) {
    super("Pipeline '" + pipeline + "' stopped: batch txid " + txid + " failed " + attempts
        + " attempt(s); last failure: " + cause, cause, false,
        ErrorContext.NONE.withPipeline(pipeline).withTxid(txid));
    this.txid = txid;
    this.attempts = attempts;
  }

  /** @return the txid of the batch that kept failing (nothing of it, nor of any later batch, is committed) */
  public long txid() { return txid; }

  /** @return how many attempts were made at the batch, the last one included */
  public int attempts() { return attempts; }
}
