package io.epochal.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.StateCorruptedException;
import io.epochal.flow.FlowTesting.ListSpout;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** An undecodable Flow state row stops the pipeline naming table, key and the epoch that read it (issue 10, 12). */
class FlowCorruptionTest {

  private static Pipeline counter(TableStore store, ListSpout<String> spout) {
    TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
    PipelineBuilder builder = Pipeline.newBuilder("clicks-pipeline").checkpointStore(checkpoints);
    Flow.process(builder.source(spout), "counter", r -> r, StateAccessorLifecycleTest.Counter::new,
        FlowStates.create());
    return builder.build();
  }

  @Test
  void shouldNameTheEpochTxidOfAnUndecodableRow() {
    TableStore store = TableStores.inMemory();
    try (Pipeline p = counter(store, new ListSpout<>(List.of("k")))) {
      p.runUntilIdle();
    }
    Table table = store.findTable("clicks-pipeline/counter/clicks").orElseThrow();
    Row stored;
    try (StoreTransaction tx = store.begin()) {
      stored = tx.scan(table).get(0);
    }
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(table, Row.of(stored.key(), (Object) new byte[] {1, 2, 3}));
      tx.commit();
    }
    try (Pipeline p = counter(store, new ListSpout<>(List.of("k"), List.of("k")))) {
      StateCorruptedException e = assertThrows(StateCorruptedException.class, p::runUntilIdle);
      assertTrue(e.getMessage().contains("read in epoch 2"), e.getMessage());
      assertEquals(OptionalLong.of(2), e.context().txid(), "the txid is known: not 'unknown'");
      assertEquals(Optional.of("clicks-pipeline/counter/clicks"), e.context().table());
    }
  }
}
