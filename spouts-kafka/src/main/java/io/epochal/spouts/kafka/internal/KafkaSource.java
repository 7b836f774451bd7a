package io.epochal.spouts.kafka.internal;

import io.epochal.spouts.kafka.KafkaOffsetOutOfRangeException;
import io.epochal.spouts.kafka.KafkaSpoutConfig;
import io.epochal.spouts.kafka.OffsetOutOfRangePolicy;
import io.epochal.spouts.kafka.OffsetRange;
import io.epochal.spouts.kafka.StartPosition;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What both Kafka spout kinds share: the log, the decoder, where a partition starts, and the out-of-range policy.
 * Not thread-safe: the engine calls a spout from one thread at a time.
 *
 * @param <T> what the spout emits
 */
final class KafkaSource<T> implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaSource.class);

  final KafkaSpoutConfig<?, ?> config;
  final String spout;
  final KafkaLog log;
  final RecordDecoder<T> decoder;
  private long txid;
  private boolean firstBatch;

  KafkaSource(KafkaSpoutConfig<?, ?> config, RecordDecoder<T> decoder) {
    this.config = config;
    this.spout = config.name();
    this.log = new KafkaLog(config);
    this.decoder = decoder;
  }

  /**
   * Starts a call for batch {@code txid}.
   *
   * @param firstBatch whether no batch was committed or recorded before it (the batch pins start positions)
   * @param fresh a coordinator call (cut, readiness): end offsets and log starts are read again
   */
  void beginCycle(long txid, boolean firstBatch, boolean fresh) {
    this.txid = txid;
    this.firstBatch = firstBatch;
    log.beginCycle(txid, fresh);
  }

  long txid() {
    return txid;
  }

  /** After a failed call: nothing cached survives. */
  void failed() {
    log.invalidate();
  }

  List<String> partitionNames() {
    List<String> names = new ArrayList<>();
    for (TopicPartition tp : log.partitions(txid)) {
      names.add(PartitionNames.name(tp));
    }
    return names;
  }

  TopicPartition parse(String partition) {
    return PartitionNames.parse(spout, partition);
  }

  /** Where a partition without metadata starts. */
  long start(TopicPartition tp) {
    StartPosition s = config.startPosition();
    if (s.kind() == StartPosition.Kind.OFFSETS) {
      OptionalLong explicit = s.offsetOf(tp);
      if (explicit.isPresent()) {
        return explicit.getAsLong();
      }
      s = s.otherwise().orElseThrow();
    }
    return s.kind() == StartPosition.Kind.LATEST && firstBatch ? log.end(tp, txid) : log.logStart(tp, txid);
  }

  /**
   * Whether the batch includes {@code tp} even without records: in the first batch, a partition that starts at the
   * log end records that position, so records appended later are not skipped by a later "latest".
   */
  boolean pins(TopicPartition tp, Optional<OffsetRange> previous) {
    if (!firstBatch || previous.isPresent()) {
      return false;
    }
    StartPosition s = config.startPosition();
    if (s.kind() == StartPosition.Kind.OFFSETS) {
      if (s.offsetOf(tp).isPresent()) {
        return false;
      }
      s = s.otherwise().orElseThrow();
    }
    return s.kind() == StartPosition.Kind.LATEST;
  }

  /** Where the next read of {@code tp} starts: after {@code previous}, or its start; past the end per policy. */
  long from(TopicPartition tp, Optional<OffsetRange> previous) {
    long from = previous.isPresent() ? previous.get().to() : start(tp);
    if (from > log.end(tp, txid)) {
      from = reset(log.outOfRange(tp, from, txid, null));
    }
    return from;
  }

  /**
   * Reads {@code [from, limit)} of {@code tp} with caps; an offset outside the log is handled by the policy (the
   * chunk then starts where the policy says).
   */
  Chunk read(TopicPartition tp, long from, long limit, int maxRecords, long maxBytes) {
    long at = from;
    for (int resets = 0; ; resets++) {
      try {
        return log.read(tp, at, limit, maxRecords, maxBytes, txid);
      } catch (KafkaOffsetOutOfRangeException e) {
        long reset = reset(e);
        if (reset >= limit || resets >= 3) {
          long end = Math.max(reset, at);
          return new Chunk(end, end, List.of(), 0);
        }
        at = Math.max(reset, at);
      }
    }
  }

  /** Applies the out-of-range policy: rethrows under FAIL, else the offset to continue at. */
  long reset(KafkaOffsetOutOfRangeException e) {
    OffsetOutOfRangePolicy policy = config.offsetOutOfRange();
    if (policy == OffsetOutOfRangePolicy.FAIL) {
      throw e;
    }
    long offset = e.offset().orElseThrow();
    long to = policy == OffsetOutOfRangePolicy.RESET_TO_EARLIEST ? e.logStart() : e.logEnd();
    LOG.warn("Kafka spout '{}': offset {} of {}-{} is out of the log [{}, {}) (txid {}); {} continues at {}{}",
        spout, offset, e.topic().orElse("?"), e.partition().orElse(-1), e.logStart(), e.logEnd(), txid, policy, to,
        to > offset ? ", skipping offsets [" + offset + ", " + to + ") that were never committed" : "");
    return to;
  }

  /** Whether the policy may lose records (the spout then promises nothing). */
  boolean mayLoseRecords() {
    return config.offsetOutOfRange() != OffsetOutOfRangePolicy.FAIL;
  }

  @Override
  public void close() {
    try {
      log.close();
    } finally {
      decoder.close();
    }
  }
}
