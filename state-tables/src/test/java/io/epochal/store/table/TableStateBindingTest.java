package io.epochal.store.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.errors.EpochalException;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Guarantee;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.spouts.ListSpout;
import io.epochal.store.InMemoryCheckpointStore;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Table states bound to the pipeline's epoch: a table state of another checkpoint store is refused (moved from
 * batch-core's {@code GuaranteeCheckTest} and {@code KeyedProcessTest} with the table SPI).
 */
class TableStateBindingTest {

  @Test
  void aStateOnAnotherCheckpointStoreIsRefusedAtBuild() {
    TableCheckpointStore theirs = TableCheckpointStore.on(TableStores.inMemory());
    PipelineBuilder b = Pipeline.newBuilder("m").checkpointStore(new InMemoryCheckpointStore());
    b.source(ListSpout.of("words", List.of("a"), 1))
        .groupBy(w -> w)
        .persistentAggregate("counts", TableStates.nonTransactional(theirs, KeyCodec.strings(),
            Codecs.longs()), Aggregators.count());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, b::build);
    assertTrue(e.getMessage().contains("state 'counts'"), e.getMessage());
  }

  @Test
  void aTableStateOnAStoreThePipelinesEpochDoesNotStageIsRefusedAtItsFirstWriteNamingTheTable() {
    TableCheckpointStore perKey = TableCheckpointStore.builder(TableStores.inMemory())
        .protocol(CommitProtocol.PER_KEY).build();
    PipelineBuilder b = Pipeline.newBuilder("misbound").checkpointStore(new InMemoryCheckpointStore())
        .guarantee(Guarantee.AT_LEAST_ONCE);
    b.source(ListSpout.of("words", List.of("a"), 1)).groupBy(w -> w).persistentAggregate("counts",
        TableStates.nonTransactional(perKey, KeyCodec.strings(), Codecs.longs()), Aggregators.count());
    try (Pipeline p = b.build()) {
      EpochalException e = assertThrows(EpochalException.class, p::runUntilIdle);
      assertFalse(e.retryable());
      assertEquals("misbound/counts", e.context().table().orElseThrow());
      assertEquals(0, p.metrics().failedAttempts(), "stopped at the first occurrence, no retry");
    }
  }
}
