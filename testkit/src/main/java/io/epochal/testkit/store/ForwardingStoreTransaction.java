package io.epochal.testkit.store;

import io.epochal.api.Evolving;
import io.epochal.store.table.Lease;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link StoreTransaction} that forwards every call to {@link #delegate()}, batch upserts and deletes included (so
 * the delegate's batched versions are kept): override only what your wrapper changes. Pair it with a
 * {@link ForwardingTableStore} whose {@code begin} methods wrap the delegate's transactions.
 *
 * <pre>{@code
 * @Override public StoreTransaction begin(Lease lease) {
 *   return new ForwardingStoreTransaction(super.begin(lease)) {
 *     @Override public void commit() { log.info("commit"); super.commit(); }
 *   };
 * }
 * }</pre>
 *
 * <p>As thread-safe as the delegate (transactions are normally used by one thread).
 *
 * @since 0.3.0
 */
@Evolving
public class ForwardingStoreTransaction implements StoreTransaction {
  private final StoreTransaction delegate;

  /**
   * Wraps a transaction; every method forwards to it until a subclass overrides the method.
   *
   * @param delegate the transaction to forward to
   * @throws NullPointerException if {@code delegate} is null
   */
  protected ForwardingStoreTransaction(StoreTransaction delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** @return the wrapped transaction */
  protected StoreTransaction delegate() {
    return delegate;
  }

  @Override
  public Optional<Lease> lease() {
    return delegate.lease();
  }

  @Override
  public List<Optional<Row>> lookup(Table table, List<TableKey> keys) {
    return delegate.lookup(table, keys);
  }

  @Override
  public List<Row> scan(Table table) {
    return delegate.scan(table);
  }

  @Override
  public void upsert(Table table, Row row) {
    delegate.upsert(table, row);
  }

  @Override
  public void upsert(Table table, Collection<Row> rows) {
    delegate.upsert(table, rows);
  }

  @Override
  public void delete(Table table, TableKey key) {
    delegate.delete(table, key);
  }

  @Override
  public void delete(Table table, Collection<TableKey> keys) {
    delegate.delete(table, keys);
  }

  @Override
  public void commit() {
    delegate.commit();
  }

  @Override
  public void abort() {
    delegate.abort();
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "(" + delegate + ")";
  }
}
