package io.epochal.flow.internal;

import io.epochal.errors.StateCorruptedException;
import io.epochal.flow.EventTimeProgress;
import io.epochal.store.table.Row;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableCheckpointStore;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/** Where a computation's watermark row lives, and reading it as committed. Stateless; thread-safe. Internal. */
public final class Watermarks {
  private Watermarks() {
  }

  /** @return the path of the watermark table of {@code computation} in {@code pipeline} */
  static String path(String tablePrefix, String pipeline, String computation) {
    return tablePrefix + pipeline + "/" + computation + "/" + ComputationWatermark.TABLE;
  }

  /**
   * Reads the committed watermark row of a computation (one point lookup), for
   * {@link io.epochal.flow.FlowStates#eventTimeProgress}.
   *
   * @param checkpoints the pipeline's checkpoint store; its table store and table prefix locate the watermark table
   * @param pipeline the pipeline's name
   * @param computation the computation's name
   * @return the committed progress of the computation, empty if it has no watermark table or row
   * @throws StateCorruptedException if the row does not decode
   */
  public static Optional<EventTimeProgress> committed(TableCheckpointStore checkpoints, String pipeline,
      String computation) {
    Objects.requireNonNull(pipeline, "pipeline");
    Objects.requireNonNull(computation, "computation");
    Optional<Table> table = checkpoints.tableStore().findTable(path(checkpoints.tablePrefix(), pipeline, computation));
    if (table.isEmpty()) {
      return Optional.empty();
    }
    Optional<Row> row = checkpoints.tableStore().lookup(table.get(), List.of(table.get().schema().key(0L))).get(0);
    return row.map(r -> {
      try {
        WatermarkProgress p = WatermarkProgress.decode(r.getLong("watermark"), r.getLong("late"),
            r.getBytes("sources"));
        return new EventTimeProgress(p.watermark(), p.lateRecords());
      } catch (RuntimeException e) {
        throw new StateCorruptedException(table.get().path(), r.key().describeParts(), "the watermark row does not "
            + "decode", OptionalLong.empty(), e);
      }
    });
  }
}
