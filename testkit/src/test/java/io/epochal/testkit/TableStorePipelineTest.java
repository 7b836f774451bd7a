package io.epochal.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.errors.LeaseLostException;
import io.epochal.errors.StateCorruptedException;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.spouts.ListSpout;
import io.epochal.state.MapState;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableBackedStateFactory;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Whole pipelines over the in-memory table store: corruption stops them, fencing stops a stale worker. */
class TableStorePipelineTest {
  private static final List<String> INPUT = List.of("a b", "a c", "b c a", "d");

  private static Pipeline wordCount(TableStore store, String owner) {
    TableCheckpointStore checkpoints = TableCheckpointStore.builder(store).owner(owner).build();
    TableBackedStateFactory<MapState<String, Long>> counts =
        TransactionalTableLayout.factory(KeyCodec.strings(), Codecs.longs());
    PipelineBuilder builder = Pipeline.newBuilder("wc").retryPolicy(RetryPolicy.immediate(3)).sleeper(d -> { })
        .checkpointStore(checkpoints);
    builder.source(ListSpout.of("sentences", INPUT, 1))
        .flatMap(s -> Arrays.asList(s.split(" ")))
        .groupBy(w -> w)
        .persistentAggregate("counts", counts, Aggregators.count());
    return builder.build();
  }

  private static Map<String, Row> rows(TableStore store) {
    Map<String, Row> out = new TreeMap<>();
    try (StoreTransaction tx = store.begin()) {
      for (Row r : tx.scan(store.findTable("wc/counts").orElseThrow())) {
        out.put((String) r.key().get("key"), r);
      }
    }
    return out;
  }

  @Test
  void shouldStopOnUndecodableStateAndOverwriteNothing() {
    TableStore store = TableStores.inMemory();
    try (Pipeline first = wordCount(store, "w1")) {
      first.run(1);
    }
    Table table = store.findTable("wc/counts").orElseThrow();
    Row corrupt = Row.of(table.schema().key("a"), new byte[] {42}, 1L);
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(table, corrupt);
      tx.commit();
    }
    Map<String, Row> before = rows(store);
    try (Pipeline second = wordCount(store, "w2")) {
      StateCorruptedException e = assertThrows(StateCorruptedException.class, second::runUntilIdle);
      assertEquals(java.util.Optional.of("wc/counts"), e.context().table());
      assertEquals(java.util.Optional.of("a"), e.context().key());
      assertFalse(e.retryable());
      // issue 10, finding 12: the cell's txid is known, so the context has it
      assertEquals(java.util.OptionalLong.of(1), e.context().txid());
      assertEquals(java.util.Optional.of("wc/counts"), e.context().table());
      assertEquals(java.util.Optional.of("a"), e.context().key());
      assertEquals(1, second.lastCommittedTxid());
    }
    assertEquals(before, rows(store), "nothing may be overwritten after a corruption");
  }

  @Test
  void shouldFenceAWorkerWhoseLeaseWasTakenOver() {
    TableStore store = TableStores.inMemory();
    try (Pipeline stale = wordCount(store, "stale"); Pipeline fresh = wordCount(store, "fresh")) {
      LeaseLostException e = assertThrows(LeaseLostException.class, () -> stale.run(1));
      assertTrue(e.getMessage().contains("fresh"), e.getMessage());
      assertTrue(store.findTable("wc/counts").isEmpty() || rows(store).isEmpty(), "the fenced worker wrote rows");
      fresh.runUntilIdle();
      assertEquals(4, fresh.lastCommittedTxid());
    }
    assertEquals(3L, Codecs.longs().decode(rows(store).get("a").getBytes("value")));
  }

  @Test
  void shouldResumeAfterTheLastCommittedTxidOnRestart() {
    TableStore store = TableStores.inMemory();
    try (Pipeline first = wordCount(store, "w1")) {
      first.run(2);
    }
    try (Pipeline second = wordCount(store, "w2")) {
      assertEquals(2, second.lastCommittedTxid());
      second.runUntilIdle();
      assertEquals(4, second.lastCommittedTxid());
    }
    Map<String, Long> counts = new TreeMap<>();
    rows(store).forEach((k, r) -> counts.put(k, Codecs.longs().decode(r.getBytes("value"))));
    assertEquals(Map.of("a", 3L, "b", 2L, "c", 2L, "d", 1L), counts);
  }
}
