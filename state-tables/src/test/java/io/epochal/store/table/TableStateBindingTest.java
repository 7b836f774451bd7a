package io.epochal.store.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.epochal.codec.Codecs;
import io.epochal.errors.StagingUnavailableException;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Guarantee;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.spouts.ListSpout;
import io.epochal.store.Checkpoint;
import io.epochal.store.CheckpointStore;
import io.epochal.store.InMemoryCheckpointStore;
import io.epochal.store.ManualEpochs;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Table states bind to the staging of the pipeline's checkpoint store: a pipeline whose checkpoint store offers no
 * {@link EpochBuffer} is refused loudly when built, naming pipeline and table, whatever the guarantee, never run with
 * a silent fallback (moved from batch-core's {@code GuaranteeCheckTest} and {@code KeyedProcessTest} with the table
 * SPI; the state no longer takes a checkpoint store, so "bound to another store" became "the pipeline's store cannot
 * stage").
 */
class TableStateBindingTest {

  @Test
  void aTableStateOnAPipelineWhoseCheckpointStoreCannotStageIsRefusedAtBuild() {
    PipelineBuilder b = Pipeline.newBuilder("m").checkpointStore(new InMemoryCheckpointStore());
    b.source(ListSpout.of("words", List.of("a"), 1))
        .groupBy(w -> w)
        .persistentAggregate("counts", TableStates.nonTransactional(KeyCodec.strings(), Codecs.longs()),
            Aggregators.count());
    StagingUnavailableException e = assertThrows(StagingUnavailableException.class, b::build);
    assertFalse(e.retryable());
    assertEquals("m", e.context().pipeline().orElseThrow());
    assertEquals("counts", e.context().table().orElseThrow());
    assertEquals("EpochBuffer", e.stagingType());
    assertEquals(new InMemoryCheckpointStore().describe(), e.checkpointStore());
  }

  @Test
  void anOptedInWeakerGuaranteeIsRefusedAlikeNotRunWithoutItsRows() {
    PipelineBuilder b = Pipeline.newBuilder("misbound").checkpointStore(new InMemoryCheckpointStore())
        .guarantee(Guarantee.AT_LEAST_ONCE);
    b.source(ListSpout.of("words", List.of("a"), 1)).groupBy(w -> w).persistentAggregate("counts",
        TableStates.nonTransactional(KeyCodec.strings(), Codecs.longs()), Aggregators.count());
    StagingUnavailableException e = assertThrows(StagingUnavailableException.class, b::build);
    assertEquals("misbound", e.context().pipeline().orElseThrow());
    assertEquals("counts", e.context().table().orElseThrow());
  }

  @Test
  void aCheckpointStoreWrapperThatDoesNotForwardTheStagingIsRefusedAtBuild() {
    TableCheckpointStore tables = TableCheckpointStore.on(TableStores.inMemory());
    CheckpointStore hiding = new CheckpointStore() { // forwards everything but staging(..)
      @Override
      public Checkpoint load(String pipeline) {
        return tables.load(pipeline);
      }

      @Override
      public void recordPending(String pipeline, long txid, byte[] metadata) {
        tables.recordPending(pipeline, txid, metadata);
      }

      @Override
      public void commit(String pipeline, long txid, byte[] metadata) {
        tables.commit(pipeline, txid, metadata);
      }
    };
    PipelineBuilder b = Pipeline.newBuilder("wrapped").checkpointStore(hiding);
    b.source(ListSpout.of("words", List.of("a"), 1)).groupBy(w -> w).persistentAggregate("counts",
        TableStates.nonTransactional(KeyCodec.strings(), Codecs.longs()), Aggregators.count());
    StagingUnavailableException e = assertThrows(StagingUnavailableException.class, b::build);
    assertEquals("counts", e.context().table().orElseThrow());
  }

  @Test
  void aTableStateMadeOutsideAPipelineWithoutEpochsNamesTheMissingStaging() {
    StagingUnavailableException e = assertThrows(StagingUnavailableException.class,
        () -> TableStates.nonTransactional(KeyCodec.strings(), Codecs.longs())
            .makeState(new ManualEpochs(new InMemoryCheckpointStore(), "manual").context("counts", 0, 1)));
    assertEquals("manual", e.context().pipeline().orElseThrow());
    assertEquals("counts", e.context().table().orElseThrow());
  }
}
