package io.epochal.store.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.epochal.store.table.CommitProtocol;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * SIGKILL crash loop with real processes on real PostgreSQL: a child JVM runs {@link WordCountWorker} (word count
 * with a TransactionalMap and an OpaqueMap table of one {@link PostgresTableStore}) and is killed with SIGKILL
 * ({@link Process#destroyForcibly()}) at random moments, restarted each time; then a last run finishes the input and
 * every count must equal an exact recount.
 *
 * <p>Runs: the epoch protocol with {@code epochal.kills} kills (default 20; {@code -Depochal.kills=200} for more)
 * and Trident's per-key protocol on the same store with a quarter as many (at least 3).
 *
 * <p>Kill moments: a fifth land at a random moment after the process start (JVM start-up, connection pool, store
 * bootstrap, lease takeover, checkpoint load, first batches), three tenths right after the pipeline reported it
 * recovered (replay of the recorded pending batch), the rest in the steady state after a first commit (processing,
 * lookups, the epoch's SQL transaction, possibly mid-commit: the server then rolls the transaction back when the
 * connection drops).
 *
 * <p>After every kill the test opens the store itself and checks both count tables against an exact recount of the
 * input up to the committed spout position ({@link WordCountCheck}: exact under the epoch protocol; under the
 * per-key protocol a word may already include the next batch, whose replay then skips it). {@code -Depochal.seed=N}
 * replays the kill schedule's random choices.
 */
class PostgresCrashIT {
  private static final int BATCH_SIZE = 50;
  private static final long UNBOUNDED = 1L << 40;
  private static final long TAIL = 3_000;
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private final TestPostgres pg = TestPostgres.get();

  @Test
  void shouldCountEveryWordExactlyOnceAcrossRandomSigkillsWithTheEpochProtocol() throws Exception {
    crashLoop(CommitProtocol.EPOCH, Integer.getInteger("epochal.kills", 20));
  }

  @Test
  void shouldCountEveryWordExactlyOnceAcrossRandomSigkillsWithThePerKeyProtocol() throws Exception {
    crashLoop(CommitProtocol.PER_KEY, Math.max(3, Integer.getInteger("epochal.kills", 20) / 4));
  }

  private void crashLoop(CommitProtocol protocol, int kills) throws Exception {
    long seed = Long.getLong("epochal.seed", System.nanoTime());
    String schema = pg.freshSchema("crash_" + protocol.name().toLowerCase(java.util.Locale.ROOT));
    Random random = new Random(seed);
    WordCountCheck check = new WordCountCheck(pg, schema, seed, protocol);
    long started = System.nanoTime();
    int beforeReady = 0;
    int killed = 0;
    long lastTxid = 0;
    StringBuilder schedule = new StringBuilder();

    while (killed < kills) {
      String phase;
      long delay;
      try (ChildJvm child = ChildJvm.start(WordCountWorker.class,
          WordCountWorker.args(pg, schema, seed, UNBOUNDED, BATCH_SIZE, protocol, 0))) {
        int pick = random.nextInt(10);
        if (pick < 2) {
          phase = "start";
          delay = random.nextInt(1500);
        } else {
          assertNotNull(child.awaitLine(l -> l.startsWith("READY "), TIMEOUT),
              () -> "worker did not start (seed " + seed + "): " + child.stderr());
          if (pick < 5) {
            phase = "recovered";
            delay = random.nextInt(250);
          } else {
            phase = "running";
            assertNotNull(child.awaitLine(l -> l.startsWith("C "), TIMEOUT),
                () -> "worker committed nothing (seed " + seed + "): " + child.stderr());
            delay = random.nextInt(700);
          }
        }
        Thread.sleep(delay);
        if (!child.isAlive()) {
          fail("worker exited before it was killed (seed " + seed + "): " + child.stderr());
        }
        boolean wasReady = !phase.equals("start") || child.pollLine(l -> l.startsWith("READY ")) != null;
        child.kill();
        killed++;
        beforeReady += wasReady ? 0 : 1;
      }
      WordCountCheck.Progress p = check.verify();
      assertTrue(p.txid() >= lastTxid, "committed txid went back from " + lastTxid + " to " + p.txid());
      lastTxid = p.txid();
      schedule.append(killed % 10 == 1 ? "\n   " : " ").append(phase).append('+').append(delay).append("ms:")
          .append(p.txid());
    }

    WordCountCheck.Progress atEnd = check.verify();
    long finalCount = Math.max(atEnd.end(), atEnd.pendingEnd()) + TAIL;
    try (ChildJvm last = ChildJvm.start(WordCountWorker.class,
        WordCountWorker.args(pg, schema, seed, finalCount, BATCH_SIZE, protocol, 0))) {
      assertNotNull(last.awaitLine(l -> l.startsWith("DONE "), TIMEOUT),
          () -> "the last run did not finish (seed " + seed + "): " + last.stderr());
      assertEquals(0, last.waitFor(TIMEOUT), last::stderr);
    }
    WordCountCheck.Progress done = check.verify();
    assertEquals(finalCount, done.end(), "the last run must consume the whole input");
    assertTrue(done.txid() > 0, "something must have been committed");
    long seconds = Duration.ofNanos(System.nanoTime() - started).toSeconds();
    System.out.printf("PostgresCrashIT %s: %d SIGKILLs (%d before the pipeline was running), %d batches committed, "
        + "%d sentences, %d distinct words, %d s, seed %d; kills as phase+delay:committed txid after it:%s%n",
        protocol, killed, beforeReady, done.txid(), finalCount, check.distinctWords(), seconds, seed, schedule);
  }
}
