package io.epochal.store.table;

import io.epochal.api.Evolving;

/**
 * A fault-injection point inside {@link StoreTransaction#commit()}, for tests of atomicity (like RocksDB's sync
 * points). Stores accept one through their builders ({@code TableStores.inMemoryBuilder().commitHook(..)}); the
 * default, {@link #NONE}, does nothing.
 *
 * <p>Contract for stores: during a commit, after the lease and conflict checks passed, {@link #beforeTableWrite} is
 * called once per table the transaction writes, in the order the tables were first written in the transaction,
 * before that table's rows are staged or written. If it throws, the commit fails with that exception (as is, or as
 * the cause of a {@link io.epochal.errors.StoreException}). A store with
 * {@link StoreCapabilities#atomicMultiTableCommit()} then applies nothing; a store without it keeps the tables
 * written before the failure.
 *
 * <p>Implementations must be thread-safe if the store is used by several threads.
 *
 * @since 0.1.0
 */
@FunctionalInterface
@Evolving
public interface CommitHook {

  /** Does nothing. */
  CommitHook NONE = tablePath -> { };

  /**
   * Called before the rows of table {@code tablePath} are written during a commit.
   *
   * @param tablePath the table's path
   */
  void beforeTableWrite(String tablePath);
}
