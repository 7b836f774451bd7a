package io.epochal.store.postgres;

import static io.epochal.store.postgres.PgConnections.rollbackQuietly;

import io.epochal.errors.CommitConflictException;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.LeaseLostException;
import io.epochal.errors.StoreException;
import io.epochal.store.postgres.internal.SqlErrors;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.Lease;
import io.epochal.store.table.TableKey;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The batched writes of a commit of a {@link PostgresTableStore}: per table and chunk of at most
 * {@link PostgresTableStore#CHUNK} rows, one statement for the upserts (an {@code UPDATE} of the rows the snapshot
 * sees and an {@code INSERT ... ON CONFLICT DO NOTHING} of the others, over arrays) and one for the deletes; a
 * serialization failure is reported as {@link CommitConflictException} naming the table and key. Thread-safe
 * (stateless apart from its settings; each call uses the transaction's connection).
 */
final class BatchWriter {
  private final PgConnections conns;
  private final PgLeases leases;
  /** The store's {@link PostgresTableStore#describe()}, for messages. */
  private final String description;

  BatchWriter(PgConnections conns, PgLeases leases, String description) {
    this.conns = conns;
    this.leases = leases;
    this.description = description;
  }

  /** What a statement of the commit's batch is, and so how its result is checked. */
  private enum Kind { LEASE, UPSERT, DELETE_PROBE, DELETE }

  /** A statement of the commit's batch: its SQL and parameters, the table and keys it writes. */
  private record Part(Kind kind, String sql, Object[] params, TableHandle table, List<TableKey> keys) {
  }

  /**
   * Sends the whole commit but its {@code COMMIT} in one round trip: one statement batch holding the lease check
   * ({@code FOR SHARE}, if {@code lease} is not null) and, per table in first-write order and per chunk of at most
   * {@link PostgresTableStore#CHUNK} rows, one statement for the upserts and two for the deletes (the probe, then
   * the removal of its placeholders). The server runs them in order and skips the rest after a failure; the caller
   * sends {@code COMMIT} only if this returns.
   *
   * @param tables the tables written, with their rows, in first-write order
   * @throws LeaseLostException if the lease was taken over
   * @throws CommitConflictException on a write-write conflict (the SQL transaction was rolled back)
   */
  void commit(Connection conn, Lease lease, List<Map.Entry<TableHandle, LinkedHashMap<TableKey, PostgresTransaction.Staged>>> tables,
      CommitHook hook) {
    List<Part> parts = new ArrayList<>();
    try {
      if (lease != null) {
        parts.add(new Part(Kind.LEASE, leases.checkAtCommitSql(), new Object[] {lease.name()}, null, List.of()));
      }
      for (Map.Entry<TableHandle, LinkedHashMap<TableKey, PostgresTransaction.Staged>> t : tables) {
        hook.beforeTableWrite(t.getKey().path());
        addTable(conn, t.getKey(), t.getValue(), parts);
      }
    } catch (SQLException e) {
      throw conns.translate("commit to table(s) " + paths(tables), e, paths(tables));
    }
    StringBuilder sql = new StringBuilder();
    for (Part p : parts) {
      sql.append(sql.length() == 0 ? "" : "; ").append(p.sql());
    }
    Part at = null;
    try (PreparedStatement ps = conn.prepareStatement(sql.toString())) {
      int i = 1;
      for (Part p : parts) {
        for (Object param : p.params()) {
          if (param instanceof Array a) {
            ps.setArray(i++, a);
          } else {
            ps.setString(i++, (String) param);
          }
        }
      }
      boolean isResult = ps.execute();
      for (Part p : parts) {
        at = p;
        check(p, isResult ? ps.getResultSet() : null, lease);
        isResult = ps.getMoreResults();
      }
    } catch (SQLException e) {
      if (!SqlErrors.isConflict(e)) {
        throw conns.translate("commit to table(s) " + paths(tables), e, paths(tables));
      }
      rollbackQuietly(conn);
      if (lease != null) {
        Optional<LeaseLostException> lost = leases.lostAfterConflict(conn, lease);
        if (lost.isPresent()) {
          throw lost.get();
        }
      }
      throw conflict(parts, e);
    }
  }

  /** Adds the statements writing {@code rows} to table {@code h}. */
  private void addTable(Connection conn, TableHandle h, LinkedHashMap<TableKey, PostgresTransaction.Staged> rows,
      List<Part> parts) throws SQLException {
    List<TableKey> upsertKeys = new ArrayList<>(rows.size());
    List<List<Object>> upsertValues = new ArrayList<>(rows.size());
    int[] crcs = new int[rows.size()];
    List<TableKey> deletes = new ArrayList<>();
    for (Map.Entry<TableKey, PostgresTransaction.Staged> w : rows.entrySet()) {
      PostgresTransaction.Staged staged = w.getValue();
      if (staged.values() != null) {
        crcs[upsertKeys.size()] = staged.crc();
        upsertKeys.add(w.getKey());
        upsertValues.add(staged.values());
      } else {
        deletes.add(w.getKey());
      }
    }
    for (int from = 0; from < upsertKeys.size(); from += PostgresTableStore.CHUNK) {
      int to = Math.min(upsertKeys.size(), from + PostgresTableStore.CHUNK);
      List<TableKey> chunk = upsertKeys.subList(from, to);
      parts.add(new Part(Kind.UPSERT, h.pg.upsertSql(), h.pg.rowArrays(conn, chunk, upsertValues.subList(from, to),
          Arrays.copyOfRange(crcs, from, to)), h, chunk));
    }
    for (int from = 0; from < deletes.size(); from += PostgresTableStore.CHUNK) {
      List<TableKey> chunk = deletes.subList(from, Math.min(deletes.size(), from + PostgresTableStore.CHUNK));
      // the probe deletes the rows and inserts a placeholder for each key without one (so that a row inserted by a
      // transaction committed after the snapshot conflicts); the second statement removes the placeholders
      parts.add(new Part(Kind.DELETE_PROBE, h.pg.deleteProbeSql(), h.pg.keyArrays(conn, chunk), h, chunk));
      parts.add(new Part(Kind.DELETE, h.pg.deleteSql(), h.pg.keyArrays(conn, chunk), h, chunk));
    }
  }

  /** Checks the result of statement {@code p} ({@code rs} null for an update count). */
  private void check(Part p, ResultSet rs, Lease lease) throws SQLException {
    if (p.kind() == Kind.DELETE) {
      return;
    }
    try (ResultSet r = rs) {
      if (p.kind() == Kind.LEASE) {
        leases.checkAtCommit(r, lease);
        return;
      }
      r.next();
      long first = r.getLong(1);
      long second = r.getLong(2);
      if (p.kind() == Kind.UPSERT && first + second != p.keys().size()) {
        throw new StoreException("PostgreSQL commit to table " + p.table().path() + " at " + conns.endpoint + ": of "
            + p.keys().size() + " rows " + first + " were updated and " + second + " inserted; the others were "
            + "neither (this is a bug of the store); nothing was applied", null, false,
            ErrorContext.of(p.table().path(), null));
      }
    }
  }

  private static String paths(List<Map.Entry<TableHandle, LinkedHashMap<TableKey, PostgresTransaction.Staged>>> t) {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<TableHandle, ?> e : t) {
      sb.append(sb.length() == 0 ? "" : ", ").append(e.getKey().path());
    }
    return sb.toString();
  }

  /**
   * A write-write conflict in the commit's batch, while the lease (if any) is still held: the server does not say
   * which statement failed, so the exception names every table the batch writes, the first key of each and the
   * number of rows.
   */
  private CommitConflictException conflict(List<Part> parts, SQLException e) {
    StringBuilder which = new StringBuilder();
    TableHandle firstTable = null;
    TableKey firstKey = null;
    TableHandle last = null;
    int rows = 0;
    for (Part p : parts) {
      if (p.table() == null || p.kind() == Kind.DELETE) {
        continue;
      }
      rows += p.keys().size();
      if (p.table() != last) {
        List<TableKey> keys = p.keys();
        which.append(which.length() == 0 ? "" : ", ").append(p.table().path()).append(" (key ")
            .append(keys.get(0).describeParts());
        if (keys.size() > 1) {
          which.append(" or another of the ").append(keys.size()).append(" rows this transaction writes there: ");
          for (int i = 1; i < Math.min(keys.size(), 6); i++) {
            which.append(i == 1 ? "" : ", ").append(keys.get(i).describeParts());
          }
          which.append(keys.size() > 6 ? ", ..." : "");
        }
        which.append(')');
        last = p.table();
      }
      if (firstTable == null) {
        firstTable = p.table();
        firstKey = p.keys().get(0);
      }
    }
    String table = firstTable == null ? null : firstTable.path();
    CommitConflictException conflict = new CommitConflictException("Commit conflict on table " + which + " in "
        + description + ": a row this transaction writes (" + rows + " rows) was written by a transaction that "
        + "committed after this one began (" + e.getMessage().replace('\n', ' ') + "); nothing of this transaction "
        + "was applied", table, firstKey == null ? null : firstKey.describeParts());
    conflict.addSuppressed(e);
    return conflict;
  }

}
