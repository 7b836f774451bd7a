package io.epochal.spouts.kafka.internal;

import io.epochal.codec.Codec;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.LagReporting;
import io.epochal.spout.OpaqueSpout;
import io.epochal.spout.PartitionLag;
import io.epochal.spout.PartitionedMetadata;
import io.epochal.spout.SpoutKind;
import io.epochal.spout.Spouts;
import io.epochal.spouts.kafka.KafkaSpoutConfig;
import io.epochal.spouts.kafka.OffsetRange;
import java.util.Map;
import java.util.Optional;

/**
 * {@link io.epochal.spouts.kafka.KafkaSpouts#opaque}: the partitioned adapter over {@link OpaquePartitions}, plus the
 * cycle bookkeeping, the kind (non-transactional under a reset policy), the consumer-group mirror and the lag report
 * ({@link KafkaLag}; the only method safe to call from another thread).
 *
 * @param <T> what the spout emits
 */
public final class OpaqueKafkaSpout<T> implements OpaqueSpout<T, PartitionedMetadata<OffsetRange>>, LagReporting {
  private final KafkaSource<T> source;
  private final OpaqueSpout<T, PartitionedMetadata<OffsetRange>> adapter;
  private final Mirror mirror;
  private final KafkaLag lag;

  /**
   * Makes the spout; no Kafka client is opened here (clients are opened when first needed).
   *
   * @param config the brokers, topics, limits and policies of the spout
   * @param decoder turns raw records into what the spout emits (strict or dead-letter)
   */
  public OpaqueKafkaSpout(KafkaSpoutConfig<?, ?> config, RecordDecoder<T> decoder) {
    this.source = new KafkaSource<>(config, decoder);
    this.adapter = Spouts.partitioned(new OpaquePartitions<>(source));
    this.mirror = new Mirror(source);
    this.lag = new KafkaLag(config);
  }

  @Override
  public String name() {
    return adapter.name();
  }

  @Override
  public SpoutKind kind() {
    return source.mayLoseRecords() ? SpoutKind.NON_TRANSACTIONAL : SpoutKind.OPAQUE;
  }

  @Override
  public Codec<PartitionedMetadata<OffsetRange>> metadataCodec() {
    return adapter.metadataCodec();
  }

  @Override
  public boolean isReady(long txid, Optional<PartitionedMetadata<OffsetRange>> previous) {
    source.beginCycle(txid, isFirst(previous), true);
    lag.committed.seed(previous);
    try {
      // Nothing new by the read-ahead's end offsets: ask the log now.
      return adapter.isReady(txid, previous) || source.log.dropEndsReadAhead() && adapter.isReady(txid, previous);
    } catch (RuntimeException | Error e) {
      source.failed();
      throw e;
    }
  }

  @Override
  public PartitionedMetadata<OffsetRange> emit(BatchAttempt attempt,
      Optional<PartitionedMetadata<OffsetRange>> previous, Collector<T> out) {
    source.beginCycle(attempt.txid(), isFirst(previous), false);
    try {
      PartitionedMetadata<OffsetRange> next = adapter.emit(attempt, previous, out);
      mirror.remember(attempt.txid(), next);
      lag.committed.remember(attempt.txid(), next);
      source.log.readAhead(); // fetches the next batch's records while the engine runs this one's state phase
      return next;
    } catch (RuntimeException | Error e) {
      source.failed();
      throw e;
    }
  }

  private static boolean isFirst(Optional<PartitionedMetadata<OffsetRange>> previous) {
    return previous.isEmpty() || previous.get().partitions().isEmpty();
  }

  /** The spout's source, for tests of this package. */
  KafkaSource<T> source() {
    return source;
  }

  @Override
  public void success(long txid) {
    mirror.committed(txid);
    lag.committed.committed(txid);
  }

  @Override
  public Map<String, PartitionLag> sourceLag() {
    return lag.report();
  }

  @Override
  public void close() {
    try {
      lag.close();
    } finally {
      source.close();
    }
  }

  @Override
  public String toString() {
    return "KafkaSpouts.opaque(" + source.config + ")";
  }
}
