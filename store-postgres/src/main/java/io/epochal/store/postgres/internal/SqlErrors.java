package io.epochal.store.postgres.internal;

import io.epochal.errors.ErrorContext;
import io.epochal.errors.StoreException;
import java.sql.SQLException;

/**
 * Turns JDBC failures into Epochal's typed errors, by SQLState (the first one found in the cause chain, so failures
 * wrapped by the connection pool are recognised too). Stateless and thread-safe.
 *
 * <ul>
 *   <li>{@code 28P01}, {@code 28000} (authentication): not retryable; says to check the user and password;</li>
 *   <li>{@code 53100} (disk full): not retryable; says to free disk space on the server;</li>
 *   <li>{@code 3D000} (no such database), {@code 42501} (permission denied), {@code 25006} (read-only server): not
 *       retryable, with what to fix;</li>
 *   <li>{@code 08xxx} (connection), {@code 57P0x} (server shutting down or starting), {@code 53300} (too many
 *       connections), a pool time-out: retryable, naming {@code host:port};</li>
 *   <li>anything else: retryable unless the cause chain holds an I/O failure no retry fixes
 *       ({@link StoreException#StoreException(String, Throwable)}).</li>
 * </ul>
 * Serialization failures ({@code 40001}) and deadlocks ({@code 40P01}) are recognised by {@link #isConflict} and
 * reported by the store itself as {@link io.epochal.errors.CommitConflictException}.
 */
public final class SqlErrors {
  private SqlErrors() {
  }

  /**
   * Finds the SQLState of a failure, looking through at most 32 causes.
   *
   * @param failure a JDBC failure, possibly wrapped (e.g. by the connection pool)
   * @return the first SQLState in {@code failure}'s cause chain, or null if no {@link SQLException} in it has one
   */
  public static String sqlState(Throwable failure) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < 32; t = t.getCause(), depth++) {
      if (t instanceof SQLException e && e.getSQLState() != null) {
        return e.getSQLState();
      }
    }
    return null;
  }

  /**
   * Tells whether a failure is a write-write conflict, which the store reports as a commit conflict.
   *
   * @param failure a JDBC failure, possibly wrapped
   * @return whether {@code failure} is a serialization failure ({@code 40001}) or a deadlock ({@code 40P01})
   */
  public static boolean isConflict(Throwable failure) {
    String state = sqlState(failure);
    return "40001".equals(state) || "40P01".equals(state);
  }

  /**
   * Tells whether a failure comes from the connection rather than from the statement.
   *
   * @param failure a JDBC failure, possibly wrapped
   * @return whether {@code failure} says the connection to the server broke or could not be made (SQLState
   *     {@code 08xxx}) or the server is shutting down or starting ({@code 57Pxx})
   */
  public static boolean isConnectionFailure(Throwable failure) {
    String state = sqlState(failure);
    return state != null && (state.startsWith("08") || state.startsWith("57P"));
  }

  /**
   * Turns a JDBC failure into the typed error the store throws, by the rules of the class comment.
   *
   * @param doing what the store was doing, naming the table where one applies (e.g. "commit to table counts")
   * @param failure the JDBC (or pool) failure
   * @param endpoint {@code host:port/database} of the server
   * @param user the database user, for authentication messages
   * @param table the table's path, or null
   * @return the typed error to throw
   */
  public static StoreException translate(String doing, Throwable failure, String endpoint, String user,
      String table) {
    String state = sqlState(failure);
    String native_ = nativeMessage(failure);
    ErrorContext context = table == null ? ErrorContext.of(endpoint, null) : ErrorContext.of(table, null);
    String prefix = "PostgreSQL " + doing + " failed at " + endpoint + ": ";
    if (state == null) {
      if (failure instanceof java.sql.SQLTransientConnectionException || native_.contains("request timed out")) {
        return new StoreException(prefix + "no connection came free in time (" + native_ + "): more store "
            + "transactions are open at once than the pool has connections; close finished transactions or raise "
            + "poolSize. Retrying may succeed.", failure, true, context);
      }
      return new StoreException(prefix + native_, failure);
    }
    switch (state) {
      case "28P01", "28000":
        return new StoreException(prefix + "the server refused the login of user '" + user + "' (" + native_
            + ", SQLState " + state + "). Check the user and password (PostgresTableStore.builder(..).user(..)"
            + ".password(..) or the JDBC URL) and the server's pg_hba.conf; no retry can fix this.", failure, false,
            context);
      case "53100":
        return new StoreException(prefix + "the server is out of disk space (" + native_ + ", SQLState 53100). "
            + "Free disk space on the PostgreSQL server (or move its data or tablespace), then restart; no retry "
            + "can fix this. Nothing of the failed transaction was applied.", failure, false, context);
      case "3D000":
        return new StoreException(prefix + native_ + " (SQLState 3D000). Create the database or fix the JDBC URL; "
            + "no retry can fix this.", failure, false, context);
      case "42501":
        return new StoreException(prefix + native_ + " (SQLState 42501). Grant user '" + user + "' the privileges "
            + "on the store's schema (USAGE, CREATE and table privileges); no retry can fix this.", failure, false,
            context);
      case "25006":
        return new StoreException(prefix + native_ + " (SQLState 25006): the server is read-only (a standby?). "
            + "Point the JDBC URL at the primary (e.g. targetServerType=primary); no retry can fix this.", failure,
            false, context);
      case "53300":
        return new StoreException(prefix + "the server has no free connection slot (" + native_ + "); raise "
            + "max_connections or lower poolSize. Retrying may succeed.", failure, true, context);
      default:
        break;
    }
    if (state.startsWith("08")) {
      return new StoreException(prefix + "cannot reach the server (" + native_ + ", SQLState " + state + "). Is "
          + "PostgreSQL running and reachable at " + endpoint + "? Retrying may succeed.", failure, true, context);
    }
    if (state.startsWith("57P")) {
      return new StoreException(prefix + "the server is shutting down, starting or restarting (" + native_
          + ", SQLState " + state + "). Retrying may succeed.", failure, true, context);
    }
    return new StoreException(prefix + native_ + " (SQLState " + state + ")", failure);
  }

  /** @return the innermost SQL message of the chain, else the outermost message */
  private static String nativeMessage(Throwable failure) {
    String found = null;
    int depth = 0;
    for (Throwable t = failure; t != null && depth < 32; t = t.getCause(), depth++) {
      if (t instanceof SQLException && t.getMessage() != null) {
        found = t.getMessage();
        if (((SQLException) t).getSQLState() != null) {
          break;
        }
      }
    }
    if (found == null) {
      found = String.valueOf(failure.getMessage());
    }
    return found.replace('\n', ' ').trim();
  }
}
