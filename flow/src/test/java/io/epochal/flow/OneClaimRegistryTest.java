package io.epochal.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.epochal.codec.Codecs;
import io.epochal.errors.TableClaimedTwiceException;
import io.epochal.flow.FlowTesting.ListSpout;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.Stream;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStates;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import java.util.List;
import org.junit.jupiter.api.Test;

/** One claim registry per checkpoint store: a map state and a Flow state never write one table together. */
class OneClaimRegistryTest {
  private final TableStore store = TableStores.inMemory();
  private final TableCheckpointStore checkpoints = TableCheckpointStore.on(store);

  private KeyedProcessor<String, String, String> externalCounter(String path) {
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

  @Test
  void aMapStateOnATableAFlowStateWritesIsRefusedAtBuild() {
    store.openTable(TableSchema.builder("shared/counts").key("key", ColumnType.STRING)
        .requiredValue("value", ColumnType.BYTES).build());
    PipelineBuilder builder = Pipeline.newBuilder("both").checkpointStore(checkpoints);
    Stream<String> records = builder.source(new ListSpout<>(List.of("a")));
    Flow.process(records, "flow", r -> r, () -> externalCounter("shared/counts"), FlowStates.create());
    records.groupBy(r -> r).persistentAggregate("counts", TableStates.builder(KeyCodec.strings(),
        Codecs.longs()).table("shared/counts").nonTransactional(), Aggregators.count());
    TableClaimedTwiceException e = assertThrows(TableClaimedTwiceException.class, builder::build);
    assertEquals("shared/counts", e.context().table().orElseThrow());
  }

  @Test
  void aFlowStateOnATableAMapStateWritesIsRefusedAtBuild() {
    PipelineBuilder first = Pipeline.newBuilder("maps").checkpointStore(checkpoints);
    first.source(new ListSpout<>(List.of("a"))).groupBy(r -> r).persistentAggregate("counts",
        TableStates.builder(KeyCodec.strings(), Codecs.longs()).table("shared/counts").nonTransactional(),
        Aggregators.count());
    first.build().close();
    PipelineBuilder second = Pipeline.newBuilder("flows").checkpointStore(checkpoints);
    Stream<String> records = second.source(new ListSpout<>(List.of("a")));
    FlowStates states = FlowStates.create();
    Flow.process(records, "flow", r -> r, () -> externalCounter("shared/counts"), states);
    TableClaimedTwiceException e = assertThrows(TableClaimedTwiceException.class, second::build);
    assertEquals("shared/counts", e.context().table().orElseThrow());
  }
}
