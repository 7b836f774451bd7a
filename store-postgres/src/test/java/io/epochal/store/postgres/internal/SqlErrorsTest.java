package io.epochal.store.postgres.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.StoreException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/** The SQLState mapping, with the driver's own exception types (the server tests reach most of them for real). */
class SqlErrorsTest {
  private static PSQLException server(String state, String message) {
    return new PSQLException(new ServerErrorMessage("SERROR\0C" + state + "\0M" + message + "\0"));
  }

  private static StoreException translate(Throwable e) {
    return SqlErrors.translate("commit to table counts", e, "db.example:5432/app", "alice", "counts");
  }

  @Test
  void shouldReportAFullDiskAsNotRetryableSayingToFreeSpace() {
    StoreException e = translate(server("53100",
        "could not extend file \"base/1/2\": No space left on device"));
    assertFalse(e.retryable());
    assertTrue(e.getMessage().contains("out of disk space") && e.getMessage().contains("Free disk space"),
        e.getMessage());
    assertTrue(e.getMessage().contains("db.example:5432/app"), e.getMessage());
    assertEquals(java.util.Optional.of("counts"), e.context().table());
  }

  @Test
  void shouldReportRefusedLoginsAsNotRetryable() {
    for (String state : new String[] {"28P01", "28000"}) {
      StoreException e = translate(server(state, "password authentication failed for user \"alice\""));
      assertFalse(e.retryable(), state);
      assertTrue(e.getMessage().contains("Check the user and password") && e.getMessage().contains("'alice'"),
          e.getMessage());
    }
  }

  @Test
  void shouldReportConnectionFailuresAsRetryableNamingTheServer() {
    StoreException e = translate(new PSQLException("Connection to db.example:5432 refused.",
        org.postgresql.util.PSQLState.CONNECTION_UNABLE_TO_CONNECT));
    assertTrue(e.retryable());
    assertTrue(e.getMessage().contains("cannot reach") && e.getMessage().contains("db.example:5432"),
        e.getMessage());
    SQLTransientConnectionException pooled = new SQLTransientConnectionException("pool - Connection is not "
        + "available, request timed out after 500ms", "08001", new PSQLException("refused",
        org.postgresql.util.PSQLState.CONNECTION_UNABLE_TO_CONNECT));
    assertTrue(translate(pooled).retryable());
    assertTrue(translate(server("57P01", "terminating connection due to administrator command")).retryable());
    assertTrue(translate(server("53300", "too many clients")).retryable());
  }

  @Test
  void shouldReportAnExhaustedPoolAsRetryable() {
    StoreException e = translate(new SQLTransientConnectionException("pool - Connection is not available, request "
        + "timed out after 500ms (total=1, active=1, idle=0, waiting=0)"));
    assertTrue(e.retryable());
    assertTrue(e.getMessage().contains("poolSize"), e.getMessage());
  }

  @Test
  void shouldReportConfigurationProblemsAsNotRetryable() {
    assertFalse(translate(server("3D000", "database \"app\" does not exist")).retryable());
    assertFalse(translate(server("42501", "permission denied for schema epochal")).retryable());
    assertFalse(translate(server("25006", "cannot execute INSERT in a read-only transaction")).retryable());
  }

  @Test
  void shouldFindTheSqlStateAnywhereInTheChainAndRecognizeConflicts() {
    PSQLException conflict = server("40001", "could not serialize access due to concurrent update");
    RuntimeException wrapped = new RuntimeException("wrapper", conflict);
    assertEquals("40001", SqlErrors.sqlState(wrapped));
    assertTrue(SqlErrors.isConflict(wrapped));
    assertTrue(SqlErrors.isConflict(server("40P01", "deadlock detected")));
    assertFalse(SqlErrors.isConflict(server("23505", "duplicate key")));
    assertNull(SqlErrors.sqlState(new RuntimeException("no state")));
    StoreException other = translate(server("XX000", "internal error"));
    assertTrue(other.retryable());
    assertSame(server("XX000", "x").getClass(), other.getCause().getClass());
  }
}
