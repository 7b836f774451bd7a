package io.epochal.store.rocksdb;

import io.epochal.testkit.process.FencingWorkload;
import java.nio.file.Path;

/**
 * Worker A of {@link RocksDbFencingIT}: the testkit's {@link FencingWorkload} over one {@link RocksDbTableStore}, run in a child
 * JVM; prints {@code CLOSED} after closing the store.
 *
 * <p>Arguments: {@code <hold|stream> <state dir>}.
 */
public final class FencingWorker {

  private FencingWorker() {
  }

  public static void main(String[] args) throws Exception {
    try (RocksDbTableStore store = RocksDbTableStore.builder(Path.of(args[1])).build()) {
      FencingWorkload.run(store, args[0]);
    }
    System.out.println("CLOSED");
  }
}
