package io.epochal.store.table;

import io.epochal.api.Evolving;
import java.util.Optional;

/**
 * A store of sorted tables modelled on YTsaurus sorted dynamic tables: tables with a {@link TableSchema}, read and
 * written through {@link StoreTransaction}s, plus leases for fencing stale writers. Implementations: the in-memory
 * store ({@link TableStores#inMemory()}), RocksDB ({@code store-rocksdb}) and YTsaurus ({@code store-ytsaurus}); the
 * abstract {@code io.epochal.testkit.store.TableStoreContract} in {@code epochal-testkit} checks any of them.
 *
 * <p><b>Atomicity.</b> The unit is the store transaction: its {@link StoreTransaction#commit()} applies every write of
 * every table of the transaction at once, or nothing, when {@link StoreCapabilities#atomicMultiTableCommit()} holds;
 * otherwise at least each table's writes are applied at once. {@link #openTable} and {@link #acquireLease} are each
 * atomic.
 *
 * <p><b>Isolation.</b> Writes become visible to other transactions only when their transaction commits. A
 * transaction's lookups do not see its own uncommitted writes (as in YTsaurus). Two overlapping transactions (the
 * second began before the first committed) that write the same row cannot both commit: the second commit fails with
 * {@link io.epochal.errors.CommitConflictException} and applies nothing.
 *
 * <p><b>Thread-safety.</b> Thread-safe: any number of threads may open tables, acquire leases and run their own
 * transactions concurrently.
 *
 * <p><b>Nulls.</b> Null arguments are rejected with {@link NullPointerException}.
 *
 * @since 0.1.0
 */
@Evolving
public interface TableStore extends AutoCloseable {

  /** @return what this store guarantees; constant over the store's life */
  StoreCapabilities capabilities();

  /**
   * Creates the table if it does not exist, else checks that it has exactly this schema.
   *
   * @param schema the table's path, key and value columns and attributes
   * @return a handle for transactions of this store
   * @throws io.epochal.errors.SchemaMismatchException if the table exists with another schema (message: expected vs
   *     actual); nothing is changed
   * @throws io.epochal.errors.StoreException if the store cannot be read or written
   * @throws IllegalStateException if the store is closed
   */
  Table openTable(TableSchema schema);

  /**
   * Opens an existing table with the schema it was created with (for tools that inspect tables).
   *
   * @param path the path of the table, as in its {@link TableSchema#path()}
   * @return the table, or empty if there is no table at {@code path}
   * @throws io.epochal.errors.StoreException if the store cannot be read
   * @throws IllegalStateException if the store is closed
   */
  Optional<Table> findTable(String path);

  /**
   * Takes over the lease {@code name} for {@code owner}, whoever held it: the returned lease's generation is one
   * more than the previous holder's (1 for the first). From then on, transactions begun under an older generation of
   * this lease cannot commit.
   *
   * @param name the resource to lease, e.g. {@code "pipeline:<name>"}
   * @param owner the new holder's name (a worker id), shown in fencing errors
   * @return the lease now current, with the new generation
   * @throws io.epochal.errors.StoreException if the store cannot be read or written
   * @throws IllegalStateException if the store is closed
   */
  Lease acquireLease(String name, String owner);

  /**
   * Begins a transaction that is not fenced by any lease.
   *
   * @return the open transaction, without {@link StoreTransaction#lease()}
   * @throws io.epochal.errors.StoreException if the store cannot start a transaction
   * @throws IllegalStateException if the store is closed
   */
  StoreTransaction begin();

  /**
   * Begins a transaction fenced by {@code lease}: its commit fails with
   * {@link io.epochal.errors.LeaseLostException}, changing nothing, if the lease was taken over before the commit
   * (when {@link StoreCapabilities#fencing()} holds; otherwise the lease is only recorded).
   *
   * @param lease a lease this store issued by {@link #acquireLease}
   * @return the open transaction, its {@link StoreTransaction#lease()} being {@code lease}
   * @throws io.epochal.errors.LeaseLostException if the store already knows the lease was taken over (optional: a
   *     store may defer the check to the commit)
   * @throws IllegalArgumentException if {@code lease} was not issued by this store
   * @throws io.epochal.errors.StoreException if the store cannot start a transaction
   * @throws IllegalStateException if the store is closed
   */
  StoreTransaction begin(Lease lease);

  /**
   * Reads committed rows outside any caller transaction: a one-off read with the semantics of
   * {@link StoreTransaction#lookup}. The default begins a transaction, looks up and aborts; stores with a cheaper
   * single-call read (YTsaurus {@code lookup_rows} without a transaction) override it.
   *
   * @param table a table of this store
   * @param keys the keys to read, each of {@code table}'s schema
   * @return one element per key, in order; empty for a missing key
   * @throws io.epochal.errors.StoreException if the store cannot be read
   * @throws IllegalStateException if the store is closed
   * @since 0.1.0
   */
  default java.util.List<Optional<Row>> lookup(Table table, java.util.List<TableKey> keys) {
    try (StoreTransaction tx = begin()) {
      return tx.lookup(table, keys);
    }
  }

  /** @return a short description for logs and errors, e.g. {@code "in-memory table store"} */
  String describe();

  /**
   * Closes the store. Open transactions can no longer commit. Idempotent.
   *
   * @throws io.epochal.errors.StoreException if the store cannot be closed cleanly
   */
  @Override
  void close();
}
