package io.epochal.sinks.kafka;

import io.epochal.api.Evolving;
import io.epochal.sink.PartitionedSink;
import io.epochal.sinks.kafka.internal.ExactlyOnceKafkaSink;

/**
 * Kafka sinks for {@code stream.to(name, sink)}.
 *
 * <p>Stateless and thread-safe: static methods only.
 *
 * @since 0.4.0
 */
@Evolving
public final class KafkaSinks {
  private KafkaSinks() {
  }

  /**
   * An exactly-once sink to {@code config.topic()}: a read_committed consumer sees each output record of every
   * committed batch exactly once, across crashes of the process anywhere and broker restarts.
   *
   * <p>How: each batch's records are mapped to Kafka records ({@link KafkaOutput}) and kept in the checkpoint's outbox
   * with the batch (the transactional outbox, {@link io.epochal.sink.OutboxSink}). After the commit, each engine
   * partition's records are published in one Kafka transaction of that partition's producer ({@code transactional.id
   * = prefix-partition}), which also commits, through {@code sendOffsetsToTransaction}, the batch's txid as the offset
   * of partition 0 of the topic in the consumer group named after the transactional id: the txid marker. When a
   * pipeline starts, each producer's {@code initTransactions} fences any older producer of that id and settles its
   * open transaction; the marker, read back with {@code requireStable}, tells which committed outputs the outbox must
   * still publish. A publication that failed transiently is retried on the same producer (or a new one, after reading
   * the marker again) up to the publish timeout.
   *
   * <p>Needs a checkpoint store that keeps an outbox (table checkpoint stores do). Failures:
   * {@link KafkaSinkFencedException}, {@link KafkaSinkUnavailableException}, {@link KafkaSinkMarkerAheadException};
   * the pipeline stops with a {@link io.epochal.errors.SinkPublishException} over them and a new pipeline over the
   * same stores publishes what is missing first.
   *
   * <p>Limit: the markers are consumer group offsets, which the broker expires {@code offsets.retention.minutes}
   * (7 days by default) after a group's last commit: a process that died right after publishing a batch and is
   * restarted only after that retention would publish the batch again. Keep the retention above the longest time a
   * pipeline may stay down.
   *
   * @param config the sink's configuration
   * @param <T> the record type
   * @return a sink publishing to Kafka; it owns producers, closed with the pipeline
   */
  public static <T> PartitionedSink<T> exactlyOnce(KafkaSinkConfig<T> config) {
    return new ExactlyOnceKafkaSink<>(config);
  }
}
