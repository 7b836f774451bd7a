package io.epochal.metrics.internal;

import io.epochal.metrics.internal.StoreMeters.Op;
import io.epochal.metrics.internal.StoreMeters.Rows;
import io.epochal.store.table.Lease;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * A transaction of a {@link MeteredTableStore}: forwards every call to the inner store's transaction, times lookups,
 * scans, the commit and the abort (a failure is counted by error type and rethrown unchanged), and counts the rows
 * read and the rows upserted and deleted (buffered writes are not requests: they are counted, not timed, once the
 * inner transaction accepted them). {@link #close()} is forwarded untimed.
 *
 * <p>As thread-safe as the inner transaction (see {@link StoreTransaction}).
 */
final class MeteredTransaction implements StoreTransaction {
  private final StoreTransaction tx;
  private final StoreMeters meters;

  MeteredTransaction(StoreTransaction tx, StoreMeters meters) {
    this.tx = tx;
    this.meters = meters;
  }

  @Override
  public Optional<Lease> lease() {
    return tx.lease();
  }

  @Override
  public List<Optional<Row>> lookup(Table table, List<TableKey> keys) {
    String tag = MeteredTableStore.tag(table);
    List<Optional<Row>> rows = meters.time(Op.LOOKUP, tag, () -> tx.lookup(table, keys));
    meters.rows(Rows.READ, tag, keys.size());
    return rows;
  }

  @Override
  public List<Row> scan(Table table) {
    String tag = MeteredTableStore.tag(table);
    List<Row> rows = meters.time(Op.SCAN, tag, () -> tx.scan(table));
    meters.rows(Rows.READ, tag, rows.size());
    return rows;
  }

  @Override
  public void upsert(Table table, Row row) {
    String tag = MeteredTableStore.tag(table);
    tx.upsert(table, row);
    meters.rows(Rows.UPSERT, tag, 1);
  }

  @Override
  public void upsert(Table table, Collection<Row> rows) {
    String tag = MeteredTableStore.tag(table);
    tx.upsert(table, rows);
    meters.rows(Rows.UPSERT, tag, rows.size());
  }

  @Override
  public void delete(Table table, TableKey key) {
    String tag = MeteredTableStore.tag(table);
    tx.delete(table, key);
    meters.rows(Rows.DELETE, tag, 1);
  }

  @Override
  public void delete(Table table, Collection<TableKey> keys) {
    String tag = MeteredTableStore.tag(table);
    tx.delete(table, keys);
    meters.rows(Rows.DELETE, tag, keys.size());
  }

  @Override
  public void commit() {
    meters.time(Op.COMMIT, StoreMeters.NO_TABLE, tx::commit);
  }

  @Override
  public void abort() {
    meters.time(Op.ABORT, StoreMeters.NO_TABLE, tx::abort);
  }

  @Override
  public void close() {
    tx.close();
  }

  @Override
  public String toString() {
    return tx.toString();
  }
}
