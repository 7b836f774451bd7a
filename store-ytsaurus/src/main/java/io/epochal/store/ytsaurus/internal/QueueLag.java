package io.epochal.store.ytsaurus.internal;

import io.epochal.spout.CommittedMetadata;
import io.epochal.spout.PartitionLag;
import io.epochal.spout.PartitionedMetadata;
import io.epochal.store.ytsaurus.YtQueueException;
import io.epochal.store.ytsaurus.YtQueueRange;
import io.epochal.store.ytsaurus.YtQueueSpoutConfig;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The lag report of a YTsaurus queue spout ({@link io.epochal.spout.LagReporting}): per tablet, its total row count
 * (the end offset) and the offset the last committed batch's range ends at ({@link #committed}, fed by the spout on
 * the coordinator thread). A tablet no committed batch names reports where the spout would start it: the consumer's
 * offset (0 without a row) when a consumer is configured, else its first row still there (the trimmed row count).
 *
 * <p>Each report reads the tablet count, the row counts ({@code get_tablet_infos}) and, if needed, the consumer's
 * offsets through the spout's {@link QueueReader}, each call bounded by the client's timeouts and attempts; failures
 * are the reader's {@link YtQueueException}s. The caller caches.
 *
 * <p>Thread-safe: the reader is, the committed metadata is, and reports are serialized on this object.
 */
final class QueueLag {
  /** The last committed metadata: remembered and committed by the spout, read by the reports. */
  final CommittedMetadata<YtQueueRange> committed = new CommittedMetadata<>();
  private final YtQueueSpoutConfig<?> config;
  private final QueueReader reader;
  private volatile boolean closed;

  QueueLag(YtQueueSpoutConfig<?> config, QueueReader reader) {
    this.config = config;
    this.reader = reader;
  }

  /** The positions of every tablet of the queue, by partition name (the tablet index). */
  synchronized Map<String, PartitionLag> report() {
    if (closed) {
      throw new YtQueueException("YTsaurus queue spout '" + config.name() + "' is closed: no lag to report", null,
          false, config.name(), config.queuePath(), -1, -1, 0, null);
    }
    List<QueueReader.TabletRows> tablets = reader.tabletRows(reader.tabletCount(0));
    PartitionedMetadata<YtQueueRange> last = committed.last().orElseGet(PartitionedMetadata::empty);
    Map<Integer, Long> consumer = null;
    Map<String, PartitionLag> out = new TreeMap<>();
    for (int i = 0; i < tablets.size(); i++) {
      String partition = Integer.toString(i);
      YtQueueRange range = last.partitions().get(partition);
      long position;
      if (range != null) {
        position = range.to();
      } else if (config.consumerPath().isPresent()) {
        if (consumer == null) {
          consumer = reader.consumerOffsets(config.consumerPath().get(), 0);
        }
        position = consumer.getOrDefault(i, 0L);
      } else {
        position = tablets.get(i).trimmed();
      }
      out.put(partition, new PartitionLag(tablets.get(i).total(), position));
    }
    return out;
  }

  /** The spout is closed: later reports throw. */
  void close() {
    closed = true;
  }
}
