package io.epochal.store.postgres;


import io.epochal.store.table.CommitProtocol;
import io.epochal.testkit.process.ChildJvm;
import io.epochal.testkit.process.CrashWordCount;
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
 * input up to the committed spout position ({@link CrashWordCount.Check}: exact under the epoch protocol; under the
 * per-key protocol a word may already include the next batch, whose replay then skips it). {@code -Depochal.seed=N}
 * replays the kill schedule's random choices.
 */
class PostgresCrashIT {
  private static final int BATCH_SIZE = 50;

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
    CrashWordCount.Check check = new CrashWordCount.Check(() -> pg.store(schema).build(), seed, protocol);
    System.out.println(CrashWordCount.sigkillLoop("PostgresCrashIT", count -> ChildJvm.start(WordCountWorker.class,
        WordCountWorker.args(pg, schema, seed, count, BATCH_SIZE, protocol, 0)), check, kills, seed));
  }
}
