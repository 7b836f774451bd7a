package io.epochal.store.rocksdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.pipeline.Dedup;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.sink.CollectingSink;
import io.epochal.spouts.GeneratedSpout;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code Dedup.byId} over a table layout on RocksDB deletes the ids that left the window: after many batches of
 * fresh ids, the id table and its bucket table hold about {@code (window + 1) × ids per batch} rows each, not one row
 * per id ever seen.
 */
class RocksDbDedupExpiryTest {
  private static final int BATCH = 50;
  private static final long BATCHES = 60;
  private static final long WINDOW = 5;

  @Test
  void theIdTableStaysBoundedByTheWindow(@TempDir Path dir) {
    CollectingSink<String> out = new CollectingSink<>("out");
    try (RocksDbTableStore store = RocksDbTableStore.builder(dir).build()) {
      PipelineBuilder builder = Pipeline.newBuilder("dedup").checkpointStore(TableCheckpointStore.on(store));
      Dedup.byId(builder.source(GeneratedSpout.of("ids", BATCHES * BATCH, BATCH, i -> "id" + i)), "seen", id -> id,
              WINDOW, TransactionalTableLayout.factory(TableStates.builder(KeyCodec.strings(), Codecs.longs())))
          .to("out", out);
      try (Pipeline pipeline = builder.build()) {
        pipeline.runUntilIdle();
      }
      assertEquals(BATCHES * BATCH, out.committed().size(), "every id is fresh, so every record is kept");
      long ids = rows(store, "dedup/seen");
      long entries = rows(store, "dedup/seen.buckets");
      long bound = (WINDOW + 1) * BATCH;
      assertTrue(ids <= bound, ids + " id rows after " + BATCHES + " batches of " + BATCH + " fresh ids, window "
          + WINDOW + ": more than " + bound);
      assertTrue(entries <= bound, entries + " bucket rows, more than " + bound);
      assertTrue(ids >= WINDOW * BATCH, ids + " id rows: the window's ids must stay");
    }
  }

  private static long rows(RocksDbTableStore store, String path) {
    Table table = store.findTable(path).orElseThrow(() -> new AssertionError("no table " + path + " in "
        + store.tablePaths()));
    long n = 0;
    try (StoreTransaction tx = store.begin()) {
      for (Row ignored : tx.scan(table)) {
        n++;
      }
    }
    return n;
  }
}
