package io.epochal.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.BatchReport;
import io.epochal.pipeline.KeyValue;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableBackedStateFactory;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PipelineTestDriverTest {
  private final InMemoryBackingMap<String, TransactionalValue<Long>> store = new InMemoryBackingMap<>("counts");
  private final FaultInjector faults = new FaultInjector(List.of());
  private final StateFactory<MapState<String, Long>> counts = TransactionalMap.factory(faults.wrap(store));

  private PipelineTestDriver<String> wordCount() {
    return PipelineTestDriver.<String>builder((input, outputs) -> outputs.capture("counts", input
            .flatMap(s -> Arrays.asList(s.split(" ")))
            .groupBy(w -> w)
            .persistentAggregate("counts", counts, Aggregators.count())
            .newValuesStream()))
        .partitions(2)
        .faults(faults)
        .build();
  }

  @Test
  void shouldCommitOneTxidPerStepAndShowTheNewValuesOfEachBatch() {
    try (PipelineTestDriver<String> driver = wordCount()) {
      driver.pipeInput("a b", "a");
      driver.pipeInput("b c");
      assertEquals(2, driver.pendingBatches());
      BatchReport first = driver.step();
      assertEquals(1, first.txid());
      assertEquals(2, first.records());
      assertEquals(1, driver.committedTxid());
      assertEquals(Map.of("a", 2L, "b", 1L), driver.outputAsMap("counts"));
      assertEquals(Optional.of(2L), driver.read(counts, "counts", "a"));
      assertEquals(Optional.empty(), driver.read(counts, "counts", "c"), "batch 2 is not committed yet");

      driver.step();
      assertEquals(List.of(new KeyValue<>("b", 2L), new KeyValue<>("c", 1L)),
          driver.<KeyValue<String, Long>>output("counts", 2).stream()
              .sorted((x, y) -> x.key().compareTo(y.key())).toList());
      assertEquals(Map.of("a", 2L, "b", 2L, "c", 1L), driver.read(counts, "counts", List.of("a", "b", "c", "d")));
      assertEquals(4, driver.readOutput("counts").size());
      assertEquals(List.of(), driver.readOutput("counts"), "readOutput consumes");
      assertThrows(NoSuchElementException.class, driver::step);
    }
  }

  @Test
  void shouldShowOnlyTheCommittedAttemptOfAFailedBatch() {
    try (PipelineTestDriver<String> driver = wordCount()) {
      faults.schedule(Fault.fail(FaultPoint.AFTER_STATE_WRITES, 1), Fault.fail(FaultPoint.AFTER_EMIT, 1));
      driver.pipeInput("a a b");
      BatchReport report = driver.step();
      assertEquals(3, report.attempts(), "two failed attempts, then the replay");
      assertEquals(Map.of("a", 2L, "b", 1L), driver.outputAsMap("counts"));
      assertEquals(2, driver.output("counts").size(), "the failed attempts' values never show");
      assertEquals(List.of(), faults.unfired());
      assertTrue(driver.virtualTime().compareTo(Duration.ZERO) > 0, "the backoff passed in virtual time");
      String timeline = driver.timeline().render();
      assertTrue(timeline.contains("FAULT fail at AFTER_EMIT of txid 1"), timeline);
      assertTrue(timeline.contains("FAULT fail at AFTER_STATE_WRITES of txid 1"), timeline);
      assertTrue(timeline.contains("txid 1 attempt 3: committed"), timeline);
    }
  }

  /**
   * The process dies after batch 1's epoch commit landed and before its sink outputs were published: the next
   * incarnation publishes them from the checkpoint's outbox before going on, so each committed batch's values arrive
   * exactly once (without the outbox, 4 of 6 values arrived).
   */
  @Test
  void shouldRebuildThePipelineAfterACrashAndGoOn() {
    try (PipelineTestDriver<String> driver = wordCount()) {
      faults.schedule(Fault.crash(FaultPoint.DURING_CHECKPOINT_COMMIT, 1),
          Fault.crash(FaultPoint.INSIDE_MULTIPUT, 2).withPrefix(1));
      driver.pipeInput("a b");
      driver.pipeInput("a b c d");
      assertEquals(1, driver.step().txid(), "committed before the process died");
      assertEquals(2, driver.step().txid(), "replayed by the next incarnation");
      assertEquals(Map.of("a", 2L, "b", 2L, "c", 1L, "d", 1L), driver.outputAsMap("counts"));
      assertEquals(Map.of("a", 2L, "b", 2L, "c", 1L, "d", 1L),
          driver.read(counts, "counts", List.of("a", "b", "c", "d")));
      assertEquals(6, driver.output("counts").size(), "each committed batch's values exactly once");
      assertTrue(driver.timeline().render().contains("RESTART"), driver.timeline().render());
    }
  }

  @Test
  void shouldDriveTableBackedStatesOnTheirCheckpointStore() {
    TableStore tables = TableStores.inMemory();
    TableCheckpointStore checkpoints = TableCheckpointStore.on(tables);
    TableBackedStateFactory<MapState<String, Long>> sums =
        TransactionalTableLayout.factory(KeyCodec.strings(), Codecs.longs());
    try (PipelineTestDriver<String> driver = PipelineTestDriver.<String>builder((input, outputs) -> outputs.capture(
            "sums", input.groupBy(s -> s.substring(0, 1))
                .persistentAggregate("sums", sums, Aggregators.sumLong(String::length)).newValuesStream()))
        .checkpointStore(checkpoints)
        .build()) {
      driver.pipeInput("apple", "avocado", "banana");
      driver.step();
      assertEquals(Map.of("a", 12L, "b", 6L), driver.outputAsMap("sums"));
      assertEquals(Map.of("a", 12L, "b", 6L), driver.read(sums, "sums", List.of("a", "b")));
    }
  }

  @Test
  void shouldRejectAnUnknownOutputAndUseAfterClose() {
    PipelineTestDriver<String> driver = wordCount();
    assertThrows(IllegalArgumentException.class, () -> driver.output("nope"));
    driver.close();
    driver.close();
    assertThrows(IllegalStateException.class, () -> driver.pipeInput("a"));
  }
}
