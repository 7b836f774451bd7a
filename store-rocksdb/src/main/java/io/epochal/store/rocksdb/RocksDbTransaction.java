package io.epochal.store.rocksdb;

import io.epochal.errors.ErrorContext;
import io.epochal.errors.StoreException;
import io.epochal.store.table.Lease;
import io.epochal.store.table.Row;
import io.epochal.store.table.StagedTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A transaction of a {@link RocksDbTableStore}: reads the latest committed rows, stages its writes (encoded) in
 * memory, one list per table in staging order (no map per row; the {@code WriteBatch} applies them in order, so the
 * last write of a key wins), and commits them in one batch through {@link Commits}. Thread-safe as
 * {@link StagedTransaction} is.
 */
final class RocksDbTransaction extends StagedTransaction<TableHandle, byte[], RocksDbTransaction.Write> {
  /** A staged write: an upsert (value non-null) or a delete. */
  record Write(TableKey key, byte[] value) {
  }

  private final RocksDbTableStore store;
  private final RowReader reader;
  private final Commits commits;
  private final StoreLife life;
  private final long begin;

  /**
   * @param begin the commit number the transaction began after (registered with {@code commits})
   * @param lease the lease it runs under, or null
   */
  RocksDbTransaction(RocksDbTableStore store, RowReader reader, Commits commits, StoreLife life, long begin,
      Lease lease) {
    super(lease);
    this.store = store;
    this.reader = reader;
    this.commits = commits;
    this.life = life;
    this.begin = begin;
  }

  @Override
  public List<Optional<Row>> lookup(Table table, List<TableKey> keys) {
    Objects.requireNonNull(keys, "keys");
    TableHandle h = store.handleOf(table);
    checkNotOver();
    if (keys.isEmpty()) {
      return List.of();
    }
    List<byte[]> encoded = new ArrayList<>(keys.size());
    for (TableKey key : keys) {
      checkKey(h.schema, key);
      encoded.add(h.encodeKey(key));
    }
    return reader.lookup(h, keys, encoded);
  }

  @Override
  public List<Row> scan(Table table) {
    TableHandle h = store.handleOf(table);
    checkNotOver();
    return reader.scan(h);
  }

  @Override
  public void upsert(Table table, Row row) {
    Objects.requireNonNull(row, "row");
    TableHandle h = store.handleOf(table);
    checkKey(h.schema, row.key());
    byte[] key = h.encodeKey(row.key());
    stage(h, row.key(), key, h.encodeValue(key, row.values()));
  }

  @Override
  public void delete(Table table, TableKey key) {
    Objects.requireNonNull(key, "key");
    TableHandle h = store.handleOf(table);
    checkKey(h.schema, key);
    stage(h, key, h.encodeKey(key), null);
  }

  private void stage(TableHandle h, TableKey key, byte[] keyBytes, byte[] value) {
    stage(h.schema.path(), h, keyBytes, new Write(key, value));
  }

  @Override
  public void commit() {
    endForCommit();
    try {
      if (store.isReadOnly()) {
        if (hasWrites()) {
          throw new StoreException("cannot commit writes to " + writeLists().keySet() + ": " + store.describe()
              + " was opened read-only; nothing was written", null, false, ErrorContext.NONE);
        }
        return;
      }
      life.readLock().lock();
      try {
        life.checkOpen();
        commits.commit(leaseOrNull(), writeLists(), this::table, begin);
      } finally {
        life.readLock().unlock();
      }
    } finally {
      finished();
    }
  }

  @Override
  protected void finished() {
    commits.finished(begin);
  }

  @Override
  public String toString() {
    Lease lease = leaseOrNull();
    Path dir = store.directory();
    return "RocksDB transaction begun after commit #" + begin + (lease == null ? "" : " under " + lease)
        + " in " + dir;
  }
}
