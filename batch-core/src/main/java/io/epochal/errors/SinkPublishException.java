package io.epochal.errors;

import io.epochal.api.Stable;
import java.util.Objects;

/**
 * A sink failed to publish the outputs of a committed batch. The batch stays committed and its outputs stay in the
 * checkpoint's outbox: the pipeline stops (it never commits a further batch over unpublished outputs), and a new
 * pipeline built over the same stores publishes them first, exactly once. {@link #retryable()} says whether the
 * failure itself looked transient (an unreachable broker) or not (the sink refused the records).
 *
 * <p>Immutable once thrown.
 *
 * @since 0.4.0
 */
@Stable
public final class SinkPublishException extends EpochalException {
  private static final long serialVersionUID = 1L;

  /** The sink's name in its pipeline. */
  private final String sink;

  /**
   * A committed batch whose outputs a sink failed to publish; retryable as {@code cause} is.
   *
   * @param pipeline the pipeline
   * @param sink the sink's name in the pipeline
   * @param txid the committed batch whose outputs were not published
   * @param cause the failure of the sink
   */
  public SinkPublishException(String pipeline, String sink, long txid, Throwable cause) {
    super("Pipeline '" + pipeline + "': sink '" + sink + "' failed to publish the outputs of committed txid " + txid
        + " (" + cause + "). The batch stays committed with its outputs in the outbox; the pipeline stops. Build a"
        + " new pipeline over the same stores to publish them (exactly once) and go on.", cause,
        EpochalException.isRetryable(cause), ErrorContext.NONE.withPipeline(pipeline).withTxid(txid));
    this.sink = Objects.requireNonNull(sink, "sink");
  }

  /** @return the sink's name in its pipeline */
  public String sink() {
    return sink;
  }
}
