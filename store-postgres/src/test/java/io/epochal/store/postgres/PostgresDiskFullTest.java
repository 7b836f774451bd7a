package io.epochal.store.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.epochal.errors.EpochalException;
import io.epochal.errors.StoreException;
import io.epochal.store.postgres.internal.SqlErrors;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableSchema;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A really full disk: the store's tables live in a tablespace on a 2 MB tmpfs (made with {@code mount}, so this test
 * runs only as root where mounting is allowed, and is skipped elsewhere; {@code SqlErrorsTest} checks the mapping of
 * SQLState 53100 everywhere). Commits of incompressible rows fill it until PostgreSQL fails with "could not extend
 * file ... No space left on device": the store must report a non-retryable {@link StoreException} that says to free
 * disk space, apply nothing of the failed commit, and keep serving reads.
 */
class PostgresDiskFullTest {
  private final TestPostgres pg = TestPostgres.get();

  @Test
  void shouldReportAFullDiskAsNotRetryableAndApplyNothing() throws Exception {
    assumeTrue("root".equals(System.getProperty("user.name")), "mounting a tmpfs needs root");
    Path dir = Files.createTempDirectory("epochal-pg-full-");
    int uid = serverUid();
    assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=2m,uid=" + uid + ",mode=0700", "tmpfs", dir.toString()) == 0,
        "cannot mount a tmpfs here");
    String schema = pg.freshSchema("full");
    String tablespace = schema + "_ts";
    String user = schema + "_user";
    try {
      pg.sql("CREATE TABLESPACE " + tablespace + " LOCATION '" + dir + "'",
          "CREATE ROLE " + user + " LOGIN PASSWORD 'pw'",
          "GRANT CREATE ON DATABASE " + TestPostgres.DATABASE + " TO " + user,
          "GRANT CREATE ON TABLESPACE " + tablespace + " TO " + user,
          "ALTER ROLE " + user + " SET default_tablespace = " + tablespace);
      try (PostgresTableStore store = PostgresTableStore.builder(pg.jdbcUrl()).user(user).password("pw")
          .schema(schema).poolSize(2).build()) {
        TableSchema blobs = TableSchema.builder("blobs").key("i", ColumnType.INT64).value("b", ColumnType.BYTES)
            .build();
        Table t = store.openTable(blobs);
        Random random = new Random(1);
        StoreException full = null;
        int committed = 0;
        for (int batch = 0; batch < 100 && full == null; batch++) {
          List<Row> rows = new ArrayList<>();
          for (int i = 0; i < 16; i++) {
            byte[] b = new byte[16 * 1024];
            random.nextBytes(b);
            rows.add(Row.of(blobs.key((long) batch * 16 + i), b));
          }
          try (StoreTransaction tx = store.begin()) {
            tx.upsert(t, rows);
            tx.commit();
            committed = batch + 1;
          } catch (StoreException e) {
            full = e;
          }
        }
        assertTrue(full != null, "2 MB cannot hold 100 batches of 256 KB");
        StoreException e = full;
        System.out.println("PostgresDiskFullTest: after " + committed + " commits: " + e.getMessage());
        assertEquals("53100", SqlErrors.sqlState(e), e.getMessage());
        assertFalse(e.retryable(), e.getMessage());
        assertFalse(EpochalException.isRetryable(e));
        assertTrue(e.getMessage().contains("out of disk space") && e.getMessage().contains("Free disk space"),
            e.getMessage());
        assertTrue(committed > 0, "some batches fit before the disk filled up");
        assertEquals(Optional.empty(), store.lookup(t, List.of(blobs.key((long) committed * 16))).get(0),
            "nothing of the failed commit is applied");
        assertTrue(store.lookup(t, List.of(blobs.key(0L))).get(0).isPresent(), "committed rows stay readable");
      }
    } finally {
      pg.sql("DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
      pg.sql("DROP TABLESPACE IF EXISTS " + tablespace);
      pg.sql("DROP OWNED BY " + user, "DROP ROLE IF EXISTS " + user);
      if (run("umount", dir.toString()) != 0) {
        run("umount", "-l", dir.toString());
      }
      Files.deleteIfExists(dir);
    }
  }

  /** @return the uid the PostgreSQL server runs as (owner of its data directory) */
  private int serverUid() throws Exception {
    try (Connection c = pg.admin().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT current_setting('data_directory')")) {
      rs.next();
      return (Integer) Files.getAttribute(Path.of(rs.getString(1)), "unix:uid");
    }
  }

  private static int run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return -1;
    }
    return p.exitValue();
  }
}
