package io.epochal.store.postgres;

import io.epochal.store.postgres.internal.PgTable;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableSchema;

/** An open table of a {@link PostgresTableStore}: its SQL. Immutable and thread-safe. */
final class TableHandle implements Table {
  final PostgresTableStore owner;
  final PgTable pg;

  TableHandle(PostgresTableStore owner, PgTable pg) {
    this.owner = owner;
    this.pg = pg;
  }

  @Override
  public TableSchema schema() {
    return pg.schema();
  }

  @Override
  public String toString() {
    return "Table[" + pg.schema().path() + " as " + pg.qualifiedName() + "]";
  }
}
