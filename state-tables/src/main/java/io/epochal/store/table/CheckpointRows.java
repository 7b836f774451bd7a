package io.epochal.store.table;

import io.epochal.api.Evolving;
import io.epochal.store.Checkpoint;
import io.epochal.store.table.internal.Epochs;
import java.util.Objects;

/**
 * Reads the checkpoint table of a {@link TableCheckpointStore} without opening one (which would create the table
 * and take leases): its path, its schema and the decoding of its rows, for tools that inspect a store read-only.
 * Stateless and thread-safe.
 *
 * @since 0.2.0
 */
@Evolving
public final class CheckpointRows {
  /** The name of the checkpoint table after the table prefix: {@value}. */
  public static final String TABLE = Epochs.CHECKPOINT_TABLE;
  /** The key column of the checkpoint table: the pipeline name. */
  public static final String PIPELINE = "pipeline";

  private CheckpointRows() {
  }

  /**
   * Returns the path of the checkpoint table under a table prefix.
   *
   * @param prefix the table prefix the checkpoint store was built with, e.g. {@code "//home/app/"} (may be empty)
   * @return the path of the checkpoint table of a checkpoint store with table prefix {@code prefix}
   * @throws NullPointerException if {@code prefix} is null
   */
  public static String tablePath(String prefix) {
    return Objects.requireNonNull(prefix, "prefix") + TABLE;
  }

  /**
   * Returns the schema a checkpoint table has: key {@code pipeline}, values committed txid, metadata and pending.
   *
   * @param path the path of the table, normally {@link #tablePath(String)}
   * @return the schema of the checkpoint table at {@code path}
   */
  public static TableSchema schema(String path) {
    return Epochs.checkpointSchema(path);
  }

  /**
   * Returns the pipeline a checkpoint row belongs to, without decoding the rest of the row.
   *
   * @param row a row of a checkpoint table
   * @return the pipeline name of the row (its key column {@value #PIPELINE})
   */
  public static String pipeline(Row row) {
    return (String) row.key().get(PIPELINE);
  }

  /**
   * Decodes a checkpoint row: committed txid and metadata, pending metadata, attempt reservation and outbox.
   *
   * @param row a row read from a checkpoint table (its schema must equal {@link #schema(String)} of its path)
   * @return the checkpoint the row holds
   * @throws NullPointerException if {@code row} is null
   * @throws io.epochal.errors.StateCorruptedException if the row cannot be decoded (naming table and pipeline)
   * @throws IllegalArgumentException if the row is not of a checkpoint table
   */
  public static Checkpoint decode(Row row) {
    Objects.requireNonNull(row, "row");
    if (!row.schema().equals(schema(row.schema().path()))) {
      throw new IllegalArgumentException("table " + row.schema().path() + " is not a checkpoint table: "
          + row.schema());
    }
    return Epochs.decodeRow(row);
  }
}
