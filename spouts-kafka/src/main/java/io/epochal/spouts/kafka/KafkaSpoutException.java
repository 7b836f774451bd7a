package io.epochal.spouts.kafka;

import io.epochal.api.Evolving;
import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * A Kafka spout could not cut or emit a batch. Names the spout and, as far as known, the topic, partition, offset
 * and txid (also in {@link #context()}: key {@code topic-partition}, or {@code topic-partition@offset}).
 *
 * <p>Subtypes say what happened: {@link KafkaDeserializationException} (non-retryable),
 * {@link KafkaOffsetOutOfRangeException} (an offset retention deleted: non-retryable; past the log end: retryable),
 * {@link KafkaTopicNotFoundException} and {@link KafkaUnavailableException} (retryable: the engine replays the batch
 * with backoff and stops with {@link io.epochal.errors.BatchFailedException} when its retry policy is exhausted).
 * This class itself is used for other client failures, retryable unless no retry can fix them (authentication,
 * authorization, invalid configuration, an interrupted thread).
 *
 * <p>Immutable; safe to pass between threads.
 *
 * @since 0.1.0
 */
@Evolving
public sealed class KafkaSpoutException extends EpochalException
    permits KafkaDeserializationException, KafkaOffsetOutOfRangeException, KafkaTopicNotFoundException,
    KafkaUnavailableException {
  private static final long serialVersionUID = 1L;

  /** The spout's name. */
  private final String spout;
  /** The topic concerned, {@code null} if none. */
  private final String topic;
  /** The partition concerned, {@code -1} if none. */
  private final int partition;
  /** The offset concerned, {@code -1} if none. */
  private final long offset;

  /**
   * Makes the error; the context key is built from the topic, partition and offset as far as they are given.
   *
   * @param message what happened and what to do
   * @param cause the client's failure, or {@code null}
   * @param retryable whether replaying the batch can succeed
   * @param spout the spout's name
   * @param topic the topic, or {@code null} if none applies
   * @param partition the partition, or {@code -1} if none applies
   * @param offset the offset, or {@code -1} if none applies
   * @param txid the batch's txid, or {@code 0} if unknown
   */
  public KafkaSpoutException(String message, Throwable cause, boolean retryable, String spout, String topic,
      int partition, long offset, long txid) {
    super(message, cause, retryable, context(topic, partition, offset, txid));
    this.spout = spout;
    this.topic = topic;
    this.partition = partition;
    this.offset = offset;
  }

  private static ErrorContext context(String topic, int partition, long offset, long txid) {
    String key = topic == null ? null
        : partition < 0 ? topic
        : offset < 0 ? topic + "-" + partition
        : topic + "-" + partition + "@" + offset;
    ErrorContext c = ErrorContext.of(null, key);
    return txid > 0 ? c.withTxid(txid) : c;
  }

  /**
   * The spout that failed.
   *
   * @return the spout's name
   */
  public String spout() {
    return spout;
  }

  /**
   * The topic the failure concerns.
   *
   * @return the topic, empty if the failure concerns none
   */
  public Optional<String> topic() {
    return Optional.ofNullable(topic);
  }

  /**
   * The partition the failure concerns.
   *
   * @return the partition, empty if the failure concerns none
   */
  public OptionalInt partition() {
    return partition < 0 ? OptionalInt.empty() : OptionalInt.of(partition);
  }

  /**
   * The offset the failure concerns.
   *
   * @return the offset, empty if the failure concerns none
   */
  public OptionalLong offset() {
    return offset < 0 ? OptionalLong.empty() : OptionalLong.of(offset);
  }
}
