package io.epochal.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.epochal.codec.Codecs;
import io.epochal.pipeline.Aggregators;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.store.CheckpointStore;
import io.epochal.store.InMemoryCheckpointStore;
import io.epochal.store.table.CommitProtocol;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStores;
import io.epochal.testing.TriesScale;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.statistics.Statistics;

/**
 * The replay properties of sink outputs (the outbox): for random inputs, batch sizes, partitions and failure
 * schedules — fail or crash-and-restart at every fault point, including a crash right after the checkpoint commit
 * landed and before the outputs were published — every committed batch's outputs are published exactly once, equal
 * (txid by txid, in order) to those of the failure-free run, on the in-memory checkpoint store and on a table
 * checkpoint store with either commit protocol. A grouped output (an aggregate's new values) and a flat one (the
 * words) are checked.
 */
@AddLifecycleHook(TriesScale.class) // a share of the tries by default: -Depochal.tries.scale=1 runs all
class SinkOutputReplayProperties {
  private static final int MAX_TXID = 10;

  /** Where the checkpoint (and its outbox) lives. */
  enum Store { IN_MEMORY, TABLE_EPOCH, TABLE_PER_KEY }

  @Provide
  Arbitrary<List<String>> sentences() {
    return ReplayArbitraries.sentences(30);
  }

  @Provide
  Arbitrary<List<Fault>> faults() {
    return ReplayArbitraries.faultSchedules(MAX_TXID, 6);
  }

  @Property
  void everyCommittedBatchsOutputsArePublishedExactlyOnce(@ForAll("sentences") List<String> input,
      @ForAll @IntRange(min = 1, max = 5) int batchSize, @ForAll @IntRange(min = 1, max = 4) int partitions,
      @ForAll("faults") List<Fault> faults, @ForAll Store store) {
    List<List<String>> batches = new ArrayList<>();
    for (int i = 0; i < input.size(); i += batchSize) {
      batches.add(input.subList(i, Math.min(input.size(), i + batchSize)));
    }
    Outputs expected = run(batches, partitions, List.of(), store);
    Outputs actual = run(batches, partitions, faults, store);
    assertEquals(expected.counts, actual.counts, "new values, txid by txid; faults " + faults);
    assertEquals(expected.words, actual.words, "flat outputs, txid by txid; faults " + faults);
    Statistics.label("store").collect(store);
    Statistics.label("restarts").collect(actual.restarts > 0 ? "restarted" : "no restart");
  }

  private record Outputs(List<List<Object>> counts, List<List<Object>> words, int restarts) {
  }

  private static Outputs run(List<List<String>> batches, int partitions, List<Fault> schedule, Store store) {
    FaultInjector faults = new FaultInjector(schedule);
    CheckpointStore checkpoints;
    StateFactory<MapState<String, Long>> counts;
    if (store == Store.IN_MEMORY) {
      checkpoints = new InMemoryCheckpointStore();
      InMemoryBackingMap<String, TransactionalValue<Long>> map = new InMemoryBackingMap<>("counts");
      counts = TransactionalMap.factory(faults.wrap(map));
    } else {
      TableCheckpointStore tables = TableCheckpointStore.builder(TableStores.inMemory())
          .protocol(store == Store.TABLE_EPOCH ? CommitProtocol.EPOCH : CommitProtocol.PER_KEY).build();
      checkpoints = tables;
      counts = TransactionalTableLayout.factory(KeyCodec.strings(), Codecs.longs());
    }
    try (PipelineTestDriver<String> driver = PipelineTestDriver.<String>builder((in, outputs) -> {
          var words = in.flatMap(s -> Arrays.asList(s.split(" ")));
          outputs.capture("words", words.map(String::toUpperCase));
          outputs.capture("counts", words.groupBy(w -> w)
              .persistentAggregate("counts", counts, Aggregators.count()).newValuesStream());
        })
        .partitions(partitions)
        .faults(faults)
        .checkpointStore(checkpoints)
        .build()) {
      for (List<String> b : batches) {
        driver.pipeInput(b);
      }
      driver.stepAll();
      List<List<Object>> c = new ArrayList<>();
      List<List<Object>> w = new ArrayList<>();
      for (long t = 1; t <= batches.size(); t++) {
        c.add(driver.output("counts", t));
        w.add(driver.output("words", t));
      }
      int restarts = (int) driver.timeline().render().lines().filter(l -> l.contains("RESTART")).count();
      return new Outputs(c, w, restarts);
    }
  }
}
