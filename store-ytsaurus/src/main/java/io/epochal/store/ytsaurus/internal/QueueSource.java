package io.epochal.store.ytsaurus.internal;

import io.epochal.spout.PartitionedMetadata;
import io.epochal.store.ytsaurus.YtQueueRange;
import io.epochal.store.ytsaurus.YtQueueRow;
import io.epochal.store.ytsaurus.YtQueueRowDecodeException;
import io.epochal.store.ytsaurus.YtQueueSpoutConfig;
import io.epochal.store.ytsaurus.YtQueueTrimmedException;
import io.epochal.store.ytsaurus.YtTrimmedRowsPolicy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What both queue spout kinds share: the reader, the decoder, the partition list, where a partition starts, the
 * trimmed-rows policy, the rows pulled in the current cycle, and the consumer advances handed to the epoch commit.
 *
 * <p><b>Where a partition's next read starts:</b> after its previous range; for a partition without metadata, at the
 * consumer's offset of it (0 if the consumer has no row) when a consumer is configured, else at its first row still
 * there (the first row a pull from 0 returns).
 *
 * <p><b>Cycles.</b> A coordinator call (cutting a batch, asking whether one is ready) starts a fresh cycle; the rows a
 * cut pulled are kept for the emission that follows it (rows of an ordered table never change, so a kept chunk is
 * valid whenever its start offset matches; only trimming removes rows). Everything kept is dropped after a failure.
 *
 * <p>Not thread-safe, but for {@link #lag}: the engine calls a spout from one thread at a time.
 *
 * @param <T> what the spout emits
 */
final class QueueSource<T> implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(QueueSource.class);
  private static final long FIRST_AVAILABLE = -1;

  /** One read of a partition: the rows with offsets in {@code [from, next)}, in order. */
  record Chunk(long from, long next, List<YtQueueRow> rows) {
    YtQueueRange range() {
      return new YtQueueRange(from, next);
    }
  }

  private record Kept(long requested, Chunk chunk) {
  }

  final YtQueueSpoutConfig<T> config;
  final String spout;
  final String queue;
  final QueueReader reader;
  /** The lag report; the one part of the source safe to use from another thread. */
  final QueueLag lag;
  private final Optional<ConsumerAdvances> advances;
  private long txid;
  private List<String> partitions = List.of();
  private boolean discoveryDue = true;
  private long discoveredAtNanos;
  private Map<Integer, Long> consumerOffsets;
  private final Map<Integer, Kept> kept = new HashMap<>();
  private boolean warnedUncarried;

  QueueSource(YtQueueSpoutConfig<T> config, Optional<ConsumerAdvances> advances) {
    this.config = config;
    this.spout = config.name();
    this.queue = config.queuePath();
    this.reader = new QueueReader(config);
    this.lag = new QueueLag(config, reader);
    this.advances = advances;
  }

  /** Starts a call for batch {@code txid}; a coordinator call ({@code fresh}) drops the rows kept so far. */
  void beginCycle(long txid, boolean fresh) {
    this.txid = txid;
    if (fresh) {
      kept.clear();
      consumerOffsets = null;
    }
  }

  /** After a failed call: nothing kept survives, and the tablet count is read again. */
  void failed() {
    kept.clear();
    consumerOffsets = null;
    discoveryDue = true;
  }

  long txid() {
    return txid;
  }

  /** The partitions ({@code "0"}, {@code "1"}, ...: tablet indexes), listed again at the discovery interval. */
  List<String> partitionNames() {
    long now = System.nanoTime();
    if (discoveryDue || now - discoveredAtNanos >= config.partitionDiscoveryInterval().toNanos()) {
      int count = reader.tabletCount(txid);
      List<String> names = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        names.add(Integer.toString(i));
      }
      if (names.size() != partitions.size()) {
        LOG.info("YTsaurus queue spout '{}': {} has {} tablets", spout, queue, count);
      }
      partitions = List.copyOf(names);
      discoveryDue = false;
      discoveredAtNanos = now;
    }
    return partitions;
  }

  int parse(String partition) {
    try {
      int p = Integer.parseInt(partition);
      if (p >= 0) {
        return p;
      }
    } catch (NumberFormatException e) {
      // below
    }
    throw new IllegalArgumentException("YTsaurus queue spout '" + spout + "': '" + partition
        + "' is not a tablet index");
  }

  /** Where the next read of {@code partition} starts, or {@link #FIRST_AVAILABLE}. */
  private long start(int partition, Optional<YtQueueRange> previous) {
    if (previous.isPresent()) {
      return previous.get().to();
    }
    if (config.consumerPath().isEmpty()) {
      return FIRST_AVAILABLE;
    }
    if (consumerOffsets == null) {
      consumerOffsets = reader.consumerOffsets(config.consumerPath().get(), txid);
    }
    return consumerOffsets.getOrDefault(partition, 0L);
  }

  /**
   * Reads the next rows of {@code partition} (one pull, with the caps), or returns those kept from this cycle. A
   * chunk without rows means nothing new.
   *
   * @throws YtQueueTrimmedException under {@link YtTrimmedRowsPolicy#FAIL} if rows after the start were trimmed
   */
  Chunk next(int partition, Optional<YtQueueRange> previous) {
    long from = start(partition, previous);
    Kept k = kept.get(partition);
    if (k != null && k.requested == from) {
      return k.chunk;
    }
    List<YtQueueRow> rows = reader.pull(partition, Math.max(0, from), config.maxRowsPerPartition(),
        config.maxBytesPerPartition(), txid);
    Chunk chunk;
    if (rows.isEmpty()) {
      chunk = new Chunk(Math.max(0, from), Math.max(0, from), List.of());
    } else {
      long first = rows.get(0).offset();
      if (from != FIRST_AVAILABLE && first > from) {
        trimmed(partition, from, first);
      }
      chunk = new Chunk(from == FIRST_AVAILABLE ? first : from, rows.get(rows.size() - 1).offset() + 1, rows);
    }
    kept.put(partition, new Kept(from, chunk));
    return chunk;
  }

  /** The rows of {@code range}, kept from this cycle's cut if it read exactly that range, else read again. */
  List<YtQueueRow> rowsOf(int partition, YtQueueRange range) {
    Kept k = kept.get(partition);
    if (k != null && k.chunk.range().equals(range)) {
      return k.chunk.rows();
    }
    List<YtQueueRow> out = new ArrayList<>();
    long at = range.from();
    while (at < range.to()) {
      List<YtQueueRow> rows = reader.pull(partition, at, range.to() - at, config.maxBytesPerPartition(), txid);
      long first = rows.isEmpty() ? range.to() : rows.get(0).offset();
      if (first > at) {
        trimmed(partition, at, rows.isEmpty() ? -1 : first);
      }
      for (YtQueueRow r : rows) {
        if (r.offset() < range.to()) {
          out.add(r);
          at = r.offset() + 1;
        }
      }
      if (first >= range.to()) {
        break; // SKIP: the rest of the range is gone
      }
    }
    return out;
  }

  private void trimmed(int partition, long offset, long firstAvailable) {
    if (config.trimmedRows() == YtTrimmedRowsPolicy.FAIL) {
      throw new YtQueueTrimmedException(spout, queue, partition, offset, firstAvailable, txid);
    }
    LOG.warn("YTsaurus queue spout '{}': rows of partition {} of {} from offset {} to {} were trimmed before they "
        + "were committed (txid {}); SKIP continues after them", spout, partition, queue, offset,
        firstAvailable < 0 ? "the end of the range" : Long.toString(firstAvailable), txid);
  }

  /** Decodes every row (so that nothing is emitted when one fails). */
  List<T> decodeAll(List<YtQueueRow> rows) {
    List<T> out = new ArrayList<>(rows.size());
    for (YtQueueRow row : rows) {
      T decoded;
      try {
        decoded = config.decoder().decode(row);
      } catch (Exception e) {
        throw new YtQueueRowDecodeException(spout, queue, row.partition(), row.offset(), txid, e);
      }
      if (decoded == null) {
        throw new YtQueueRowDecodeException(spout, queue, row.partition(), row.offset(), txid,
            new IllegalStateException("the decoder returned null"));
      }
      out.add(decoded);
    }
    return out;
  }

  /** Whether rows may be lost (the spout then promises nothing). */
  boolean mayLoseRows() {
    return config.trimmedRows() != YtTrimmedRowsPolicy.FAIL;
  }

  /** Hands the consumer advances of the batch's partitions to the epoch commit of {@code txid}, if configured. */
  void stageAdvances(long txid, PartitionedMetadata<YtQueueRange> metadata) {
    if (advances.isEmpty()) {
      return;
    }
    String pipeline = config.advancingPipeline().orElseThrow();
    String consumer = config.consumerPath().orElseThrow();
    List<ConsumerAdvances.Advance> list = new ArrayList<>();
    for (Map.Entry<String, YtQueueRange> e : metadata.batchPartitions().entrySet()) {
      YtQueueRange r = e.getValue();
      if (!r.isEmpty()) {
        list.add(new ConsumerAdvances.Advance(pipeline, consumer, queue, parse(e.getKey()), r.from(), r.to()));
      }
    }
    advances.get().stage(pipeline, spout, txid, list);
  }

  /** The emission of {@code txid} failed: nothing of it may reach a commit. */
  void unstageAdvances(long txid) {
    advances.ifPresent(a -> a.unstage(config.advancingPipeline().orElseThrow(), spout, txid));
  }

  /** Batch {@code txid} committed; says so loudly (once) if its epoch commit did not carry the consumer advances. */
  void committed(long txid) {
    if (advances.isEmpty()) {
      return;
    }
    String pipeline = config.advancingPipeline().orElseThrow();
    List<Long> missed = advances.get().committed(pipeline, txid);
    if (!missed.isEmpty() && !warnedUncarried) {
      warnedUncarried = true;
      LOG.error("YTsaurus queue spout '{}': batch(es) {} committed, but no epoch commit of pipeline '{}' on the "
          + "configured YtTableStore carried their consumer advances, so consumer {} did not move. Is '{}' the "
          + "pipeline's name, and does it use a TableCheckpointStore on that store (pinned mode)?", spout, missed,
          pipeline, config.consumerPath().orElseThrow(), pipeline);
    }
  }

  @Override
  public void close() {
    lag.close();
    reader.close();
  }
}
