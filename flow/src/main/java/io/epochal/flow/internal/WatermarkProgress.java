package io.epochal.flow.internal;

import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The event-time progress of a computation after a batch: its watermark, the count of late records so far, and per
 * source partition the largest timestamp seen and the processing time it last sent a record. {@link #advance} is the
 * watermark rule of {@link io.epochal.flow.WatermarkStrategy}; {@link #encode}/{@link #decode} its committed form.
 * Immutable; thread-safe. Internal.
 *
 * @param watermark the watermark, {@link Long#MIN_VALUE} for none
 * @param lateRecords how many late records the computation has seen
 * @param sources per source partition, the largest timestamp and the processing time of the last batch with records
 */
record WatermarkProgress(long watermark, long lateRecords, SortedMap<Integer, Source> sources) {
  /** No record seen yet. */
  static final WatermarkProgress NONE = new WatermarkProgress(Long.MIN_VALUE, 0, new TreeMap<>());

  /**
   * One source partition's progress.
   *
   * @param maxTimestamp the largest timestamp seen
   * @param lastSeen the processing time of the last batch with a record of the partition
   */
  record Source(long maxTimestamp, long lastSeen) {
  }

  WatermarkProgress {
    sources = Collections.unmodifiableSortedMap(new TreeMap<>(Objects.requireNonNull(sources, "sources")));
  }

  /**
   * The progress after a batch.
   *
   * @param batchMax per source partition with records in the batch, their largest timestamp
   * @param late the batch's late records
   * @param now the batch's processing time
   * @param bound the out-of-orderness bound, in milliseconds
   * @param idleTimeout the idleness timeout in milliseconds, empty for none
   */
  WatermarkProgress advance(Map<Integer, Long> batchMax, long late, long now, long bound, Optional<Long> idleTimeout) {
    TreeMap<Integer, Source> next = new TreeMap<>(sources);
    for (Map.Entry<Integer, Long> e : batchMax.entrySet()) {
      Source had = next.get(e.getKey());
      long max = had == null ? e.getValue() : Math.max(had.maxTimestamp(), e.getValue());
      next.put(e.getKey(), new Source(max, had == null ? now : Math.max(had.lastSeen(), now)));
    }
    long candidate = Long.MAX_VALUE;
    boolean any = false;
    for (Source s : next.values()) {
      if (idleTimeout.isPresent() && now - s.lastSeen() >= idleTimeout.get()) {
        continue; // idle: does not hold the watermark back
      }
      any = true;
      long w = s.maxTimestamp() < Long.MIN_VALUE + bound ? Long.MIN_VALUE : s.maxTimestamp() - bound;
      candidate = Math.min(candidate, w);
    }
    long mark = any ? Math.max(watermark, candidate) : watermark;
    return new WatermarkProgress(mark, lateRecords + late, next);
  }

  /** @return whether a record with timestamp {@code timestamp} is late under this watermark */
  boolean isLate(long timestamp) {
    return timestamp < watermark;
  }

  /** @return the committed form of the sources */
  byte[] encodeSources() {
    ByteBuffer b = ByteBuffer.allocate(4 + sources.size() * 20);
    b.putInt(sources.size());
    for (Map.Entry<Integer, Source> e : sources.entrySet()) {
      b.putInt(e.getKey()).putLong(e.getValue().maxTimestamp()).putLong(e.getValue().lastSeen());
    }
    return b.array();
  }

  /**
   * @return the progress of an encoded sources column
   * @throws IllegalArgumentException if {@code bytes} is not an encoding of {@link #encodeSources}
   */
  static WatermarkProgress decode(long watermark, long lateRecords, byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    if (bytes.length < 4) {
      throw new IllegalArgumentException(bytes.length + " bytes hold no source count");
    }
    int n = b.getInt();
    if (n < 0 || bytes.length != 4 + 20L * n) {
      throw new IllegalArgumentException(bytes.length + " bytes do not hold " + n + " sources");
    }
    TreeMap<Integer, Source> sources = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      sources.put(b.getInt(), new Source(b.getLong(), b.getLong()));
    }
    return new WatermarkProgress(watermark, lateRecords, sources);
  }
}
