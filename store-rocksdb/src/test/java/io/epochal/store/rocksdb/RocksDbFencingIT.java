package io.epochal.store.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.StoreException;
import io.epochal.store.table.CommitProtocol;
import io.epochal.store.table.Lease;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.testkit.process.ChildJvm;
import io.epochal.testkit.process.CrashWordCount;
import io.epochal.testkit.process.FencingWorkload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fencing across two real processes on one state directory: worker A ({@link FencingWorker}, a child JVM) holds the
 * directory open and writes under its lease; worker B (this test's JVM) takes the lease over through the lease file
 * while A still holds the database, which RocksDB lets only one process open. A's next commit must fail with
 * {@code LeaseLostException}, nothing it wrote under the lost lease may be visible, and B, opening the directory
 * once A let go, commits under its lease. The last test does the same to a running word-count pipeline: its epoch
 * commit fails with {@code LeaseLostException}, the pipeline stops and releases the directory, the committed state
 * is exactly A's last acknowledged epoch, and a new worker finishes the input with exact counts.
 */
class RocksDbFencingIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @TempDir
  Path dir;

  @Test
  void shouldFenceAStagedCommitOfAnotherProcess() throws Exception {
    try (ChildJvm a = RocksChildJvms.start(FencingWorker.class, List.of("hold", dir.toString()))) {
      String ready = a.awaitLine(l -> l.startsWith("READY "), TIMEOUT);
      assertNotNull(ready, () -> "worker A did not start: " + a.stderr());
      long genA = Long.parseLong(ready.substring("READY ".length()));

      StoreException busy = assertThrows(StoreException.class, () -> RocksDbTableStore.builder(dir).build(),
          "RocksDB must refuse a second process while A holds the directory");
      assertTrue(busy.getMessage().contains("open in another process"), busy.getMessage());

      Lease b = RocksDbTableStore.takeOverLease(dir, FencingWorkload.LEASE, "worker-b");
      assertEquals(genA + 1, b.generation());
      a.send("GO");
      String outcome = a.awaitLine(l -> l.startsWith("FENCED ") || l.startsWith("C "), TIMEOUT);
      assertNotNull(outcome, () -> "worker A reported nothing: " + a.stderr());
      assertTrue(outcome.startsWith("FENCED 1 "), "A's commit after the takeover must be refused: " + outcome);
      assertTrue(outcome.contains("worker-b"), outcome);
      assertNotNull(a.awaitLine("CLOSED"::equals, TIMEOUT), a::stderr);
      assertEquals(0, a.waitFor(TIMEOUT), a::stderr);

      try (RocksDbTableStore store = RocksDbTableStore.builder(dir).openTimeout(Duration.ofSeconds(30)).build()) {
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
        try (StoreTransaction tx = store.begin()) {
          assertEquals(20L, tx.lookup(counter, List.of(counter.schema().key("after"))).get(0).orElseThrow()
              .getLong("n"));
        }
      }
    }
  }

  @Test
  void shouldFenceAWriterOfAnotherProcessInTheMiddleOfAStreamOfCommits() throws Exception {
    for (int round = 0; round < 3; round++) {
      Path roundDir = dir.resolve("round-" + round);
      try (ChildJvm a = RocksChildJvms.start(FencingWorker.class, List.of("stream", roundDir.toString()))) {
        assertNotNull(a.awaitLine(l -> l.startsWith("READY "), TIMEOUT), a::stderr);
        int warmup = 20 + ThreadLocalRandom.current().nextInt(200);
        assertNotNull(a.awaitLine(("C " + warmup)::equals, TIMEOUT), a::stderr);
        Thread.sleep(ThreadLocalRandom.current().nextInt(20));
        Lease b = RocksDbTableStore.takeOverLease(roundDir, FencingWorkload.LEASE, "worker-b");

        String fenced = a.awaitLine(l -> l.startsWith("FENCED "), TIMEOUT);
        assertNotNull(fenced, a::stderr);
        long refused = Long.parseLong(fenced.split(" ")[1]);
        long lastAcknowledged = refused - 1;
        assertTrue(lastAcknowledged >= warmup, fenced);
        assertNotNull(a.awaitLine("CLOSED"::equals, TIMEOUT), a::stderr);
        assertEquals(0, a.waitFor(TIMEOUT), a::stderr);

        try (RocksDbTableStore store = RocksDbTableStore.builder(roundDir).openTimeout(Duration.ofSeconds(30))
            .build()) {
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
  }

  @Test
  void shouldFenceARunningPipelineOfAnotherProcessAndLetTheNewWorkerFinishIt() throws Exception {
    long seed = System.nanoTime();
    Path stateDir = dir.resolve("pipeline");
    CrashWordCount.Check check =
        new CrashWordCount.Check(() -> WordCountWorker.open(stateDir), seed, CommitProtocol.EPOCH);
    long acknowledged;
    try (ChildJvm a = RocksChildJvms.start(WordCountWorker.class, List.of(stateDir.toString(), Long.toString(seed),
        Long.toString(1L << 40), "50", "EPOCH"))) {
      int warmup = 5 + ThreadLocalRandom.current().nextInt(40);
      assertNotNull(a.awaitLine(l -> l.startsWith("C " + warmup + " "), TIMEOUT), a::stderr);
      Lease b = RocksDbTableStore.takeOverLease(stateDir, "pipeline:" + CrashWordCount.PIPELINE, "worker-b");
      long[] lastCommit = {warmup};
      String fenced = a.awaitLine(l -> {
        if (l.startsWith("C ")) {
          lastCommit[0] = Long.parseLong(l.split(" ")[1]);
        }
        return l.startsWith("FENCED ");
      }, TIMEOUT);
      assertNotNull(fenced, () -> "the pipeline of worker A was not fenced: " + a.stderr());
      assertTrue(fenced.contains("worker-b") && fenced.contains("generation " + b.generation()), fenced);
      acknowledged = Long.parseLong(fenced.split(" ")[1]);
      assertEquals(lastCommit[0], acknowledged, "A's pipeline reports its last commit");
      assertNotNull(a.awaitLine("CLOSED"::equals, TIMEOUT), a::stderr);
      assertEquals(3, a.waitFor(TIMEOUT), a::stderr);
    }
    CrashWordCount.Progress after = check.verify();
    assertEquals(acknowledged, after.txid(), "nothing A attempted after the takeover may be committed");

    long finalCount = Math.max(after.end(), after.pendingEnd()) + 2_000;
    try (ChildJvm next = RocksChildJvms.start(WordCountWorker.class, List.of(stateDir.toString(), Long.toString(seed),
        Long.toString(finalCount), "50", "EPOCH"))) {
      assertNotNull(next.awaitLine(l -> l.startsWith("DONE "), TIMEOUT), next::stderr);
      assertEquals(0, next.waitFor(TIMEOUT), next::stderr);
    }
    assertEquals(finalCount, check.verify().end());
  }

  /** {@code --fresh} of another process must not delete a directory a writer holds (issue: it did, unlocked). */
  @Test
  void shouldRefuseToDestroyADirectoryAnotherProcessHolds() throws Exception {
    try (ChildJvm a = RocksChildJvms.start(FencingWorker.class, List.of("hold", dir.toString()))) {
      assertNotNull(a.awaitLine(l -> l.startsWith("READY "), TIMEOUT), a::stderr);
      StoreException e = assertThrows(StoreException.class, () -> RocksDbTableStore.destroy(dir));
      assertTrue(e.getMessage().contains("open in another process") && !e.retryable(), e.getMessage());
      assertTrue(Files.exists(dir.resolve("format.properties")) && Files.exists(dir.resolve("db/CURRENT")),
          "nothing deleted");
      a.send("GO");
      assertNotNull(a.awaitLine("C 1"::equals, TIMEOUT), () -> "A's lease is still valid: " + a.stderr());
      assertNotNull(a.awaitLine("CLOSED"::equals, TIMEOUT), a::stderr);
      assertEquals(0, a.waitFor(TIMEOUT), a::stderr);
    }
    RocksDbTableStore.destroy(dir);
    assertFalse(Files.exists(dir.resolve("db")));
  }

  /**
   * The directory is deleted by hand and re-created (a new database, whose first lease is generation 1 again) while
   * worker A holds the old one open with generation 1 of the same lease: A must be fenced, and nothing of A may reach
   * the new directory.
   */
  @Test
  void shouldFenceAWriterOfAnotherProcessWhoseDirectoryWasDeletedAndRecreated() throws Exception {
    try (ChildJvm a = RocksChildJvms.start(FencingWorker.class, List.of("hold", dir.toString()))) {
      String ready = a.awaitLine(l -> l.startsWith("READY "), TIMEOUT);
      assertNotNull(ready, a::stderr);
      try (Stream<Path> paths = Files.walk(dir)) {
        for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
          if (!p.equals(dir)) {
            Files.delete(p);
          }
        }
      }
      try (RocksDbTableStore b = RocksDbTableStore.builder(dir).build()) {
        Table counter = b.openTable(FencingWorkload.counter());
        Lease lease = b.acquireLease(FencingWorkload.LEASE, "worker-b");
        assertEquals(ready.substring("READY ".length()), Long.toString(lease.generation()),
            "the same generation as A's: only the database identity tells them apart");
        Map<String, String> before = Damage.snapshot(dir);
        a.send("GO");
        String outcome = a.awaitLine(l -> l.startsWith("FENCED ") || l.startsWith("C "), TIMEOUT);
        assertNotNull(outcome, a::stderr);
        assertTrue(outcome.startsWith("FENCED 1 "), "A's lease belongs to the deleted database: " + outcome);
        assertNotNull(a.awaitLine("CLOSED"::equals, TIMEOUT), a::stderr);
        assertEquals(0, a.waitFor(TIMEOUT), a::stderr);
        Map<String, String> after = Damage.snapshot(dir);
        after.keySet().removeIf(k -> k.equals("db/LOG")); // A's info log may go on; nothing else
        before.keySet().removeIf(k -> k.equals("db/LOG"));
        assertEquals(before, after, "A wrote nothing into the re-created directory");
        try (StoreTransaction tx = b.begin(lease)) {
          assertEquals(Optional.empty(), tx.lookup(counter, List.of(counter.schema().key("after"))).get(0));
          tx.upsert(counter, Row.of(counter.schema().key("b"), 1L));
          tx.commit();
        }
      }
      try (RocksDbTableStore again = RocksDbTableStore.builder(dir).build()) { // A wrote nothing into it
        Table counter = again.openTable(FencingWorkload.counter());
        assertEquals(1L, again.lookup(counter, List.of(counter.schema().key("b"))).get(0).orElseThrow()
            .getLong("n"));
      }
    }
  }
}
