package io.epochal.store.ytsaurus.internal;

import io.epochal.store.table.Table;
import io.epochal.store.table.TableSchema;
import java.util.Objects;

/**
 * A table of a YTsaurus store: its schema, where it lives, and which store opened it. Immutable and thread-safe.
 */
public final class YtTable implements Table {
  private final TableSchema schema;
  private final String ytPath;
  private final Object owner;

  /**
   * Makes the handle of an opened table.
   *
   * @param schema the validated schema
   * @param ytPath the Cypress path of the physical table (in single-table mode: the shared table)
   * @param owner the store that opened it
   */
  public YtTable(TableSchema schema, String ytPath, Object owner) {
    this.schema = Objects.requireNonNull(schema, "schema");
    this.ytPath = Objects.requireNonNull(ytPath, "ytPath");
    this.owner = Objects.requireNonNull(owner, "owner");
  }

  @Override
  public TableSchema schema() {
    return schema;
  }

  /**
   * The physical table's path.
   *
   * @return the Cypress path of the physical table
   */
  public String ytPath() {
    return ytPath;
  }

  /**
   * The store that opened the table.
   *
   * @return the store that opened this table
   */
  public Object owner() {
    return owner;
  }

  @Override
  public String toString() {
    return schema.path() + " (" + ytPath + ")";
  }
}
