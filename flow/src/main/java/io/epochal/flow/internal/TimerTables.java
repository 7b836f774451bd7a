package io.epochal.flow.internal;

import io.epochal.flow.TimerSpec;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import java.util.List;

/**
 * The three tables of one {@link TimerSpec}: the timers by identity ({@code .timers}), the timers of each trigger
 * time by sequence number ({@code .timer-slots}), and the per-partition count tree over trigger times
 * ({@code .timer-tree}). Immutable; thread-safe. Internal.
 *
 * @param timers key (partition, trigger, key bytes) → seq, payload
 * @param slots key (partition, trigger, seq) → key bytes
 * @param tree key (partition, level, node) → count (and next_seq, first_seq on level 0)
 */
record TimerTables(Table timers, Table slots, Table tree) {
  static final String TIMERS = ".timers";
  static final String SLOTS = ".timer-slots";
  static final String TREE = ".timer-tree";

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
        .attribute("epochal.codec", payload).build());
    Table slots = store.openTable(TableSchema.builder(base + SLOTS)
        .key("partition", ColumnType.INT64).key("trigger", ColumnType.INT64).key("seq", ColumnType.INT64)
        .requiredValue("key", ColumnType.BYTES).build());
    Table tree = store.openTable(TableSchema.builder(base + TREE)
        .key("partition", ColumnType.INT64).key("level", ColumnType.INT64).key("node", ColumnType.INT64)
        .requiredValue("count", ColumnType.INT64).value("next_seq", ColumnType.INT64)
        .value("first_seq", ColumnType.INT64).build());
    return new TimerTables(timers, slots, tree);
  }
}
