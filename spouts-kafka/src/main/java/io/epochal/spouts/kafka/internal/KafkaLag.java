package io.epochal.spouts.kafka.internal;

import io.epochal.spout.CommittedMetadata;
import io.epochal.spout.PartitionLag;
import io.epochal.spout.PartitionedMetadata;
import io.epochal.spouts.kafka.KafkaSpoutConfig;
import io.epochal.spouts.kafka.KafkaSpoutException;
import io.epochal.spouts.kafka.KafkaUnavailableException;
import io.epochal.spouts.kafka.OffsetRange;
import io.epochal.spouts.kafka.StartPosition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * The lag report of a Kafka spout ({@link io.epochal.spout.LagReporting}): per partition of the configured topics,
 * the end offset now (the last stable offset under {@code read_committed}) from an admin client of its own, and the
 * offset the last committed batch's range ends at ({@link #committed}, fed by the spout on the coordinator thread). A
 * partition no committed batch names reports where the spout would start it: the explicit offset, the end offset
 * under {@code LATEST} before the first batch, else the log start.
 *
 * <p>Every report lists the topics' partitions and offsets again with one deadline of the API timeout, at most 10 s;
 * a timeout is a {@link KafkaUnavailableException}, any other failure a {@link KafkaSpoutException}. The caller
 * caches (the metrics refresh at most every few seconds).
 *
 * <p>Thread-safe: reports are serialized on this object, and never touch the spout's consumer.
 */
final class KafkaLag implements AutoCloseable {
  private static final Duration MAX_TIMEOUT = Duration.ofSeconds(10);

  /** The last committed metadata: remembered and committed by the spout, read by the reports. */
  final CommittedMetadata<OffsetRange> committed = new CommittedMetadata<>();
  private final KafkaSpoutConfig<?, ?> config;
  private final String spout;
  private final Duration timeout;
  private Admin admin;
  private boolean closed;

  KafkaLag(KafkaSpoutConfig<?, ?> config) {
    this.config = config;
    this.spout = config.name();
    this.timeout = config.apiTimeout().compareTo(MAX_TIMEOUT) < 0 ? config.apiTimeout() : MAX_TIMEOUT;
  }

  /** The positions of every partition of the configured topics, by spout partition name. */
  synchronized Map<String, PartitionLag> report() {
    if (closed) {
      throw new KafkaSpoutException("Kafka spout '" + spout + "' is closed: no lag to report", null, false, spout,
          null, -1, -1, 0);
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      List<TopicPartition> partitions = new ArrayList<>();
      for (TopicDescription d : admin().describeTopics(config.topics()).allTopicNames()
          .get(left(deadline), TimeUnit.NANOSECONDS).values()) {
        for (TopicPartitionInfo p : d.partitions()) {
          partitions.add(new TopicPartition(d.name(), p.partition()));
        }
      }
      Map<TopicPartition, Long> ends = offsets(partitions, OffsetSpec.latest(), deadline);
      PartitionedMetadata<OffsetRange> last = committed.last().orElseGet(PartitionedMetadata::empty);
      Map<TopicPartition, Long> positions = new HashMap<>();
      List<TopicPartition> fromLogStart = new ArrayList<>();
      for (TopicPartition tp : partitions) {
        OffsetRange range = last.partitions().get(PartitionNames.name(tp));
        OptionalLong start = range != null ? OptionalLong.of(range.to()) : start(tp, ends.get(tp), last);
        if (start.isPresent()) {
          positions.put(tp, start.getAsLong());
        } else {
          fromLogStart.add(tp);
        }
      }
      positions.putAll(offsets(fromLogStart, OffsetSpec.earliest(), deadline));
      Map<String, PartitionLag> out = new TreeMap<>();
      for (TopicPartition tp : partitions) {
        out.put(PartitionNames.name(tp), new PartitionLag(ends.get(tp), positions.get(tp)));
      }
      return out;
    } catch (ExecutionException e) {
      throw new KafkaSpoutException("Kafka spout '" + spout + "': reading its lag from " + config.bootstrapServers()
          + " failed: " + e.getCause(), e.getCause(), true, spout, null, -1, -1, 0);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new KafkaUnavailableException("Kafka spout '" + spout + "': reading its lag got no answer within "
          + timeout.toMillis() + " ms from " + config.bootstrapServers(), e, spout, null, -1, 0);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaSpoutException("Kafka spout '" + spout + "': interrupted while reading its lag", e, false, spout,
          null, -1, -1, 0);
    }
  }

  /** Where the spout would start {@code tp} without metadata; empty: at the log start. */
  private OptionalLong start(TopicPartition tp, long end, PartitionedMetadata<OffsetRange> last) {
    StartPosition s = config.startPosition();
    if (s.kind() == StartPosition.Kind.OFFSETS) {
      OptionalLong explicit = s.offsetOf(tp);
      if (explicit.isPresent()) {
        return explicit;
      }
      s = s.otherwise().orElseThrow();
    }
    boolean firstBatch = last.partitions().isEmpty();
    return s.kind() == StartPosition.Kind.LATEST && firstBatch ? OptionalLong.of(end) : OptionalLong.empty();
  }

  private Map<TopicPartition, Long> offsets(List<TopicPartition> partitions, OffsetSpec spec, long deadline)
      throws ExecutionException, InterruptedException, java.util.concurrent.TimeoutException {
    Map<TopicPartition, OffsetSpec> ask = new HashMap<>();
    partitions.forEach(tp -> ask.put(tp, spec));
    Map<TopicPartition, Long> out = new HashMap<>();
    if (ask.isEmpty()) {
      return out;
    }
    Map<TopicPartition, ListOffsetsResultInfo> got = admin()
        .listOffsets(ask, new ListOffsetsOptions(config.isolationLevel())).all()
        .get(left(deadline), TimeUnit.NANOSECONDS);
    got.forEach((tp, info) -> out.put(tp, info.offset()));
    return out;
  }

  private static long left(long deadline) {
    return Math.max(0, deadline - System.nanoTime());
  }

  private Admin admin() {
    if (admin == null) {
      try {
        admin = Admin.create(KafkaLog.adminProperties(KafkaLog.consumerProperties(config), "-lag"));
      } catch (KafkaException e) {
        throw new KafkaSpoutException("Kafka spout '" + spout + "': cannot create its lag admin client for "
            + config.bootstrapServers() + ": " + e.getMessage(), e, false, spout, null, -1, -1, 0);
      }
    }
    return admin;
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (admin != null) {
      admin.close(Duration.ZERO);
      admin = null;
    }
  }
}
