package io.epochal.store.rocksdb;

import io.epochal.store.table.CommitProtocol;
import io.epochal.testkit.process.CrashWordCount;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGKILL crash loop with real processes ({@link CrashWordCount#sigkillLoop}): a child JVM runs {@link WordCountWorker} (word count over RocksDB with a
 * TransactionalMap and an OpaqueMap table) and is killed with SIGKILL ({@link Process#destroyForcibly()}) at random
 * moments, restarted each time; then a last run finishes the input and every count must equal an exact recount.
 *
 * <p>Runs: the epoch protocol with {@code epochal.kills} kills (default 20; {@code -Depochal.kills=200} for more) and
 * Trident's per-key protocol on the same store with half as many.
 *
 * <p>Kill moments: a fifth land at a random moment after the process start (JVM start-up, RocksDB open and WAL
 * recovery, lease takeover, checkpoint load, first batches), three tenths right after the pipeline reported it
 * recovered (replay of the recorded pending batch), the rest in the steady state after a first commit (processing,
 * state updates, the epoch's {@code WriteBatch}).
 *
 * <p>After every kill the test opens the directory itself and checks both count tables against an exact recount of
 * the input up to the committed spout position ({@link CrashWordCount.Check}: exact under the epoch protocol; under the
 * per-key protocol a word may already include the next batch, whose replay then skips it).
 *
 * <p>The input is the pure sentence sequence of {@link CrashWordCount#sentences}; while killing, the children get an
 * unbounded record count (so none finishes early however fast the machine is), and the last run gets the committed
 * (and recorded pending) position plus a tail, like a log that stopped growing. {@code -Depochal.seed=N} replays the
 * kill schedule's random choices.
 */
class RocksDbCrashIT {
  private static final int BATCH_SIZE = 50;

  @TempDir
  Path dir;

  @Test
  void shouldCountEveryWordExactlyOnceAcrossRandomSigkillsWithTheEpochProtocol() throws Exception {
    crashLoop(CommitProtocol.EPOCH, Integer.getInteger("epochal.kills", 20));
  }

  @Test
  void shouldCountEveryWordExactlyOnceAcrossRandomSigkillsWithThePerKeyProtocol() throws Exception {
    crashLoop(CommitProtocol.PER_KEY, Math.max(1, Integer.getInteger("epochal.kills", 20) / 2));
  }

  private void crashLoop(CommitProtocol protocol, int kills) throws Exception {
    long seed = Long.getLong("epochal.seed", System.nanoTime());
    CrashWordCount.Check check = new CrashWordCount.Check(() -> WordCountWorker.open(dir), seed, protocol);
    System.out.println(CrashWordCount.sigkillLoop("RocksDbCrashIT", count -> RocksChildJvms.start(
        WordCountWorker.class, WordCountWorker.args(dir, seed, count, BATCH_SIZE, protocol)), check, kills, seed));
  }
}
