package io.epochal.store.postgres;

import io.epochal.errors.LeaseLostException;
import io.epochal.store.table.Lease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leases of a {@link PostgresTableStore} (see <i>Leases and fencing</i> of its documentation), one row each in
 * {@code epochal_leases}: takes a lease over in one statement, checks it at the beginning of a transaction (in its
 * snapshot) and at its commit ({@code FOR SHARE}, so a takeover waits for the commit). Thread-safe.
 */
final class PgLeases {
  private static final Logger LOG = LoggerFactory.getLogger(PostgresTableStore.class);

  private final PgConnections conns;
  private final String qs;
  /** The store's {@link PostgresTableStore#describe()}, for messages. */
  private final String description;

  /** @param qs the quoted PostgreSQL schema holding {@code epochal_leases} */
  PgLeases(PgConnections conns, String qs, String description) {
    this.conns = conns;
    this.qs = qs;
    this.description = description;
  }

  /**
   * {@link PostgresTableStore#acquireLease}: increments the generation of lease {@code name} (creating it at 1) for
   * {@code owner}.
   */
  Lease acquire(String name, String owner) {
    long generation = conns.withConnection("take over lease '" + name + "'", null, c -> {
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + qs + ".epochal_leases AS l (name, generation,"
          + " owner) VALUES (?, 1, ?) ON CONFLICT (name) DO UPDATE SET generation = l.generation + 1, owner = "
          + "EXCLUDED.owner, acquired_at = now() RETURNING generation")) {
        ps.setString(1, name);
        ps.setString(2, owner);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return rs.getLong(1);
        }
      }
    });
    Lease lease = new Lease(name, owner, generation);
    LOG.debug("took over {}", lease);
    return lease;
  }

  /**
   * Begins a transaction on {@code c} under {@code lease} with {@code beginLeaseSql} (which reads the lease row in
   * the new snapshot) and checks the lease.
   *
   * @throws IllegalArgumentException if this store never issued the lease's generation
   * @throws LeaseLostException if it was taken over already
   */
  void beginUnder(Connection c, String beginLeaseSql, Lease lease) throws SQLException {
    long[] current = null;
    String owner = null;
    try (PreparedStatement ps = c.prepareStatement(beginLeaseSql)) {
      ps.setString(1, lease.name());
      boolean isResult = ps.execute();
      while (true) {
        if (isResult) {
          try (ResultSet rs = ps.getResultSet()) {
            if (rs.next()) {
              current = new long[] {rs.getLong(1)};
              owner = rs.getString(2);
            }
          }
        } else if (ps.getUpdateCount() == -1) {
          break;
        }
        isResult = ps.getMoreResults();
      }
    }
    if (current == null || lease.generation() > current[0]) {
      throw new IllegalArgumentException(lease + " was not issued by " + description + " (its current "
          + "generation of lease '" + lease.name() + "' is " + (current == null ? "none" : current[0]) + ")");
    }
    if (lease.generation() < current[0]) {
      throw leaseLost(lease, current[0], owner, "Cannot begin a transaction");
    }
  }

  /**
   * The commit's lease check, the first statement of the commit's statement batch: reads the lease row (bind its
   * name) {@code FOR SHARE} in the transaction, so that a takeover waits for the commit; a takeover committed after
   * the snapshot fails the statement with a serialization failure.
   */
  String checkAtCommitSql() {
    return "SELECT generation, owner FROM " + qs + ".epochal_leases WHERE name = ? FOR SHARE";
  }

  /**
   * Checks the result of {@link #checkAtCommitSql()}.
   *
   * @throws LeaseLostException if the row shows another generation (taken over before the snapshot)
   */
  void checkAtCommit(ResultSet rs, Lease lease) throws SQLException {
    if (!rs.next()) {
      throw new IllegalStateException("lease '" + lease.name() + "' is missing from " + description
          + " although " + lease + " was issued by it");
    }
    long generation = rs.getLong(1);
    if (generation != lease.generation()) {
      throw leaseLost(lease, generation, rs.getString(2), "Commit refused");
    }
  }

  /**
   * After the commit's statement batch failed with a serialization failure and {@code conn} was rolled back: reads
   * the lease row anew and returns the {@link LeaseLostException} to throw if {@code lease} was taken over (the
   * failure was the lease check's, or the writer is fenced anyway), or empty if the lease is still held (the failure
   * was a write-write conflict on a row).
   */
  Optional<LeaseLostException> lostAfterConflict(Connection conn, Lease lease) {
    try (PreparedStatement ps = conn.prepareStatement("SELECT generation, owner FROM " + qs
        + ".epochal_leases WHERE name = ?")) {
      ps.setString(1, lease.name());
      try (ResultSet rs = ps.executeQuery()) {
        String generation = "?";
        String holder = "another worker";
        if (rs.next()) {
          if (rs.getLong(1) == lease.generation()) {
            return Optional.empty();
          }
          generation = Long.toString(rs.getLong(1));
          holder = rs.getString(2);
        }
        return Optional.of(new LeaseLostException("Commit refused: " + lease + " was taken over by generation "
            + generation + " held by " + holder + " while this transaction ran (" + description + "); this writer "
            + "is fenced off and nothing it wrote was applied"));
      }
    } catch (SQLException e) {
      throw conns.translate("lease check of '" + lease.name() + "' after a failed commit", e, null);
    }
  }

  private LeaseLostException leaseLost(Lease lease, long generation, String owner, String what) {
    return new LeaseLostException(what + ": " + lease + " was taken over by generation " + generation + " held by "
        + owner + " (" + description + "); this writer is fenced off and nothing it wrote was applied");
  }
}
