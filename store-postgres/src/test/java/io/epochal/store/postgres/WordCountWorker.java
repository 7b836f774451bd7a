package io.epochal.store.postgres;

import io.epochal.store.table.CommitProtocol;
import io.epochal.testkit.process.CrashWordCount;
import java.util.List;

/**
 * The testkit's {@link CrashWordCount} worker over one {@link PostgresTableStore}, for {@link PostgresCrashIT} and
 * {@link PostgresFencingIT}, run in a child JVM.
 *
 * <p>Arguments: {@code <jdbc url> <user> <password> <schema> <seed> <sentences> <batch size> <EPOCH|PER_KEY>
 * [<pause ms after each commit>]}. Prints what {@link CrashWordCount#runWorker} prints; when fenced, closes the store,
 * prints {@code CLOSED} and exits with {@link CrashWordCount#FENCED_EXIT}.
 */
public final class WordCountWorker {

  private WordCountWorker() {
  }

  /** @return the worker's arguments */
  static List<String> args(TestPostgres pg, String schema, long seed, long count, int batchSize,
      CommitProtocol protocol, long pauseMillis) {
    return List.of(pg.jdbcUrl(), TestPostgres.USER, TestPostgres.PASSWORD, schema, Long.toString(seed),
        Long.toString(count), Integer.toString(batchSize), protocol.name(), Long.toString(pauseMillis));
  }

  public static void main(String[] args) throws Exception {
    int exit;
    try (PostgresTableStore store = PostgresTableStore.builder(args[0]).user(args[1]).password(args[2])
        .schema(args[3]).poolSize(6).build()) {
      exit = CrashWordCount.runWorker(store, Long.parseLong(args[4]), Long.parseLong(args[5]),
          Integer.parseInt(args[6]), CommitProtocol.valueOf(args[7]), args.length > 8 ? Long.parseLong(args[8]) : 0);
    }
    if (exit != 0) {
      System.out.println("CLOSED");
      System.exit(exit);
    }
  }
}
