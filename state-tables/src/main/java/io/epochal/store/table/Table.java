package io.epochal.store.table;

import io.epochal.api.Evolving;

/**
 * An open table of a {@link TableStore}, returned by {@link TableStore#openTable} and passed to the operations of a
 * {@link StoreTransaction} of the same store. A handle only: it holds no rows and no transaction.
 *
 * <p>Implementations are immutable and thread-safe. A store rejects a table of another store with
 * {@link IllegalArgumentException}.
 *
 * @since 0.1.0
 */
@Evolving
public interface Table {

  /** @return the table's schema, as validated when it was opened */
  TableSchema schema();

  /** @return the table's path, {@code schema().path()} */
  default String path() {
    return schema().path();
  }
}
