package io.epochal.store.rocksdb;

import io.epochal.store.table.CommitProtocol;
import io.epochal.testkit.process.CrashWordCount;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The testkit's {@link CrashWordCount} worker over one {@link RocksDbTableStore}, for {@link RocksDbCrashIT} and
 * {@link RocksDbFencingIT}, run in a child JVM.
 *
 * <p>Arguments: {@code <state dir> <seed> <sentences> <batch size> <EPOCH|PER_KEY>}. Prints what
 * {@link CrashWordCount#runWorker} prints; when fenced, closes the store, prints {@code CLOSED} (the directory is then
 * free for the new lease holder) and exits with {@link CrashWordCount#FENCED_EXIT}.
 */
public final class WordCountWorker {

  private WordCountWorker() {
  }

  /** @return the worker's arguments */
  static List<String> args(Path dir, long seed, long count, int batchSize, CommitProtocol protocol) {
    return List.of(dir.toString(), Long.toString(seed), Long.toString(count), Integer.toString(batchSize),
        protocol.name());
  }

  /** Opens the state directory, waiting for a killed worker to let go. */
  static RocksDbTableStore open(Path dir) {
    return RocksDbTableStore.builder(dir).openTimeout(Duration.ofSeconds(30)).build();
  }

  public static void main(String[] args) throws Exception {
    int exit;
    try (RocksDbTableStore store = open(Path.of(args[0]))) {
      exit = CrashWordCount.runWorker(store, Long.parseLong(args[1]), Long.parseLong(args[2]),
          Integer.parseInt(args[3]), CommitProtocol.valueOf(args[4]), 0);
    }
    if (exit != 0) {
      System.out.println("CLOSED");
      System.exit(exit);
    }
  }
}
