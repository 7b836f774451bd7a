package io.epochal.spouts.kafka.internal;

import io.epochal.spouts.kafka.KafkaOffsetOutOfRangeException;
import io.epochal.spouts.kafka.KafkaSpoutConfig;
import io.epochal.spouts.kafka.KafkaSpoutException;
import io.epochal.spouts.kafka.KafkaUnavailableException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exact reads of offset ranges through {@link KafkaLog}'s consumer, per-partition cursors, and the read-ahead.
 *
 * <p><b>Reads.</b> {@link #read} returns the records with offsets in {@code [from, next)}, where {@code next} is
 * {@code limit} unless a cap stopped it earlier. Offsets without a record (compaction, aborted transactions under
 * {@code read_committed}, transaction markers) are passed over through the consumer's position, which moves past
 * them, so a range end is a position. Per assigned partition a cursor keeps the records the consumer returned beyond
 * the last read, so consecutive reads of a partition fetch each record once; a read elsewhere seeks.
 *
 * <p><b>Read-ahead.</b> Every partition with a cursor stays unpaused while its cursor holds fewer than
 * {@code max.poll.records} records and fewer bytes than the per-partition byte cap, so one poll fetches for all of
 * them, as a plain poll loop over all partitions does; what a poll returns for a partition other than the one being
 * read goes to that partition's cursor, for its next read. A partition over either bound, or without a cursor, is
 * paused. {@link #readAhead} does the same in the background (one daemon thread per spout) up to the cycle's end
 * offsets, while the engine runs the state phases; every other method first waits for it ({@link #settle}), so the
 * consumer is used by one thread at a time. A read-ahead that fails leaves no trace but dropped cursors: the next read
 * of each partition seeks, and meets the failure itself. Cursors never change what a read returns: a cursor's records
 * are exactly the log's records from its start up to the consumer's position of that partition.
 *
 * <p>Not thread-safe: one caller thread at a time (the engine's coordinator).
 */
final class KafkaReads implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaReads.class);

  private final KafkaLog log;
  private final KafkaSpoutConfig<?, ?> config;
  private final String spout;
  private final Duration apiTimeout;
  /** The read-ahead bound per partition in records: the consumer's {@code max.poll.records}. */
  private final int aheadRecords;
  /** Per assigned partition: where the next read continues without a seek, and what was fetched beyond it. */
  private final Map<TopicPartition, Cursor> cursors = new HashMap<>();
  private ExecutorService aheadThread;
  /** The read-ahead in progress, if any; its result says whether it completed (false: drop every cursor). */
  private Future<Boolean> ahead;
  /** The end offsets the last read-ahead fetched after its reads, for the next cycle; null if none. */
  private Map<TopicPartition, Long> nextEnds;

  private static final class Cursor {
    /** The next offset not yet handed out; every record the consumer returned at or after it is in {@code ahead}. */
    long start;
    /** The consumer's position: every record below it was returned by the consumer. */
    long position;
    final ArrayDeque<ConsumerRecord<byte[], byte[]>> ahead = new ArrayDeque<>();
    /** The {@link #size} of the records in {@code ahead}. */
    long aheadBytes;

    Cursor(long start) {
      this.start = start;
      this.position = start;
    }

    void add(List<ConsumerRecord<byte[], byte[]>> records) {
      for (ConsumerRecord<byte[], byte[]> r : records) {
        ahead.addLast(r);
        aheadBytes += size(r);
      }
    }

    /** Removes the first record held, whose {@link #size} is {@code size}. */
    void take(long size) {
      ahead.pollFirst();
      aheadBytes -= size;
    }
  }

  KafkaReads(KafkaLog log, KafkaSpoutConfig<?, ?> config) {
    this.log = log;
    this.config = config;
    this.spout = config.name();
    this.apiTimeout = config.apiTimeout();
    this.aheadRecords = aheadRecords(log.consumerProperties());
  }

  private static int aheadRecords(Map<String, Object> properties) {
    Object max = properties.get(ConsumerConfig.MAX_POLL_RECORDS_CONFIG);
    try {
      return max == null ? 500 : Math.max(1, Integer.parseInt(max.toString().trim()));
    } catch (NumberFormatException e) {
      return 500; // the consumer's own check rejects it when it is created
    }
  }

  /** Forgets every cursor (after a failure, or with the assignment cleared): the next read of each partition seeks. */
  void clear() {
    settle();
    cursors.clear();
    nextEnds = null;
  }

  /**
   * Reads the records of {@code tp} with offsets in {@code [from, next)}: {@code next} is {@code limit}, unless
   * {@code maxRecords} records were read, or one more would pass {@code maxBytes} (the first record always passes),
   * and then the offset of the first record left out (or, when the record cap is reached with nothing fetched
   * past the consumer's position, that position).
   *
   * @throws KafkaOffsetOutOfRangeException if {@code from} is no longer in the log
   * @throws KafkaSpoutException if the cluster fails or the read makes no progress within the API timeout
   */
  Chunk read(TopicPartition tp, long from, long limit, int maxRecords, long maxBytes, long txid) {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    if (from >= limit) {
      return new Chunk(from, from, out, 0);
    }
    Cursor cur = focus(tp, from, txid);
    long bytes = 0;
    long next = from;
    long lastProgress = System.nanoTime();
    reading:
    while (next < limit) {
      while (!cur.ahead.isEmpty()) {
        ConsumerRecord<byte[], byte[]> r = cur.ahead.peekFirst();
        if (r.offset() < next) {
          cur.take(size(r)); // cannot happen: records arrive in offset order after the cursor
          continue;
        }
        if (r.offset() >= limit) {
          next = limit;
          break reading;
        }
        long size = size(r);
        if (out.size() >= maxRecords || !out.isEmpty() && bytes + size > maxBytes) {
          next = r.offset();
          break reading;
        }
        cur.take(size);
        out.add(r);
        bytes += size;
        next = r.offset() + 1;
      }
      if (cur.position > next) {
        next = Math.min(cur.position, limit); // offsets without a record up to the consumer's position
        continue;
      }
      if (out.size() >= maxRecords) {
        break; // the record cap is reached and nothing was fetched past the position: the range ends there
      }
      ConsumerRecords<byte[], byte[]> polled = poll(tp, txid);
      List<ConsumerRecord<byte[], byte[]>> got = polled.records(tp);
      cur.add(got);
      long position = position(tp, txid);
      aheadOthers(tp, polled, txid);
      if (!got.isEmpty() || position > cur.position) {
        lastProgress = System.nanoTime();
      } else if (System.nanoTime() - lastProgress > apiTimeout.toNanos()) {
        throw stalled(tp, from, next, limit, txid);
      }
      cur.position = Math.max(cur.position, position);
    }
    cur.start = next;
    return new Chunk(from, next, out, bytes);
  }

  private long position(TopicPartition tp, long txid) {
    try {
      return log.consumer().position(tp, apiTimeout);
    } catch (KafkaException e) {
      throw log.failure("reading the position of " + tp, tp, txid, e, true);
    }
  }

  /**
   * Hands what a poll for {@code tp} returned for the other partitions to their cursors (a partition without one
   * forgets it: its next read seeks), moves their positions, and pauses those whose read-ahead is full.
   */
  private void aheadOthers(TopicPartition tp, ConsumerRecords<byte[], byte[]> polled, long txid) {
    List<TopicPartition> full = null;
    Set<TopicPartition> paused = log.consumer().paused();
    for (Map.Entry<TopicPartition, Cursor> e : cursors.entrySet()) {
      TopicPartition other = e.getKey();
      if (other.equals(tp)) {
        continue;
      }
      Cursor c = e.getValue();
      List<ConsumerRecord<byte[], byte[]>> got = polled.records(other);
      c.add(got);
      if (!got.isEmpty() || !paused.contains(other)) {
        c.position = Math.max(c.position, position(other, txid));
      }
      if (aheadFull(c)) {
        if (full == null) {
          full = new ArrayList<>();
        }
        full.add(other);
      }
    }
    for (TopicPartition other : polled.partitions()) {
      if (!other.equals(tp) && !cursors.containsKey(other)) {
        LOG.debug("Kafka spout '{}': records of {} without a cursor dropped; its next read seeks", spout, other);
      }
    }
    if (full != null) {
      try {
        log.consumer().pause(full);
      } catch (KafkaException e) {
        throw log.failure("pausing " + full.size() + " partition(s)", tp, txid, e, true);
      }
    }
  }

  private boolean aheadFull(Cursor c) {
    return c.ahead.size() >= aheadRecords || c.aheadBytes >= config.maxBytesPerPartition();
  }

  /**
   * Assigns {@code tp} if needed, positions it at {@code from} (a seek unless its cursor continues there), resumes it
   * and every partition with a cursor whose read-ahead is not full, and pauses the others.
   */
  private Cursor focus(TopicPartition tp, long from, long txid) {
    Consumer<byte[], byte[]> c = log.consumer();
    try {
      Set<TopicPartition> assigned = c.assignment();
      if (!assigned.contains(tp)) {
        Set<TopicPartition> next = new HashSet<>(assigned);
        next.add(tp);
        c.assign(next);
        cursors.remove(tp);
      }
      Cursor cur = cursors.get(tp);
      if (cur == null || cur.start != from) {
        c.seek(tp, from);
        cur = new Cursor(from);
        cursors.put(tp, cur);
      }
      List<TopicPartition> pause = new ArrayList<>();
      List<TopicPartition> resume = new ArrayList<>();
      for (TopicPartition a : c.assignment()) {
        Cursor other = cursors.get(a);
        if (a.equals(tp) || other != null && !aheadFull(other)) {
          resume.add(a);
        } else {
          pause.add(a);
        }
      }
      c.pause(pause);
      c.resume(resume);
      return cur;
    } catch (KafkaException e) {
      throw log.failure("assigning " + tp, tp, txid, e, true);
    }
  }

  private ConsumerRecords<byte[], byte[]> poll(TopicPartition tp, long txid) {
    try {
      return log.consumer().poll(config.pollTimeout());
    } catch (OffsetOutOfRangeException e) {
      Long offset = e.offsetOutOfRangePartitions().get(tp);
      for (TopicPartition other : e.partitions()) {
        cursors.remove(other);
      }
      if (offset == null) {
        // Only partitions read ahead are out of range: forget them (their own next read seeks and reports it).
        try {
          log.consumer().pause(e.partitions());
        } catch (KafkaException again) {
          e.addSuppressed(again);
          throw log.failure("fetching " + tp, tp, txid, e, true);
        }
        return ConsumerRecords.empty();
      }
      throw log.outOfRange(tp, offset, txid, e);
    } catch (KafkaException e) {
      cursors.remove(tp);
      throw log.failure("fetching " + tp, tp, txid, e, true);
    }
  }

  private static long size(ConsumerRecord<byte[], byte[]> r) {
    long size = Math.max(0, r.serializedKeySize()) + (long) Math.max(0, r.serializedValueSize());
    for (Header h : r.headers()) {
      size += h.key().length() + (h.value() == null ? 0 : h.value().length);
    }
    return size;
  }

  private KafkaSpoutException stalled(TopicPartition tp, long from, long next, long limit, long txid) {
    cursors.remove(tp);
    KafkaSpoutException diagnosed = log.diagnose(tp, txid);
    if (diagnosed != null) {
      return diagnosed;
    }
    return new KafkaUnavailableException("Kafka spout '" + spout + "': reading offsets [" + from + ", " + limit
        + ") of " + tp + " made no progress past offset " + next + " for " + apiTimeout.toMillis() + " ms (txid "
        + txid + "); is the partition's leader reachable at " + config.bootstrapServers() + "?", null, spout,
        tp.topic(), tp.partition(), txid);
  }

  // ------------------------------------------------------------------------------------------------ read-ahead

  /**
   * Starts reading ahead in the background: polls every partition with a cursor that is not full and whose position
   * is below its end offset in {@code ends}, until none is left or a poll timeout passes without progress; then reads
   * the end offsets of {@code partitions} for the next cycle ({@link #takeEnds}).
   */
  void readAhead(Map<TopicPartition, Long> ends, List<TopicPartition> partitions) {
    settle();
    nextEnds = null;
    if (cursors.isEmpty()) {
      return;
    }
    if (aheadThread == null) {
      aheadThread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "epochal-kafka-read-ahead-" + spout);
        t.setDaemon(true);
        return t;
      });
    }
    ahead = aheadThread.submit(() -> aheadLoop(ends) && aheadEnds(partitions));
  }

  private boolean aheadLoop(Map<TopicPartition, Long> ends) {
    try {
      Consumer<byte[], byte[]> c = log.consumer();
      long lastProgress = System.nanoTime();
      while (true) {
        Set<TopicPartition> want = new HashSet<>();
        cursors.forEach((tp, cur) -> {
          Long end = ends.get(tp);
          if (end != null && cur.position < end && !aheadFull(cur)) {
            want.add(tp);
          }
        });
        if (want.isEmpty()) {
          return true;
        }
        List<TopicPartition> pause = new ArrayList<>();
        for (TopicPartition a : c.assignment()) {
          if (!want.contains(a)) {
            pause.add(a);
          }
        }
        c.pause(pause);
        c.resume(want);
        ConsumerRecords<byte[], byte[]> polled = c.poll(config.pollTimeout());
        boolean progress = false;
        for (TopicPartition tp : want) {
          Cursor cur = cursors.get(tp);
          List<ConsumerRecord<byte[], byte[]>> got = polled.records(tp);
          cur.add(got);
          long position = c.position(tp, apiTimeout);
          progress |= !got.isEmpty() || position > cur.position;
          cur.position = Math.max(cur.position, position);
        }
        if (progress) {
          lastProgress = System.nanoTime();
        } else if (System.nanoTime() - lastProgress > config.pollTimeout().toNanos()) {
          return true;
        }
      }
    } catch (RuntimeException e) {
      LOG.debug("Kafka spout '{}': reading ahead failed; the next reads seek", spout, e);
      return false;
    }
  }

  private boolean aheadEnds(List<TopicPartition> partitions) {
    try {
      nextEnds = Map.copyOf(log.consumer().endOffsets(partitions, apiTimeout));
    } catch (RuntimeException e) {
      LOG.debug("Kafka spout '{}': reading the next end offsets ahead failed; the next cycle reads them", spout, e);
    }
    return true;
  }

  /**
   * The end offsets the last read-ahead read after its reads (end offsets of a moment ago: each is at most the end
   * offset now), once; null if there are none.
   */
  Map<TopicPartition, Long> takeEnds() {
    settle();
    Map<TopicPartition, Long> ends = nextEnds;
    nextEnds = null;
    return ends;
  }

  /** Waits for the read-ahead in progress, if any; one that failed drops every cursor. */
  void settle() {
    if (ahead == null) {
      return;
    }
    Future<Boolean> running = ahead;
    ahead = null;
    boolean completed = false;
    boolean interrupted = false;
    while (true) {
      try {
        completed = running.get();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
        log.consumer().wakeup(); // cuts a blocked poll short; the read-ahead then fails and the cursors go
      } catch (ExecutionException e) {
        break;
      }
    }
    if (!completed || interrupted) {
      cursors.clear();
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    if (aheadThread != null) {
      if (ahead != null) {
        log.consumer().wakeup();
      }
      settle();
      aheadThread.shutdownNow();
      aheadThread = null;
    }
  }
}
