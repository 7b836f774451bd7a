package io.epochal.store.table;

import io.epochal.api.Evolving;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What the table stores' transactions that stage their writes until commit share (the in-memory store and
 * {@code RocksDbTableStore}): the lease, the lifecycle (open, then over after {@link #commit()} or {@link #abort()}),
 * and the write buffer: per table path, in first-write order, one list of writes in staging order, in which the last
 * write of a key wins. A subclass reads, turns upserts and deletes into staged writes ({@link #stage}) and applies
 * {@link #writeLists()} in order (no map per row: a store whose commit applies writes in order gets last-write-wins
 * for free) or {@link #writes()} (one write per key, built at the call) in its commit.
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
  /** Writes per table path, in first-write order, each table's in staging order. Guarded by {@code this}. */
  private final LinkedHashMap<String, List<StagedWrite<K, W>>> writes = new LinkedHashMap<>();
  /** The path and list of the last write, so that a run of writes to one table costs no map lookup. */
  private String lastPath; // guarded by this
  private List<StagedWrite<K, W>> lastList; // guarded by this
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
   * @param path the table's path, which groups the staged writes
   * @param table the store's handle of the table, returned by {@link #table(String)} at commit
   * @param key the staged key, the store's encoding of the row's {@link TableKey}; {@code equals} must tell keys apart
   *     for {@link #writes()}
   * @param write the staged write: the row, its encoding, or the store's form of a delete
   * @throws IllegalStateException if the transaction is over
   */
  protected final synchronized void stage(String path, H table, K key, W write) {
    checkNotOver();
    if (lastList == null || !lastPath.equals(path)) {
      lastList = writes.get(path);
      if (lastList == null) {
        lastList = new ArrayList<>();
        writes.put(path, lastList);
        tables.put(path, table);
      }
      lastPath = path;
    }
    lastList.add(new StagedWrite<>(key, write));
  }

  /**
   * A staged write of a table's list.
   *
   * @param key the staged key
   * @param write the staged write
   * @param <K> the staged key type
   * @param <W> the staged write type
   * @since 0.1.0
   */
  @Evolving
  public record StagedWrite<K, W>(K key, W write) {
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

  /**
   * @return the staged writes per table path, in first-write order, each table's in staging order: a key written
   *     twice appears twice and its last write wins (read them after {@link #endForCommit()}; do not modify)
   */
  protected final LinkedHashMap<String, List<StagedWrite<K, W>>> writeLists() {
    return writes;
  }

  /**
   * @return the staged writes per table path, in first-write order, one per key (its last write; keys in the order
   *     of their first write), built at this call from {@link #writeLists()}: for stores that need each key once
   */
  protected final LinkedHashMap<String, LinkedHashMap<K, W>> writes() {
    LinkedHashMap<String, LinkedHashMap<K, W>> out = new LinkedHashMap<>();
    for (Map.Entry<String, List<StagedWrite<K, W>>> e : writes.entrySet()) {
      LinkedHashMap<K, W> table = new LinkedHashMap<>(Math.max(16, e.getValue().size() * 4 / 3 + 1));
      for (StagedWrite<K, W> w : e.getValue()) {
        table.put(w.key(), w.write());
      }
      out.put(e.getKey(), table);
    }
    return out;
  }

  /** @return whether any write was staged (read it after {@link #endForCommit()}) */
  protected final boolean hasWrites() {
    return !writes.isEmpty();
  }

  /**
   * Returns the handle a table's writes were staged with (read it after {@link #endForCommit()}).
   *
   * @param path the path of a table with staged writes, a key of {@link #writeLists()}
   * @return the handle of table {@code path} given to {@link #stage}; {@code null} if the table has no staged write
   */
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
      lastList = null;
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
   * Checks that a key belongs to a table, as {@link StoreTransaction} requires of every lookup, upsert and delete.
   *
   * @param schema the schema of the table the key is used with
   * @param key the key to check
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

    /**
     * Records that a transaction began.
     *
     * @param begin the store's commit timestamp (or commit number) the transaction began at
     */
    public void opened(long begin) {
      active.merge(begin, 1, Integer::sum);
    }

    /**
     * Records that a transaction ended; a timestamp with no open transaction recorded is ignored.
     *
     * @param begin the timestamp given to {@link #opened} when the transaction began
     */
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

    /** @return the number of open transactions */
    public int count() {
      int n = 0;
      for (int c : active.values()) {
        n += c;
      }
      return n;
    }
  }
}
