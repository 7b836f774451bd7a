package io.epochal.flow;

import io.epochal.api.Evolving;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * How a Flow computation derives its event-time watermark from its input records
 * ({@link Flow#process(io.epochal.pipeline.Stream, String, java.util.function.Function, java.util.function.Supplier,
 * FlowStates, WatermarkStrategy)}): a timestamp assigner, an out-of-orderness bound, the source partition of a record
 * (e.g. {@code r -> r.kafkaPartition()}; one partition by default), an idleness timeout and a {@link LatePolicy}.
 *
 * <p><b>The watermark.</b> After each batch, per source partition, the largest timestamp seen minus the bound; the
 * computation's watermark is the minimum of these over the source partitions that are not idle, and never goes back.
 * A watermark {@code W} says that every record with a timestamp below {@code W} has arrived: a record whose timestamp
 * is below the watermark in force when its batch starts is <em>late</em>, and an {@link TimeDomain#EVENT_TIME} timer
 * with trigger {@code t} fires in the first batch after whose records {@code W >= t}. {@link Long#MIN_VALUE} means
 * no watermark yet (no record seen).
 *
 * <p><b>Idleness.</b> With an {@link Builder#idleTimeout idle timeout}, a source partition that sent nothing for that
 * long, in processing time (the {@link TimerClock} of the {@link FlowStates}, read once per batch), stops holding the
 * watermark back until it sends again. Without one, a partition that stops sending holds the watermark forever. A
 * source partition that never sent a record does not hold the watermark back.
 *
 * <p>The functions are called on the pipeline's worker threads, several times per record; they must be pure and
 * thread-safe. Immutable and thread-safe.
 *
 * @param <T> the record type
 * @since 0.5.0
 */
@Evolving
public final class WatermarkStrategy<T> {

  /**
   * What happens to a late record (timestamp below the watermark in force when its batch starts). Under every policy
   * late records are counted, the count committed with the epoch ({@link FlowStates#eventTimeProgress}).
   */
  public enum LatePolicy {
    /** Late records are processed like the others. */
    PROCESS,
    /** Late records are dropped before {@link KeyedProcessor#process}. */
    DROP,
    /**
     * Late records go to {@link KeyedProcessor#processLate} instead of {@code process}: what it emits joins the
     * computation's output stream (tag it to route it elsewhere downstream).
     */
    SIDE_OUTPUT
  }

  private final ToLongFunction<? super T> timestamps;
  private final long bound;
  private final ToIntFunction<? super T> sourcePartitions;
  private final Duration idleTimeout;
  private final LatePolicy latePolicy;

  private WatermarkStrategy(Builder<T> b) {
    this.timestamps = b.timestamps;
    this.bound = b.bound;
    this.sourcePartitions = b.sourcePartitions;
    this.idleTimeout = b.idleTimeout;
    this.latePolicy = b.latePolicy;
  }

  /**
   * Starts a strategy whose records may arrive up to {@code bound} later than a record with a larger timestamp.
   *
   * @param bound the out-of-orderness bound, at least 0 (millisecond precision)
   * @param timestamps the event time of a record, in milliseconds
   * @param <T> the record type
   * @return a builder with one source partition, no idleness timeout and {@link LatePolicy#PROCESS}
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code bound} is negative
   */
  public static <T> Builder<T> boundedOutOfOrderness(Duration bound, ToLongFunction<? super T> timestamps) {
    return new Builder<>(bound, timestamps);
  }

  /**
   * Applies the timestamp assigner.
   *
   * @param record an input record of the computation
   * @return the event time of {@code record}, in milliseconds
   */
  public long timestampOf(T record) {
    return timestamps.applyAsLong(record);
  }

  /**
   * Applies the source-partition function.
   *
   * @param record an input record of the computation
   * @return the source partition of {@code record}, whose largest timestamp holds the watermark back
   */
  public int sourcePartitionOf(T record) {
    return sourcePartitions.applyAsInt(record);
  }

  /** @return the out-of-orderness bound, in milliseconds */
  public long boundMillis() {
    return bound;
  }

  /** @return the idleness timeout, empty if partitions never count as idle */
  public Optional<Duration> idleTimeout() {
    return Optional.ofNullable(idleTimeout);
  }

  /** @return what happens to late records */
  public LatePolicy latePolicy() {
    return latePolicy;
  }

  @Override
  public String toString() {
    return "WatermarkStrategy[bound " + bound + " ms, idle " + (idleTimeout == null ? "never" : idleTimeout)
        + ", late " + latePolicy + "]";
  }

  /**
   * Builds a {@link WatermarkStrategy}. Not thread-safe.
   *
   * @param <T> the record type
   */
  public static final class Builder<T> {
    private final ToLongFunction<? super T> timestamps;
    private final long bound;
    private ToIntFunction<? super T> sourcePartitions = r -> 0;
    private Duration idleTimeout;
    private LatePolicy latePolicy = LatePolicy.PROCESS;

    private Builder(Duration bound, ToLongFunction<? super T> timestamps) {
      Objects.requireNonNull(bound, "bound");
      if (bound.isNegative()) {
        throw new IllegalArgumentException("out-of-orderness bound must be >= 0, was " + bound);
      }
      this.bound = bound.toMillis();
      this.timestamps = Objects.requireNonNull(timestamps, "timestamps");
    }

    /**
     * The source partition of a record (default: every record is of partition 0).
     *
     * @param partitionOf the source partition (e.g. the Kafka partition) a record was read from; any {@code int}, the
     *     watermark being the minimum over the partitions seen
     * @return this builder
     * @throws NullPointerException if {@code partitionOf} is null
     */
    public Builder<T> sourcePartition(ToIntFunction<? super T> partitionOf) {
      this.sourcePartitions = Objects.requireNonNull(partitionOf, "partitionOf");
      return this;
    }

    /**
     * After {@code timeout} of processing time without records, a source partition stops holding the watermark back.
     *
     * @param timeout how long, on the {@link TimerClock}, a source partition may send nothing before it counts as idle;
     *     positive
     * @return this builder
     * @throws NullPointerException if {@code timeout} is null
     * @throws IllegalArgumentException if {@code timeout} is not positive
     */
    public Builder<T> idleTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("idle timeout must be positive, was " + timeout);
      }
      this.idleTimeout = timeout;
      return this;
    }

    /**
     * What happens to late records (default {@link LatePolicy#PROCESS}).
     *
     * @param policy process, drop or side-output records whose timestamp is below the watermark in force
     * @return this builder
     * @throws NullPointerException if {@code policy} is null
     */
    public Builder<T> latePolicy(LatePolicy policy) {
      this.latePolicy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /** @return the strategy; the builder is unchanged */
    public WatermarkStrategy<T> build() {
      return new WatermarkStrategy<>(this);
    }
  }
}
