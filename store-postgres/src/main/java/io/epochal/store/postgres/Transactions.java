package io.epochal.store.postgres;

import static io.epochal.store.postgres.PgConnections.closeQuietly;
import static io.epochal.store.postgres.PgConnections.rollbackQuietly;

import io.epochal.store.table.CommitHook;
import io.epochal.store.table.Lease;
import io.epochal.store.table.ReadHook;
import io.epochal.store.table.StoreTransaction;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The store transactions of a {@link PostgresTableStore}: begins each as a {@code REPEATABLE READ} SQL transaction
 * on a connection of its own (its lease checked in the new snapshot), keeps the open ones so that the store's close
 * rolls them back, and holds what every transaction uses. Thread-safe.
 */
final class Transactions {
  final PostgresTableStore store;
  final StoreLife life;
  final PgConnections conns;
  final PgLeases leases;
  final RowLookup lookup;
  final BatchWriter writer;
  final CommitHook hook;
  final ReadHook readHook;
  /**
   * The planner settings of every store transaction (in its {@code BEGIN} round trip): no hash or merge joins, so that
   * the commit's statements, which join the bound keys with a table's primary key, probe the index per key.
   */
  static final String PLANNER_SETTINGS = "SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off";
  private final String beginSql;
  private final String beginLeaseSql;
  private final Set<PostgresTransaction> open = ConcurrentHashMap.newKeySet();

  /**
   * @param qs the quoted PostgreSQL schema of the store
   * @param transactionTimeoutMillis the server's {@code idle_in_transaction_session_timeout} of each transaction
   */
  Transactions(PostgresTableStore store, StoreLife life, PgConnections conns, PgLeases leases, RowLookup lookup,
      BatchWriter writer, CommitHook hook, ReadHook readHook, String qs, long transactionTimeoutMillis) {
    this.store = store;
    this.life = life;
    this.conns = conns;
    this.leases = leases;
    this.lookup = lookup;
    this.writer = writer;
    this.hook = hook;
    this.readHook = readHook;
    // Inside a store transaction every join is of the bound keys with a table's primary key: probing the index per
    // key costs what the batch holds; a hash or merge join reads the whole table (the planner picks one while its
    // statistics say the table is small, and each commit would then scan all of it).
    String begin = "BEGIN ISOLATION LEVEL REPEATABLE READ; SET LOCAL idle_in_transaction_session_timeout = "
        + transactionTimeoutMillis + "; " + PLANNER_SETTINGS + "; ";
    this.beginSql = begin + "SELECT 1";
    this.beginLeaseSql = begin + "SELECT generation, owner FROM " + qs + ".epochal_leases WHERE name = ?";
  }

  /** Begins a transaction, under {@code lease} if not null. */
  StoreTransaction start(Lease lease) {
    life.readLock().lock();
    try {
      life.checkOpen();
      Connection c = conns.borrow("begin a transaction");
      boolean ok = false;
      try {
        if (lease == null) {
          try (Statement st = c.createStatement()) {
            st.execute(beginSql);
          }
        } else {
          leases.beginUnder(c, beginLeaseSql, lease);
        }
        PostgresTransaction tx = new PostgresTransaction(this, c, lease);
        open.add(tx);
        ok = true;
        return tx;
      } catch (SQLException e) {
        throw conns.translate("begin a transaction", e, null);
      } finally {
        if (!ok) {
          rollbackQuietly(c);
          closeQuietly(c);
        }
      }
    } finally {
      life.readLock().unlock();
    }
  }

  /** Forgets {@code tx}, which has ended. */
  void closed(PostgresTransaction tx) {
    open.remove(tx);
  }

  /** Rolls back every open transaction (they can no longer commit); the store is closing. */
  void killAll() {
    for (PostgresTransaction tx : List.copyOf(open)) {
      tx.kill();
    }
    open.clear();
  }
}
