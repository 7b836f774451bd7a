package io.epochal.flow.internal;

import io.epochal.flow.TimerPartitionsChangedException;
import io.epochal.flow.TimerSpec;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.EpochBuffer;
import io.epochal.store.table.Row;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import java.util.List;
import java.util.Optional;

/**
 * The three tables of one {@link TimerSpec}: the timers by identity ({@code .timers}), the timers of each trigger
 * time by sequence number ({@code .timer-slots}), and the per-partition count tree over trigger times
 * ({@code .timer-tree}). The tree table also holds the partition count the timers were written with, in the row
 * (partition -1, level -1, node 0), staged with every epoch's timer writes while it is not known to be committed,
 * and checked when a pipeline opens the tables ({@link #checkPartitions}). Immutable; thread-safe. Internal.
 *
 * @param timers key (partition, trigger, key bytes) → seq, payload
 * @param slots key (partition, trigger, seq) → key bytes
 * @param tree key (partition, level, node) → count (and next_seq, first_seq on level 0); the partition-count row
 */
record TimerTables(Table timers, Table slots, Table tree) {
  static final String TIMERS = ".timers";
  static final String SLOTS = ".timer-slots";
  static final String TREE = ".timer-tree";
  /** The key to partition rule the timer rows' partitions follow: {@code io.epochal.pipeline.Partitioner}'s. */
  static final String PARTITIONING = "farm-hash-ranges";

  /** @return the paths of the tables of a spec whose base path is {@code base}, in the order timers, slots, tree */
  static List<String> paths(String base) {
    return List.of(base + TIMERS, base + SLOTS, base + TREE);
  }

  /** Creates the tables, or checks that existing ones have exactly these schemas. */
  static TimerTables open(TableStore store, String base, TimerSpec<?, ?> spec) {
    String payload = spec.payloads().map(c -> c.id()).orElse("none");
    Table timers = store.openTable(TableSchema.builder(base + TIMERS)
        .key("partition", ColumnType.INT64).key("trigger", ColumnType.INT64).key("key", ColumnType.BYTES)
        .requiredValue("seq", ColumnType.INT64).value("payload", ColumnType.BYTES)
        .attribute("epochal.timer.domain", spec.domain().name()).attribute("epochal.key", spec.keys().id())
        .attribute("epochal.codec", payload)
        // Timer rows carry their key's partition: written under another key -> partition rule (earlier versions:
        // farm_hash mod partitions), they would fire in partitions that do not own their keys; such tables lack
        // this attribute and are refused on open (SchemaMismatchException, expected vs actual).
        .attribute("epochal.partitioning", PARTITIONING).build());
    Table slots = store.openTable(TableSchema.builder(base + SLOTS)
        .key("partition", ColumnType.INT64).key("trigger", ColumnType.INT64).key("seq", ColumnType.INT64)
        .requiredValue("key", ColumnType.BYTES).build());
    Table tree = store.openTable(TableSchema.builder(base + TREE)
        .key("partition", ColumnType.INT64).key("level", ColumnType.INT64).key("node", ColumnType.INT64)
        .requiredValue("count", ColumnType.INT64).value("next_seq", ColumnType.INT64)
        .value("first_seq", ColumnType.INT64).build());
    return new TimerTables(timers, slots, tree);
  }

  /** @return the key of the row recording the partition count (outside every partition's range) */
  TableKey partitionsKey() {
    return tree.schema().key(-1L, -1L, 0L);
  }

  /** @return the row recording that the timers are written by a pipeline with {@code partitions} partitions */
  Row partitionsRow(int partitions) {
    return Row.builder(partitionsKey()).set("count", (long) partitions).build();
  }

  /**
   * Checks the recorded partition count against the pipeline's, reading the committed row through
   * {@code staging} (the pipeline's staging before any batch).
   *
   * @return whether the count is recorded (so that no epoch needs to stage it again)
   * @throws TimerPartitionsChangedException if the recorded count is another one
   */
  boolean checkPartitions(EpochBuffer staging, String pipeline, String computation, String spec, int partitions) {
    Optional<Row> row = staging.lookup(tree, List.of(partitionsKey())).get(0);
    if (row.isEmpty()) {
      return false;
    }
    long stored = row.get().getLong("count");
    if (stored != partitions) {
      throw new TimerPartitionsChangedException(pipeline, computation, spec, tree.path(), (int) stored, partitions);
    }
    return true;
  }
}
