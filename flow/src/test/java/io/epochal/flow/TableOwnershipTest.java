package io.epochal.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.errors.SchemaMismatchException;
import io.epochal.errors.TableClaimedTwiceException;
import io.epochal.flow.FlowTesting.ListSpout;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.Stream;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** One table, one writer: two writers are refused, joiners share the table freely. */
class TableOwnershipTest {
  private final TableStore store = TableStores.inMemory();
  private final TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
  private final FlowStates states = FlowStates.create();

  private void createExternal(String path) {
    store.openTable(TableSchema.builder(path).key("key", ColumnType.STRING)
        .requiredValue("value", ColumnType.BYTES).build());
  }

  /** Counts records per key into the external table {@code path}. */
  private static KeyedProcessor<String, String, String> externalCounter(String path) {
    return new KeyedProcessor<>() {
      StateClient<String, Long> counts;

      @Override
      public void init(ProcessorContext<String> context) {
        counts = context.state(StateSpec.external("counts", path, KeyCodec.strings(), Codecs.longs(), 0L).build());
      }

      @Override
      public void process(String key, List<String> records, Emitter<String> out) {
        counts.accessor(key).update(v -> v + records.size());
      }
    };
  }

  /** Reads the table {@code path} through a joiner and emits what it saw. */
  private static KeyedProcessor<String, String, String> joinerOf(String path) {
    return new KeyedProcessor<>() {
      JoinedStateClient<String, Long> counts;

      @Override
      public void init(ProcessorContext<String> context) {
        counts = context.joiner(JoinSpec.table("counts", path, KeyCodec.strings(), Codecs.longs()).build());
      }

      @Override
      public void process(String key, List<String> records, Emitter<String> out) {
        out.emit(key + "=" + counts.accessor(key).getOrDefault(0L));
      }
    };
  }

  @Test
  void shouldRejectAPipelineWithTwoWritersOfOneExternalTable() {
    createExternal("ads/counts");
    PipelineBuilder builder = Pipeline.newBuilder("two-writers").checkpointStore(checkpoints);
    Stream<String> records = builder.source(new ListSpout<>(List.of("a")));
    Flow.process(records, "first", r -> r, () -> externalCounter("ads/counts"), states);
    Flow.process(records, "second", r -> r, () -> externalCounter("ads/counts"), states);
    TableClaimedTwiceException e = assertThrows(TableClaimedTwiceException.class, builder::build);
    assertEquals("State table ads/counts is claimed for writing by both computation 'first' state 'counts' and "
        + "computation 'second' state 'counts'", e.getMessage());
  }

  @Test
  void shouldRejectAnExternalStateOnAnotherComputationsInternalTableAtBuild() {
    PipelineBuilder builder = Pipeline.newBuilder("p").checkpointStore(checkpoints);
    Stream<String> records = builder.source(new ListSpout<>(List.of("a")));
    Flow.process(records, "owner", r -> r, () -> new KeyedProcessor<String, String, String>() {
      StateClient<String, Long> counts;

      @Override
      public void init(ProcessorContext<String> context) {
        counts = context.state(StateSpec.internal("counts", KeyCodec.strings(), Codecs.longs(), 0L).build());
      }

      @Override
      public void process(String key, List<String> recs, Emitter<String> out) {
        counts.accessor(key).update(v -> v + 1);
      }
    }, states);
    // "p/owner/counts" is the internal table of computation 'owner': declared, but only named at build
    Flow.process(records, "intruder", r -> r, () -> externalCounter("p/owner/counts"), states);
    TableClaimedTwiceException e = assertThrows(TableClaimedTwiceException.class, builder::build);
    assertEquals("State table p/owner/counts is claimed for writing by both computation 'owner' state 'counts' of "
        + "pipeline 'p' and computation 'intruder' state 'counts'", e.getMessage());
  }

  @Test
  void shouldLetJoinersReadAnOwnedTableWithoutClaimingIt() {
    createExternal("ads/counts");
    PipelineBuilder builder = Pipeline.newBuilder("shared").checkpointStore(checkpoints);
    Stream<String> records = builder.source(new ListSpout<>(List.of("a", "a"), List.of("a")));
    Flow.process(records, "reader-before", r -> r, () -> joinerOf("ads/counts"), states);
    Flow.process(records, "writer", r -> r, () -> externalCounter("ads/counts"), states);
    Flow.process(records, "reader-after", r -> r, () -> joinerOf("ads/counts"), states);
    try (Pipeline pipeline = builder.build()) {
      assertEquals(2, pipeline.runUntilIdle().batches());
    }
    assertEquals(Map.of("a", 3L), FlowTesting.read(store, "ads/counts", Codecs.longs()));
  }

  @Test
  void shouldAllowTheSameWriterToBeDeclaredAgainForARestart() {
    createExternal("ads/counts");
    for (int run = 0; run < 2; run++) {
      PipelineBuilder builder = Pipeline.newBuilder("restarted").checkpointStore(checkpoints);
      Stream<String> records = builder.source(new ListSpout<>(List.of("a")));
      Flow.process(records, "writer", r -> r, () -> externalCounter("ads/counts"), states);
      try (Pipeline pipeline = builder.build()) {
        pipeline.runUntilIdle();
      }
    }
    assertEquals(Map.of("a", 1L), FlowTesting.read(store, "ads/counts", Codecs.longs()),
        "the second run resumed after the committed batch");
  }

  @Test
  void shouldValidateExternalTables() {
    PipelineBuilder missing = Pipeline.newBuilder("missing").checkpointStore(checkpoints);
    Flow.process(missing.source(new ListSpout<>(List.of("a"))), "w", r -> r,
        () -> externalCounter("ads/none"), states);
    IllegalStateException absent = assertThrows(IllegalStateException.class, missing::build);
    assertTrue(absent.getMessage().contains("ads/none") && absent.getMessage().contains("does not exist"),
        absent.getMessage());

    store.openTable(TableSchema.builder("ads/wrong").key("key", ColumnType.INT64)
        .requiredValue("value", ColumnType.BYTES).build());
    PipelineBuilder wrong = Pipeline.newBuilder("wrong").checkpointStore(checkpoints);
    Flow.process(wrong.source(new ListSpout<>(List.of("a"))), "w2", r -> r,
        () -> externalCounter("ads/wrong"), states);
    SchemaMismatchException mismatch = assertThrows(SchemaMismatchException.class, wrong::build);
    assertEquals(java.util.Optional.of("ads/wrong"), mismatch.context().table());
    assertFalse(mismatch.retryable());
  }
}
