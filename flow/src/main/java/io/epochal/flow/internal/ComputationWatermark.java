package io.epochal.flow.internal;

import io.epochal.errors.StateCorruptedException;
import io.epochal.flow.TimerClock;
import io.epochal.flow.WatermarkStrategy;
import io.epochal.state.Epoch;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.EpochBuffer;
import io.epochal.store.table.Row;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The watermark of one Flow computation in one pipeline, shared by its partitions and by the
 * {@link WatermarkObserver} node that runs before them in every batch. Per epoch: the committed
 * {@link WatermarkProgress} is read from the computation's {@code .watermark} table when the epoch begins (one point
 * lookup: nothing in memory is authoritative, so a replay or a restarted pipeline starts from the committed row); the
 * observer partitions add each source partition's largest timestamp of the batch; the first partition to fire timers
 * (or the observer's partition 0 at its {@code end()}) advances the watermark with the batch's processing time; the
 * observer's partition 0 stages the new row in the epoch, with the late records the partitions counted, so that it
 * commits with the checkpoint. Thread-safe (partitions of a batch run in parallel; all methods synchronize). Internal.
 */
final class ComputationWatermark {
  static final String TABLE = ".watermark";

  private final WatermarkStrategy<Object> strategy;
  private final TimerClock clock;
  private final Optional<Long> idleMillis;
  private Table table;
  private Epoch epoch;
  private EpochBuffer buffer;
  private WatermarkProgress start;
  private WatermarkProgress advanced;
  private final Map<Integer, Long> batchMax = new HashMap<>();
  private long late;

  @SuppressWarnings("unchecked")
  ComputationWatermark(WatermarkStrategy<?> strategy, TimerClock clock) {
    this.strategy = (WatermarkStrategy<Object>) Objects.requireNonNull(strategy, "strategy");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.idleMillis = strategy.idleTimeout().map(d -> d.toMillis());
  }

  WatermarkStrategy<Object> strategy() {
    return strategy;
  }

  /** Creates the table (or checks its schema); called when the partitions are made. */
  synchronized void open(TableStore store, String path) {
    if (table == null || !table.path().equals(path)) {
      table = store.openTable(TableSchema.builder(path).key("id", ColumnType.INT64)
          .requiredValue("watermark", ColumnType.INT64).requiredValue("late", ColumnType.INT64)
          .requiredValue("sources", ColumnType.BYTES).attribute("epochal.watermark", "1").build());
    }
  }

  private TableKey key() {
    return table.schema().key(0L);
  }

  /** Starts the batch attempt of {@code e}, once for every partition and the observer (by identity). */
  synchronized void begin(Epoch e, EpochBuffer staging) {
    if (epoch == e) {
      return;
    }
    epoch = e;
    buffer = staging;
    batchMax.clear();
    late = 0;
    advanced = null;
    Optional<Row> row = staging.lookup(table, List.of(key())).get(0);
    start = row.map(this::decode).orElse(WatermarkProgress.NONE);
  }

  private WatermarkProgress decode(Row row) {
    try {
      return WatermarkProgress.decode(row.getLong("watermark"), row.getLong("late"), row.getBytes("sources"));
    } catch (RuntimeException ex) {
      throw new StateCorruptedException(table.path(), row.key().describeParts(), "the watermark row does not decode "
          + "(epoch " + epoch.txid() + ")", OptionalLong.of(epoch.txid()), ex);
    }
  }

  private void require(Epoch e, String what) {
    if (e == null || epoch != e) {
      throw new IllegalStateException(what + " of the watermark outside its epoch (current: " + epoch + ", given: "
          + e + ")");
    }
  }

  /** Adds the largest timestamps per source partition of some of the batch's records (an observer partition's). */
  synchronized void observe(Epoch e, Map<Integer, Long> maxima) {
    require(e, "observe");
    if (advanced != null) {
      throw new IllegalStateException("records observed after the watermark of " + e + " advanced");
    }
    maxima.forEach((p, ts) -> batchMax.merge(p, ts, Math::max));
  }

  /** @return the watermark in force when the batch started: records below it are late */
  synchronized long startWatermark(Epoch e) {
    require(e, "read");
    return start.watermark();
  }

  /** Counts late records of the batch (committed with it). */
  synchronized void countLate(Epoch e, long n) {
    require(e, "count");
    late += n;
  }

  /** @return the watermark after the batch's records (advanced once per epoch, at the first call) */
  synchronized long advance(Epoch e) {
    require(e, "advance");
    if (advanced == null) {
      long now = clock.processingTime(e.attempt());
      advanced = start.advance(batchMax, 0, now, strategy.boundMillis(), idleMillis);
    }
    return advanced.watermark();
  }

  /** Stages the batch's progress in the epoch (if it changed): once, after every partition processed the batch. */
  synchronized void stage(Epoch e) {
    advance(e);
    WatermarkProgress next = new WatermarkProgress(advanced.watermark(), start.lateRecords() + late,
        advanced.sources());
    if (!next.equals(start)) {
      buffer.upsert(table, Row.builder(key()).set("watermark", next.watermark()).set("late", next.lateRecords())
          .set("sources", next.encodeSources()).build());
    }
  }

  /** The attempt failed: forgets it (the replay reads the committed row again). */
  synchronized void abort() {
    epoch = null;
    buffer = null;
    advanced = null;
    batchMax.clear();
    late = 0;
  }
}
