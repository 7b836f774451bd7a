package io.epochal.store.table;

import io.epochal.api.Evolving;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * A transaction over the tables of one {@link TableStore}: lookups, a scan, upserts and deletes, then
 * {@link #commit()} or {@link #abort()}.
 *
 * <p><b>Atomicity.</b> {@link #commit()} applies all writes of the transaction, across all its tables, at once or not
 * at all (per table only, if the store lacks {@link StoreCapabilities#atomicMultiTableCommit()}). Within a
 * transaction the last write of a key wins (an upsert then a delete deletes). An upsert writes the whole row.
 *
 * <p><b>Isolation.</b> Lookups and scans see committed data, at least as new as the transaction's start (a store may
 * read a snapshot at the start, as YTsaurus does, or the latest committed data); they never see this transaction's
 * uncommitted writes nor another's.
 *
 * <p><b>Conflicts and fencing.</b> If a row this transaction writes (upsert or delete) was written by another
 * transaction that committed after this one began, {@link #commit()} fails with
 * {@link io.epochal.errors.CommitConflictException} naming the table and key, and nothing is applied. If the
 * transaction was begun under a {@link Lease} that has since been taken over, {@link #commit()} fails with
 * {@link io.epochal.errors.LeaseLostException} and nothing is applied.
 *
 * <p><b>Lifecycle.</b> After {@link #commit()} returns or throws, or after {@link #abort()}, the transaction is over:
 * every method but {@link #abort()} and {@link #close()} (which do nothing then) throws
 * {@link IllegalStateException}. {@link #close()} aborts an open transaction.
 *
 * <p><b>Thread-safety.</b> {@code lookup}, {@code scan}, {@code upsert} and {@code delete} may be called concurrently
 * from several threads; {@code commit} and {@code abort} must not overlap other calls of the same transaction.
 *
 * <p><b>Nulls and validation.</b> Null arguments and null elements are rejected with {@link NullPointerException};
 * a table of another store, or a key or row of another table, with {@link IllegalArgumentException}.
 *
 * @since 0.1.0
 */
@Evolving
public interface StoreTransaction extends AutoCloseable {

  /** @return the lease fencing this transaction, if it was begun under one */
  Optional<Lease> lease();

  /**
   * Reads rows by key.
   *
   * @param table a table of this transaction's store
   * @param keys the keys to read, each of {@code table}'s schema; may be empty, may repeat a key
   * @return one element per key, in the order of {@code keys}: the committed row, or empty if the key has none
   *     (missing keys are reported in place; a key listed twice gets two elements)
   * @throws io.epochal.errors.StoreException if the store cannot be read
   */
  List<Optional<Row>> lookup(Table table, List<TableKey> keys);

  /**
   * Reads every committed row of a table, in key order ({@link TableKey#compareTo}). Materializes the table: for
   * inspection tools and tests, not for large tables on the hot path.
   *
   * @param table a table of this transaction's store
   * @return the rows, unmodifiable
   * @throws io.epochal.errors.StoreException if the store cannot be read
   */
  List<Row> scan(Table table);

  /**
   * Writes a row (insert or replace), visible once the transaction commits.
   *
   * @param table a table of this transaction's store
   * @param row the whole row to store under its key, of {@code table}'s schema
   */
  void upsert(Table table, Row row);

  /**
   * Writes rows; like {@link #upsert(Table, Row)} for each, in iteration order (a later row of the same key wins).
   *
   * @param table a table of this transaction's store
   * @param rows the rows to store, each of {@code table}'s schema
   */
  default void upsert(Table table, Collection<Row> rows) {
    for (Row row : rows) {
      upsert(table, row);
    }
  }

  /**
   * Deletes a key's row (nothing if it has none), once the transaction commits.
   *
   * @param table a table of this transaction's store
   * @param key the key whose row to delete, of {@code table}'s schema
   */
  void delete(Table table, TableKey key);

  /**
   * Deletes keys; like {@link #delete(Table, TableKey)} for each, in iteration order.
   *
   * @param table a table of this transaction's store
   * @param keys the keys whose rows to delete, each of {@code table}'s schema
   */
  default void delete(Table table, Collection<TableKey> keys) {
    for (TableKey key : keys) {
      delete(table, key);
    }
  }

  /**
   * Applies every write of this transaction atomically (see the class documentation) and ends it.
   *
   * @throws io.epochal.errors.CommitConflictException if an overlapping transaction committed a write to a row this
   *     one writes; nothing applied
   * @throws io.epochal.errors.LeaseLostException if the transaction's lease was taken over; nothing applied
   * @throws io.epochal.errors.StoreException if the store failed; with atomic multi-table commit nothing was applied
   *     unless the outcome is reported unknown in the message (then re-read to find out)
   * @throws IllegalStateException if the transaction is already over
   */
  void commit();

  /** Drops every write of this transaction and ends it. Does nothing if it is already over. */
  void abort();

  /** Aborts the transaction if it is still open. */
  @Override
  void close();
}
