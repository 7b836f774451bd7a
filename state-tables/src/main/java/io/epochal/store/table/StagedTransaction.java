package io.epochal.store.table;

import io.epochal.api.Evolving;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What the table stores' transactions that stage their writes until commit share (the in-memory store and
 * {@code RocksDbTableStore}): the lease, the lifecycle (open, then over after {@link #commit()} or {@link #abort()}),
 * and the write buffer: per table path, in first-write order, and per key the last write wins. A subclass reads, turns
 * upserts and deletes into staged writes ({@link #stage}) and applies {@link #writes()} in its commit.
 *
 * <p>Thread-safe as {@link StoreTransaction} requires: staging and the lifecycle are guarded by {@code this}; the
 * commit reads the buffer after {@link #endForCommit()}, when no write can be staged any more.
 *
 * <p>Part of the table-store SPI: a base for the transactions of table-store implementations (the in-memory store,
 * {@code RocksDbTableStore}, {@code PostgresTableStore}); callers of a store only see {@link StoreTransaction}.
 *
 * @param <H> the store's handle of an open table
 * @param <K> the staged key type (the store's encoding of a {@link TableKey})
 * @param <W> the staged write type (a row or its encoding; the store decides how a delete looks)
 * @since 0.1.0
 */
@Evolving
public abstract class StagedTransaction<H, K, W> implements StoreTransaction {
  private final Lease lease;
  /** Writes per table path, in first-write order. Guarded by {@code this}. */
  private final LinkedHashMap<String, LinkedHashMap<K, W>> writes = new LinkedHashMap<>();
  /** The handle of every table written. Guarded by {@code this}. */
  private final Map<String, H> tables = new HashMap<>();
  private boolean over; // guarded by this

  /** @param lease the fencing lease the transaction was begun under, or {@code null} */
  protected StagedTransaction(Lease lease) {
    this.lease = lease;
  }

  @Override
  public final Optional<Lease> lease() {
    return Optional.ofNullable(lease);
  }

  /** @return the fencing lease the transaction was begun under, or {@code null} */
  protected final Lease leaseOrNull() {
    return lease;
  }

  /**
   * Stages a write of {@code key} to table {@code path} (whose handle is {@code table}), replacing an earlier write
   * of the same key.
   *
   * @throws IllegalStateException if the transaction is over
   */
  protected final synchronized void stage(String path, H table, K key, W write) {
    checkNotOver();
    tables.putIfAbsent(path, table);
    writes.computeIfAbsent(path, p -> new LinkedHashMap<>()).put(key, write);
  }

  /**
   * Ends the transaction at the start of its commit: whatever the commit does next, the transaction is over.
   *
   * @throws IllegalStateException if it was over already
   */
  protected final synchronized void endForCommit() {
    checkNotOver();
    over = true;
  }

  /** @return the staged writes per table path, in first-write order (read them after {@link #endForCommit()}) */
  protected final LinkedHashMap<String, LinkedHashMap<K, W>> writes() {
    return writes;
  }

  /** @return the handle of table {@code path}, which has staged writes (read it after {@link #endForCommit()}) */
  protected final H table(String path) {
    return tables.get(path);
  }

  /** Drops the staged writes and ends the transaction; does nothing if it is over already. */
  @Override
  public void abort() {
    synchronized (this) {
      if (over) {
        return;
      }
      over = true;
      writes.clear();
    }
    finished();
  }

  /** {@link #abort()}. */
  @Override
  public void close() {
    abort();
  }

  /**
   * Called once when an aborted transaction ends (a committing one calls it itself, when its commit is done): the
   * store stops counting it as open.
   */
  protected abstract void finished();

  /** @throws IllegalStateException if the transaction is over (committed, failed or aborted) */
  protected final synchronized void checkNotOver() {
    if (over) {
      throw new IllegalStateException("the transaction is over (committed, failed or aborted)");
    }
  }

  /**
   * @throws NullPointerException if {@code key} is null
   * @throws IllegalArgumentException if {@code key} is not a key of table {@code schema}
   */
  protected static void checkKey(TableSchema schema, TableKey key) {
    Objects.requireNonNull(key, "key");
    if (!key.schema().equals(schema)) {
      throw new IllegalArgumentException("key " + key + " does not match the schema of table " + schema.path());
    }
  }

  /**
   * The transactions a store has open, by the commit timestamp (or commit number) they began at: what a store needs
   * to know which conflict records or tombstones no open or future transaction can conflict with. Not thread-safe:
   * the store guards it.
   */
  public static final class OpenTransactions {
    /** Begin timestamps of open transactions, with counts. */
    private final TreeMap<Long, Integer> active = new TreeMap<>();

    /** A transaction began at {@code begin}. */
    public void opened(long begin) {
      active.merge(begin, 1, Integer::sum);
    }

    /** A transaction that began at {@code begin} ended. */
    public void finished(long begin) {
      active.computeIfPresent(begin, (k, n) -> n == 1 ? null : n - 1);
    }

    /**
     * @param now the store's latest commit timestamp
     * @return the begin timestamp of the oldest open transaction, or {@code now} if none is open: nothing written at
     *     or before it can conflict with an open or future transaction
     */
    public long horizon(long now) {
      return active.isEmpty() ? now : active.firstKey();
    }
  }
}
