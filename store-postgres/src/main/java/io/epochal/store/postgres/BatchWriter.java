package io.epochal.store.postgres;

import static io.epochal.store.postgres.RowLookup.bind;

import io.epochal.errors.CommitConflictException;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.StoreException;
import io.epochal.store.postgres.internal.SqlErrors;
import io.epochal.store.table.TableKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The batched writes of a commit of a {@link PostgresTableStore}: per table and chunk of at most
 * {@link PostgresTableStore#CHUNK} rows, one statement for the upserts (an {@code UPDATE} of the rows the snapshot
 * sees and an {@code INSERT ... ON CONFLICT DO NOTHING} of the others, over arrays) and one for the deletes; a
 * serialization failure is reported as {@link CommitConflictException} naming the table and key. Thread-safe
 * (stateless apart from its settings; each call uses the transaction's connection).
 */
final class BatchWriter {
  private final PgConnections conns;
  /** The store's {@link PostgresTableStore#describe()}, for messages. */
  private final String description;

  BatchWriter(PgConnections conns, String description) {
    this.conns = conns;
    this.description = description;
  }

  /**
   * Writes one table's rows: per chunk one statement for the upserts, one for the deletes (plus one more if some
   * deleted keys had no row). Write-write conflicts fail a statement with a serialization failure.
   */
  void write(Connection conn, TableHandle h, LinkedHashMap<TableKey, PostgresTransaction.Staged> rows) {
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
      long[] counts;
      try (PreparedStatement ps = conn.prepareStatement(h.pg.upsertSql())) {
        bind(ps, h.pg.rowArrays(conn, chunk, upsertValues.subList(from, to), Arrays.copyOfRange(crcs, from, to)));
        counts = twoCounts(ps);
      } catch (SQLException e) {
        throw failure(h, chunk, e);
      }
      if (counts[0] + counts[1] != chunk.size()) {
        throw new StoreException("PostgreSQL commit to table " + h.path() + " at " + conns.endpoint + ": of "
            + chunk.size() + " rows " + counts[0] + " were updated and " + counts[1] + " inserted; the others were "
            + "neither (this is a bug of the store); nothing was applied", null, false,
            ErrorContext.of(h.path(), null));
      }
    }
    for (int from = 0; from < deletes.size(); from += PostgresTableStore.CHUNK) {
      List<TableKey> chunk = deletes.subList(from, Math.min(deletes.size(), from + PostgresTableStore.CHUNK));
      try {
        long[] counts;
        try (PreparedStatement ps = conn.prepareStatement(h.pg.deleteProbeSql())) {
          bind(ps, h.pg.keyArrays(conn, chunk));
          counts = twoCounts(ps);
        }
        if (counts[1] > 0) {
          try (PreparedStatement ps = conn.prepareStatement(h.pg.deleteSql())) {
            bind(ps, h.pg.keyArrays(conn, chunk));
            ps.executeUpdate();
          }
        }
      } catch (SQLException e) {
        throw failure(h, chunk, e);
      }
    }
  }

  private static long[] twoCounts(PreparedStatement ps) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      rs.next();
      return new long[] {rs.getLong(1), rs.getLong(2)};
    }
  }

  /** A failed statement of the commit: a conflict, or a store failure. */
  private RuntimeException failure(TableHandle h, List<TableKey> keys, SQLException e) {
    if (!SqlErrors.isConflict(e)) {
      return conns.translate("commit to table " + h.path(), e, h.path());
    }
    TableKey first = keys.get(0);
    StringBuilder which = new StringBuilder("key ").append(first.describeParts()).append(" (").append(first)
        .append(')');
    if (keys.size() > 1) {
      which.append(" or another of the ").append(keys.size()).append(" rows this transaction writes there (");
      for (int i = 1; i < Math.min(keys.size(), 6); i++) {
        which.append(i == 1 ? "" : ", ").append(keys.get(i).describeParts());
      }
      which.append(keys.size() > 6 ? ", ...)" : ")");
    }
    CommitConflictException conflict = new CommitConflictException("Commit conflict on table " + h.path() + " "
        + which + " in " + description + ": the row was written by a transaction that committed after this one "
        + "began (" + e.getMessage().replace('\n', ' ') + "); nothing of this transaction was applied", h.path(),
        first.describeParts());
    conflict.addSuppressed(e);
    return conflict;
  }
}
