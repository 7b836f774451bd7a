package io.epochal.store.postgres;

import static io.epochal.store.postgres.PgConnections.closeQuietly;
import static io.epochal.store.postgres.PgConnections.exec;
import static io.epochal.store.postgres.PgConnections.rollbackQuietly;

import io.epochal.errors.ErrorContext;
import io.epochal.errors.StoreException;
import io.epochal.store.postgres.internal.SqlErrors;
import io.epochal.store.postgres.internal.Storable;
import io.epochal.store.table.Lease;
import io.epochal.store.table.Row;
import io.epochal.store.table.StagedTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A store transaction of a {@link PostgresTableStore}: a REPEATABLE READ SQL transaction on a connection of its own,
 * writes buffered until the commit. Thread-safe: calls on its connection are serialised.
 */
final class PostgresTransaction extends StagedTransaction<TableHandle, TableKey, PostgresTransaction.Staged> {
  /** A staged write: the values of the row to upsert (null for a delete) and its {@code $crc}. */
  record Staged(List<Object> values, int crc) {
  }

  private final Transactions t;
  private final Connection conn;
  /** Serializes use of {@link #conn}. */
  private final Object io = new Object();
  private boolean released; // guarded by io

  /**
   * @param conn the connection its SQL transaction was begun on
   * @param lease the lease it runs under, or null
   */
  PostgresTransaction(Transactions t, Connection conn, Lease lease) {
    super(lease);
    this.t = t;
    this.conn = conn;
  }

  @Override
  public List<Optional<Row>> lookup(Table table, List<TableKey> keys) {
    Objects.requireNonNull(keys, "keys");
    TableHandle h = t.store.handleOf(table);
    checkNotOver();
    Storable.checkKeys(h.pg, keys);
    t.life.readLock().lock();
    try {
      t.life.checkOpen();
      t.readHook.beforeRead(h.path());
      if (keys.isEmpty()) {
        return List.of();
      }
      synchronized (io) {
        checkLive();
        return t.lookup.lookup(conn, h, keys);
      }
    } catch (SQLException e) {
      throw t.conns.translate("lookup in table " + h.path(), e, h.path());
    } finally {
      t.life.readLock().unlock();
    }
  }

  @Override
  public List<Row> scan(Table table) {
    TableHandle h = t.store.handleOf(table);
    checkNotOver();
    t.life.readLock().lock();
    try {
      t.life.checkOpen();
      t.readHook.beforeRead(h.path());
      List<Row> out = new ArrayList<>();
      synchronized (io) {
        checkLive();
        try (PreparedStatement ps = conn.prepareStatement(h.pg.scanSql())) {
          ps.setFetchSize(1000);
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              TableKey key = h.pg.readKey(rs);
              out.add(h.pg.readRow(key, rs, h.pg.scanFirstValueColumn(), t.readHook));
            }
          }
        }
      }
      return Collections.unmodifiableList(out);
    } catch (SQLException e) {
      throw t.conns.translate("scan of table " + h.path(), e, h.path());
    } finally {
      t.life.readLock().unlock();
    }
  }

  @Override
  public void upsert(Table table, Row row) {
    Objects.requireNonNull(row, "row");
    TableHandle h = t.store.handleOf(table);
    checkKey(h.pg.schema(), row.key());
    Storable.checkKey(h.pg, row.key());
    List<Object> values = row.values();
    Storable.check(h.pg, values, h.pg.schema().valueColumns(), false, row);
    stage(h.path(), h, row.key(), new Staged(values, h.pg.crcOf(row.key().hash(), values)));
  }

  @Override
  public void delete(Table table, TableKey key) {
    Objects.requireNonNull(key, "key");
    TableHandle h = t.store.handleOf(table);
    checkKey(h.pg.schema(), key);
    Storable.checkKey(h.pg, key);
    stage(h.path(), h, key, new Staged(null, 0));
  }

  @Override
  public void commit() {
    endForCommit();
    t.life.readLock().lock();
    try {
      t.life.checkOpen();
      synchronized (io) {
        checkLive();
        commitLocked();
      }
    } finally {
      t.life.readLock().unlock();
      finished();
    }
  }

  private void commitLocked() {
    Lease lease = leaseOrNull();
    LinkedHashMap<String, LinkedHashMap<TableKey, Staged>> writes = writes();
    if (lease == null && writes.isEmpty()) {
      return; // finished() ends the SQL transaction
    }
    List<Map.Entry<TableHandle, LinkedHashMap<TableKey, Staged>>> tables = new ArrayList<>(writes.size());
    for (Map.Entry<String, LinkedHashMap<TableKey, Staged>> e : writes.entrySet()) {
      tables.add(Map.entry(table(e.getKey()), e.getValue()));
    }
    // one round trip for the lease check and every row, then the COMMIT
    t.writer.commit(conn, lease, tables, t.hook);
    if (writes.isEmpty()) {
      return; // the lease was checked; finished() ends the SQL transaction
    }
    try {
      exec(conn, "COMMIT");
    } catch (SQLException e) {
      released = true;
      closeQuietly(conn);
      if (SqlErrors.isConnectionFailure(e)) {
        throw new StoreException("PostgreSQL commit to table(s) " + writes.keySet() + " at " + t.conns.endpoint
            + " lost the connection (" + e.getMessage() + "); the outcome is unknown (the commit is atomic: all or "
            + "nothing), re-read to find out", e, true, ErrorContext.of(String.join(", ", writes.keySet()), null));
      }
      throw t.conns.translate("commit to table(s) " + writes.keySet(), e, String.join(", ", writes.keySet()));
    }
    released = true;
    closeQuietly(conn);
  }

  /** @throws IllegalStateException if the store closed this transaction. Call under {@link #io}. */
  private void checkLive() {
    if (released) {
      throw new IllegalStateException("the transaction is over (its store was closed)");
    }
  }

  /** Ends the SQL transaction (rolling back what was not committed) and returns the connection. */
  @Override
  protected void finished() {
    synchronized (io) {
      if (!released) {
        released = true;
        rollbackQuietly(conn);
        closeQuietly(conn);
      }
    }
    t.closed(this);
  }

  /** Called when the store closes: rolls back and returns the connection. */
  void kill() {
    finished();
  }

  @Override
  public String toString() {
    Lease lease = leaseOrNull();
    return "PostgreSQL transaction" + (lease == null ? "" : " under " + lease) + " on " + t.store.describe();
  }
}
