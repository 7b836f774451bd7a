package io.epochal.spouts.kafka.internal;

import io.epochal.codec.Codec;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.LagReporting;
import io.epochal.spout.PartitionLag;
import io.epochal.spout.PartitionedMetadata;
import io.epochal.spout.SpoutKind;
import io.epochal.spout.Spouts;
import io.epochal.spout.TransactionalSpout;
import io.epochal.spouts.kafka.KafkaSpoutConfig;
import io.epochal.spouts.kafka.OffsetRange;
import java.util.Map;
import java.util.Optional;

/**
 * {@link io.epochal.spouts.kafka.KafkaSpouts#transactional}: the partitioned adapter over
 * {@link TransactionalPartitions}, plus the cycle bookkeeping, the kind (non-transactional under a reset policy),
 * the consumer-group mirror and the lag report ({@link KafkaLag}; the only method safe to call from another thread).
 *
 * @param <T> what the spout emits
 */
public final class TransactionalKafkaSpout<T> implements TransactionalSpout<T, PartitionedMetadata<OffsetRange>>,
    LagReporting {
  private final KafkaSource<T> source;
  private final TransactionalPartitions<T> partitions;
  private final TransactionalSpout<T, PartitionedMetadata<OffsetRange>> adapter;
  private final Mirror mirror;
  private final KafkaLag lag;

  /**
   * Makes the spout; no Kafka client is opened here (clients are opened when first needed).
   *
   * @param config the brokers, topics, limits and policies of the spout
   * @param decoder turns raw records into what the spout emits (strict or dead-letter)
   */
  public TransactionalKafkaSpout(KafkaSpoutConfig<?, ?> config, RecordDecoder<T> decoder) {
    this.source = new KafkaSource<>(config, decoder);
    this.partitions = new TransactionalPartitions<>(source);
    this.adapter = Spouts.partitioned(partitions);
    this.mirror = new Mirror(source);
    this.lag = new KafkaLag(config);
  }

  @Override
  public String name() {
    return adapter.name();
  }

  @Override
  public SpoutKind kind() {
    return source.mayLoseRecords() ? SpoutKind.NON_TRANSACTIONAL : SpoutKind.TRANSACTIONAL;
  }

  @Override
  public Codec<PartitionedMetadata<OffsetRange>> metadataCodec() {
    return adapter.metadataCodec();
  }

  @Override
  public Optional<PartitionedMetadata<OffsetRange>> nextBatch(long txid,
      Optional<PartitionedMetadata<OffsetRange>> previous) {
    source.beginCycle(txid, previous.isEmpty() || previous.get().partitions().isEmpty(), true);
    partitions.clearCuts();
    lag.committed.seed(previous);
    try {
      Optional<PartitionedMetadata<OffsetRange>> next = adapter.nextBatch(txid, previous);
      if (next.isEmpty() && source.log.dropEndsReadAhead()) {
        next = adapter.nextBatch(txid, previous); // nothing new by the read-ahead's end offsets: ask the log now
      }
      next.ifPresent(m -> {
        mirror.remember(txid, m);
        lag.committed.remember(txid, m);
      });
      return next;
    } catch (RuntimeException | Error e) {
      partitions.clearCuts();
      source.failed();
      throw e;
    }
  }

  @Override
  public void emit(BatchAttempt attempt, PartitionedMetadata<OffsetRange> metadata, Collector<T> out) {
    source.beginCycle(attempt.txid(), false, false);
    try {
      adapter.emit(attempt, metadata, out);
      mirror.remember(attempt.txid(), metadata);
      lag.committed.remember(attempt.txid(), metadata);
      source.log.readAhead(); // fetches the next batch's records while the engine runs this one's state phase
    } catch (RuntimeException | Error e) {
      source.failed();
      throw e;
    } finally {
      partitions.clearCuts();
    }
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
    return "KafkaSpouts.transactional(" + source.config + ")";
  }
}
