package io.epochal.sinks.kafka;

import io.epochal.api.Evolving;
import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;

/**
 * The exactly-once Kafka sink could not read back or publish the outputs of a batch. Names the pipeline, the sink,
 * the engine partition, the txid (0 if none applies) and the transactional id of the partition's producer; the
 * pipeline, the txid and the transactional id (as key) are also in {@link #context()}.
 *
 * <p>Subtypes say what happened: {@link KafkaSinkFencedException} (another producer with the same transactional id
 * took over: not retryable), {@link KafkaSinkUnavailableException} (the cluster did not answer within the sink's
 * publish timeout: retryable), {@link KafkaSinkMarkerAheadException} (Kafka shows a txid published that the
 * pipeline's checkpoint has not committed: not retryable). This class itself is used for other failures, retryable
 * or not as constructed (a record the broker refuses, an authorization failure, an interrupted thread).
 *
 * <p>Immutable; safe to pass between threads.
 *
 * @since 0.4.0
 */
@Evolving
public sealed class KafkaSinkException extends EpochalException
    permits KafkaSinkFencedException, KafkaSinkUnavailableException, KafkaSinkMarkerAheadException {
  private static final long serialVersionUID = 1L;

  /** The pipeline's name. */
  private final String pipeline;
  /** The sink's name in the pipeline. */
  private final String sink;
  /** The engine partition. */
  private final int partition;
  /** The batch's txid, 0 if none applies. */
  private final long txid;
  /** The transactional id of the partition's producer. */
  private final String transactionalId;

  /**
   * Makes the error; the context holds the pipeline, the transactional id as key and the txid if positive.
   *
   * @param message what happened and what to do
   * @param cause the client's failure, or {@code null}
   * @param retryable whether a new attempt (a new pipeline over the same stores) can succeed
   * @param pipeline the pipeline's name
   * @param sink the sink's name in the pipeline
   * @param partition the engine partition
   * @param txid the batch's txid, or 0 if none applies
   * @param transactionalId the transactional id of the partition's producer
   */
  public KafkaSinkException(String message, Throwable cause, boolean retryable, String pipeline, String sink,
      int partition, long txid, String transactionalId) {
    super(message, cause, retryable, context(pipeline, transactionalId, txid));
    this.pipeline = pipeline;
    this.sink = sink;
    this.partition = partition;
    this.txid = txid;
    this.transactionalId = transactionalId;
  }

  private static ErrorContext context(String pipeline, String transactionalId, long txid) {
    ErrorContext c = ErrorContext.of(null, transactionalId).withPipeline(pipeline);
    return txid > 0 ? c.withTxid(txid) : c;
  }

  /**
   * The pipeline whose sink failed.
   *
   * @return the pipeline's name
   */
  public String pipeline() {
    return pipeline;
  }

  /**
   * The sink that failed.
   *
   * @return the sink's name in the pipeline
   */
  public String sink() {
    return sink;
  }

  /**
   * The engine partition whose publication failed.
   *
   * @return the engine partition
   */
  public int partition() {
    return partition;
  }

  /**
   * The batch being read back or published.
   *
   * @return the batch's txid, 0 if none applies
   */
  public long txid() {
    return txid;
  }

  /**
   * The transactional id of the failing partition's producer (also the name of its marker group).
   *
   * @return the transactional id, {@code prefix-partition}
   */
  public String transactionalId() {
    return transactionalId;
  }
}
