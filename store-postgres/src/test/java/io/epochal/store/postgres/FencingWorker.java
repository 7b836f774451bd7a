package io.epochal.store.postgres;

import io.epochal.testkit.process.FencingWorkload;

/**
 * Worker A of {@link PostgresFencingIT}: the testkit's {@link FencingWorkload} over one {@link PostgresTableStore}, run in a child
 * JVM; prints {@code CLOSED} after closing the store.
 *
 * <p>Arguments: {@code <hold|stream> <jdbc url> <user> <password> <schema>}.
 */
public final class FencingWorker {

  private FencingWorker() {
  }

  public static void main(String[] args) throws Exception {
    try (PostgresTableStore store = PostgresTableStore.builder(args[1]).user(args[2]).password(args[3]).schema(args[4])
        .poolSize(2).build()) {
      FencingWorkload.run(store, args[0]);
    }
    System.out.println("CLOSED");
  }
}
