package io.epochal.store.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.store.table.CommitProtocol;
import io.epochal.testkit.process.ChildJvm;
import io.epochal.testkit.process.CrashWordCount;
import io.epochal.testkit.process.FencingWorkload;
import io.epochal.store.table.Lease;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * Fencing across real processes sharing one PostgreSQL store. The first two tests pit a writer in a child JVM
 * ({@link FencingWorker}) against a takeover by this JVM: the writer's next commit must fail with
 * {@code LeaseLostException} and nothing it wrote under the lost lease may be visible. The last runs two word-count
 * worker processes ({@link WordCountWorker}) on one pipeline: the second takes the pipeline's lease over while the
 * first is running, the first is fenced (its epoch commit fails, changing nothing, and its pipeline stops), the
 * second resumes exactly where the first's last acknowledged commit left off and finishes with exact counts.
 */
class PostgresFencingIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private final TestPostgres pg = TestPostgres.get();

  private List<String> workerArgs(String mode, String schema) {
    return List.of(mode, pg.jdbcUrl(), TestPostgres.USER, TestPostgres.PASSWORD, schema);
  }

  @Test
  void shouldFenceAStagedCommitOfAnotherProcess() throws Exception {
    String schema = pg.freshSchema("fence_hold");
    try (ChildJvm a = ChildJvm.start(FencingWorker.class, workerArgs("hold", schema));
        PostgresTableStore store = pg.store(schema).build()) {
      String ready = a.awaitLine(l -> l.startsWith("READY "), TIMEOUT);
      assertNotNull(ready, () -> "worker A did not start: " + a.stderr());
      long genA = Long.parseLong(ready.substring("READY ".length()));

      Lease b = store.acquireLease(FencingWorkload.LEASE, "worker-b");
      assertEquals(genA + 1, b.generation());
      a.send("GO");
      String outcome = a.awaitLine(l -> l.startsWith("FENCED ") || l.startsWith("C "), TIMEOUT);
      assertNotNull(outcome, () -> "worker A reported nothing: " + a.stderr());
      assertTrue(outcome.startsWith("FENCED 1 "), "A's commit after the takeover must be refused: " + outcome);
      assertTrue(outcome.contains("worker-b") && outcome.contains("generation " + b.generation()), outcome);
      assertNotNull(a.awaitLine("CLOSED"::equals, TIMEOUT), a::stderr);
      assertEquals(0, a.waitFor(TIMEOUT), a::stderr);

      Table counter = store.openTable(FencingWorkload.counter());
      Table log = store.openTable(FencingWorkload.log());
      try (StoreTransaction tx = store.begin(b)) {
        assertEquals(1L, tx.lookup(counter, List.of(counter.schema().key("before"))).get(0).orElseThrow()
            .getLong("n"), "A's commit under its valid lease must stay");
        assertEquals(Optional.empty(), tx.lookup(counter, List.of(counter.schema().key("after"))).get(0),
            "A's fenced commit must change nothing");
        assertEquals(List.of(), tx.scan(log), "A's fenced commit must change nothing in any table");
        tx.upsert(counter, Row.of(counter.schema().key("after"), 20L));
        tx.commit();
      }
      assertEquals(20L, store.lookup(counter, List.of(counter.schema().key("after"))).get(0).orElseThrow()
          .getLong("n"));
    }
  }

  @Test
  void shouldFenceAWriterOfAnotherProcessInTheMiddleOfAStreamOfCommits() throws Exception {
    for (int round = 0; round < 3; round++) {
      String schema = pg.freshSchema("fence_stream");
      try (ChildJvm a = ChildJvm.start(FencingWorker.class, workerArgs("stream", schema));
          PostgresTableStore store = pg.store(schema).build()) {
        assertNotNull(a.awaitLine(l -> l.startsWith("READY "), TIMEOUT), a::stderr);
        int warmup = 20 + ThreadLocalRandom.current().nextInt(200);
        assertNotNull(a.awaitLine(("C " + warmup)::equals, TIMEOUT), a::stderr);
        Thread.sleep(ThreadLocalRandom.current().nextInt(20));
        Lease b = store.acquireLease(FencingWorkload.LEASE, "worker-b");

        String fenced = a.awaitLine(l -> l.startsWith("FENCED "), TIMEOUT);
        assertNotNull(fenced, a::stderr);
        long refused = Long.parseLong(fenced.split(" ")[1]);
        long lastAcknowledged = refused - 1;
        assertTrue(lastAcknowledged >= warmup, fenced);
        assertNotNull(a.awaitLine("CLOSED"::equals, TIMEOUT), a::stderr);
        assertEquals(0, a.waitFor(TIMEOUT), a::stderr);

        Table counter = store.openTable(FencingWorkload.counter());
        Table log = store.openTable(FencingWorkload.log());
        try (StoreTransaction tx = store.begin(b)) {
          assertEquals(lastAcknowledged, tx.lookup(counter, List.of(counter.schema().key("n"))).get(0)
              .orElseThrow().getLong("n"), "every acknowledged commit and nothing after the takeover");
          List<Row> rows = tx.scan(log);
          assertEquals(lastAcknowledged, rows.size(), "log rows: " + rows.size());
          assertEquals(Optional.empty(), tx.lookup(log, List.of(log.schema().key(refused))).get(0));
          tx.upsert(counter, Row.of(counter.schema().key("n"), -1L));
          tx.commit();
        }
      }
    }
  }

  @Test
  void shouldLetASecondWorkerProcessTakeOverARunningPipelineAndFenceTheFirst() throws Exception {
    long seed = System.nanoTime();
    String schema = pg.freshSchema("fence_pipeline");
    long sentences = 20_000;
    CrashWordCount.Check check = new CrashWordCount.Check(() -> pg.store(schema).build(), seed, CommitProtocol.EPOCH);
    // A commits at most ~50 batches a second (it pauses after each), so it is far from done when B takes over.
    try (ChildJvm a = ChildJvm.start(WordCountWorker.class,
        WordCountWorker.args(pg, schema, seed, sentences, 50, CommitProtocol.EPOCH, 20))) {
      int warmup = 5 + ThreadLocalRandom.current().nextInt(30);
      assertNotNull(a.awaitLine(l -> l.startsWith("C " + warmup + " "), TIMEOUT), a::stderr);
      long[] lastCommit = {warmup};
      try (ChildJvm b = ChildJvm.start(WordCountWorker.class,
          WordCountWorker.args(pg, schema, seed, sentences, 50, CommitProtocol.EPOCH, 0))) {
        String fenced = a.awaitLine(l -> {
          if (l.startsWith("C ")) {
            lastCommit[0] = Long.parseLong(l.split(" ")[1]);
          }
          return l.startsWith("FENCED ");
        }, TIMEOUT);
        assertNotNull(fenced, () -> "worker A was not fenced: " + a.stderr() + "\nB: " + b.stderr());
        assertTrue(fenced.contains("was taken over by generation") && fenced.contains("wordcount-pid-"), fenced);
        long acknowledged = Long.parseLong(fenced.split(" ")[1]);
        assertEquals(lastCommit[0], acknowledged, "A's pipeline reports its last commit");
        assertTrue(acknowledged < sentences / 50, "A was fenced before it finished: " + fenced);
        assertNotNull(a.awaitLine("CLOSED"::equals, TIMEOUT), a::stderr);
        assertEquals(3, a.waitFor(TIMEOUT), a::stderr);

        String ready = b.awaitLine(l -> l.startsWith("READY "), TIMEOUT);
        assertNotNull(ready, b::stderr);
        assertEquals(acknowledged, Long.parseLong(ready.split(" ")[1]),
            "B resumes after A's last acknowledged commit: A's fenced commit changed nothing");
        assertNotNull(b.awaitLine(l -> l.startsWith("DONE "), TIMEOUT), b::stderr);
        assertEquals(0, b.waitFor(TIMEOUT), b::stderr);
        System.out.printf("PostgresFencingIT: worker A fenced after txid %d of %d (%s); worker B resumed there and "
            + "finished%n", acknowledged, sentences / 50, fenced.substring(fenced.indexOf(' ', 7) + 1));
      }
    }
    CrashWordCount.Progress done = check.verify();
    assertEquals(sentences, done.end(), "B must consume the whole input");
    assertEquals(sentences / 50, done.txid());
  }
}
