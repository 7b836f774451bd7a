package io.epochal.testkit.store;

import io.epochal.api.Evolving;
import io.epochal.store.table.Lease;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreCapabilities;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link TableStore} that forwards every call to {@link #delegate()}: override only what your wrapper changes (a
 * cache, a metric, a deliberately wrong store in a test). Transactions are forwarded as they are; override
 * {@link #begin()} and {@link #begin(Lease)} and wrap them in a {@link ForwardingStoreTransaction} to change them.
 *
 * <pre>{@code
 * class CountingStore extends ForwardingTableStore {
 *   final AtomicLong begins = new AtomicLong();
 *   CountingStore(TableStore inner) { super(inner); }
 *   @Override public StoreTransaction begin(Lease lease) { begins.incrementAndGet(); return super.begin(lease); }
 * }
 * }</pre>
 *
 * <p>As thread-safe as the delegate.
 *
 * @since 0.3.0
 */
@Evolving
public class ForwardingTableStore implements TableStore {
  private final TableStore delegate;

  /**
   * Wraps a store; every method forwards to it until a subclass overrides the method.
   *
   * @param delegate the store to forward to
   * @throws NullPointerException if {@code delegate} is null
   */
  protected ForwardingTableStore(TableStore delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** @return the wrapped store */
  protected TableStore delegate() {
    return delegate;
  }

  @Override
  public StoreCapabilities capabilities() {
    return delegate.capabilities();
  }

  @Override
  public Table openTable(TableSchema schema) {
    return delegate.openTable(schema);
  }

  @Override
  public Optional<Table> findTable(String path) {
    return delegate.findTable(path);
  }

  @Override
  public Lease acquireLease(String name, String owner) {
    return delegate.acquireLease(name, owner);
  }

  @Override
  public StoreTransaction begin() {
    return delegate.begin();
  }

  @Override
  public StoreTransaction begin(Lease lease) {
    return delegate.begin(lease);
  }

  /** Forwards to the delegate's own (possibly optimized) lookup. */
  @Override
  public List<Optional<Row>> lookup(Table table, List<TableKey> keys) {
    return delegate.lookup(table, keys);
  }

  @Override
  public String describe() {
    return delegate.describe();
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
