package io.epochal.spouts.kafka;

import io.epochal.api.Evolving;
import io.epochal.spout.OpaqueSpout;
import io.epochal.spout.PartitionedMetadata;
import io.epochal.spout.TransactionalSpout;
import io.epochal.spouts.kafka.internal.OpaqueKafkaSpout;
import io.epochal.spouts.kafka.internal.RecordDecoder;
import io.epochal.spouts.kafka.internal.TransactionalKafkaSpout;
import java.util.Objects;

/**
 * Spouts over Kafka topics, one spout partition per Kafka partition (named {@code topic-partition}), with
 * {@link OffsetRange}s as per-partition metadata. The offsets are committed in the epoch: a batch's ranges are part
 * of its checkpoint, which the engine commits with the state in one transaction on stores with the epoch protocol.
 *
 * <p><b>Transactional</b> ({@link #transactional}): batch {@code txid}'s range per partition is fixed before emission
 * (from where the partition's previous range ended to its end offset now, capped by records and bytes), recorded
 * as pending, and every replay emits exactly the records with offsets in that range. Exactly-once with both
 * txid-carrying maps on either protocol.
 *
 * <p><b>Opaque</b> ({@link #opaque}): each emission continues from where the previous batch's range ended; a
 * replayed txid may read further. Exactly-once with the epoch protocol.
 *
 * <p>Both: {@code read_committed} by default (aborted records are never emitted; a range may end at the last stable
 * offset), new partitions of the topics are discovered at the configured interval, records are deserialized in the
 * emitter with the spout's own deserializers, and every blocking call is bounded by the API timeout. Failures are
 * {@link KafkaSpoutException}s (see there for which are retryable). With an {@link OffsetOutOfRangePolicy} other than
 * FAIL the spout declares itself {@link io.epochal.spout.SpoutKind#NON_TRANSACTIONAL}: it may lose records, so an
 * {@code EXACTLY_ONCE} pipeline refuses to build.
 *
 * <p><b>Lag.</b> Every spout here also implements {@link io.epochal.spout.LagReporting}: per partition, the end offset
 * now and the offset the last committed batch ends at (for {@code EpochalMetrics.bindLag} of the metrics module).
 * It reads them through an admin client of its own, within the API timeout (at most 10 s), and is the one method
 * safe to call from another thread while the engine runs the spout.
 *
 * <p>Each spout owns one Kafka consumer, created at its first batch and closed by {@code close()}. Not thread-safe
 * otherwise: the engine calls a spout from one thread at a time.
 *
 * @since 0.1.0
 */
@Evolving
public final class KafkaSpouts {
  private KafkaSpouts() {
  }

  /**
   * A partitioned transactional spout emitting {@link KafkaRecord}s; a record that cannot be deserialized stops the
   * pipeline with {@link KafkaDeserializationException}.
   *
   * @param config the settings
   * @param <K> the key type
   * @param <V> the value type
   * @return a new spout
   */
  public static <K, V> TransactionalSpout<KafkaRecord<K, V>, PartitionedMetadata<OffsetRange>> transactional(
      KafkaSpoutConfig<K, V> config) {
    Objects.requireNonNull(config, "config");
    return new TransactionalKafkaSpout<>(config, RecordDecoder.strict(config));
  }

  /**
   * A partitioned opaque spout emitting {@link KafkaRecord}s; a record that cannot be deserialized stops the pipeline
   * with {@link KafkaDeserializationException}.
   *
   * @param config the settings
   * @param <K> the key type
   * @param <V> the value type
   * @return a new spout
   */
  public static <K, V> OpaqueSpout<KafkaRecord<K, V>, PartitionedMetadata<OffsetRange>> opaque(
      KafkaSpoutConfig<K, V> config) {
    Objects.requireNonNull(config, "config");
    return new OpaqueKafkaSpout<>(config, RecordDecoder.strict(config));
  }

  /**
   * Like {@link #transactional}, but a record that cannot be deserialized is emitted as a {@link KafkaDeadLetter} in
   * its place (and commits in the same epoch as the offsets after it) instead of stopping the pipeline.
   *
   * @param config the settings
   * @param <K> the key type
   * @param <V> the value type
   * @return a new spout
   */
  public static <K, V> TransactionalSpout<KafkaMessage<K, V>, PartitionedMetadata<OffsetRange>>
      transactionalWithDeadLetters(KafkaSpoutConfig<K, V> config) {
    Objects.requireNonNull(config, "config");
    return new TransactionalKafkaSpout<>(config, RecordDecoder.deadLetters(config));
  }

  /**
   * Like {@link #opaque}, but a record that cannot be deserialized is emitted as a {@link KafkaDeadLetter} in its
   * place instead of stopping the pipeline.
   *
   * @param config the settings
   * @param <K> the key type
   * @param <V> the value type
   * @return a new spout
   */
  public static <K, V> OpaqueSpout<KafkaMessage<K, V>, PartitionedMetadata<OffsetRange>> opaqueWithDeadLetters(
      KafkaSpoutConfig<K, V> config) {
    Objects.requireNonNull(config, "config");
    return new OpaqueKafkaSpout<>(config, RecordDecoder.deadLetters(config));
  }
}
