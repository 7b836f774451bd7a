package io.epochal.testkit.readme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.epochal.pipeline.Aggregators;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.store.table.TableStores;
import io.epochal.testkit.Fault;
import io.epochal.testkit.FaultPoint;
import io.epochal.testkit.PipelineTestDriver;
import io.epochal.testkit.TableStoreContractSuite;
import io.epochal.testkit.TableStoreContractTest;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The README's testkit snippets held here, verbatim (examples' {@code ReadmeSnippetsTest} compares them): the
 * {@link PipelineTestDriver} example runs; the table-store contract by annotation compiles over a stand-in
 * {@link MyTableStore} (the contract itself runs over the repo's stores in their modules). The property and the
 * backing-map contract snippets are {@link MyStoreProperties} and {@link MyBackingMapContractTest}.
 */
class ReadmeTestkitSnippetsTest {

  @Test
  void thePipelineTestDriverSnippetRuns() {
    // README begin pipeline-test-driver
    StateFactory<MapState<String, Long>> counts = TransactionalMap.factory(new InMemoryBackingMap<>());
    try (PipelineTestDriver<String> driver = PipelineTestDriver.<String>builder((input, outputs) -> outputs.capture(
            "counts", input.groupBy(w -> w).persistentAggregate("counts", counts, Aggregators.count()).newValuesStream()))
        .build()) {
      driver.pipeInput("a", "b", "a");                 // one batch
      driver.faults().schedule(Fault.fail(FaultPoint.AFTER_STATE_WRITES, 1));   // optional: watch it replay
      driver.step();                                   // commits txid 1 (attempt 2)
      assertEquals(Map.of("a", 2L, "b", 1L), driver.outputAsMap("counts"));    // the new-values stream
      assertEquals(Optional.of(2L), driver.read(counts, "counts", "a"));       // the committed state
    }
    // README end pipeline-test-driver
  }

  /** A stand-in for the user's store in the annotation snippet: an in-memory store, whatever the directory. */
  static final class MyTableStore {
    private MyTableStore() {
    }

    static TableStores.InMemoryBuilder builder(Path dir) {
      return TableStores.inMemoryBuilder();
    }
  }

  /** Inner (not nested) so that JUnit does not run the stand-in's suite; {@link #theAnnotationSnippetCompiles} builds it. */
  // README begin table-store-contract
  class MyTableStoreContractTest {
    @TableStoreContractTest
    TableStoreContractSuite contract() {
      return TableStoreContractSuite.of((dir, commit, read) -> MyTableStore.builder(dir)
          .commitHook(commit)     // call commit.beforeTableWrite(path) in each commit, per table
          .readHook(read)         // call read.beforeRead(path) on each lookup and scan, read.storedBytes(path, bytes)
          .build());              //   on each row's bytes before decoding them
    }
  }
  // README end table-store-contract

  @Test
  void theAnnotationSnippetCompiles() {
    assertFalse(new MyTableStoreContractTest().contract().tests().isEmpty());
  }
}
