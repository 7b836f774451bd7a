package io.epochal.testkit.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.errors.EpochalException;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.spouts.ListSpout;
import io.epochal.state.MapState;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.Row;
import io.epochal.store.table.TableBackedStateFactory;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStore;
import java.util.List;
import java.util.Map;
import org.opentest4j.AssertionFailedError;

/**
 * The contract's read-fault cases under a whole pipeline: a word count whose state or checkpoint cannot be read, or
 * holds damaged bytes, must stop without committing the batch, and resume exactly once the reads heal. Not
 * thread-safe: one per contract instance, that is per test.
 */
final class PipelineReadFaultCases extends ReadFaultChecks {
  /** Sentences of the contract's word count; every batch after the first reads the stored count of {@code a}. */
  private static final List<String> SENTENCES = List.of("a b", "a c", "a", "b a", "a");

  private static final Map<String, Long> COUNTS = Map.of("a", 5L, "b", 2L, "c", 1L);

  PipelineReadFaultCases(ContractFixture fixture) {
    super(fixture);
  }

  // ------------------------------------------------------------------ read faults under a pipeline

  void shouldStopAPipelineWhoseStateCannotBeReadWithoutCommittingTheBatch() {
    assumeReadFaults();
    TableStore store = open();
    String name = "read-fault-state";
    runBatches(store, name, "w1", 2);
    String state = statePath(name);
    List<Row> before = rowsOf(store, state);
    reads.failReadsOf(state);
    RuntimeException e = assertPipelineStops(store, name, "w2", state, "the state table " + state + " cannot be read");
    assertTrue(causedBy(e, InjectedReadFailure.class), "the pipeline must stop with the injected read failure in "
        + "the cause chain, got " + e + notWiredHint(state));
    reads.heal();
    assertNothingCommittedAfter(store, name, 2, state, before);
    assertResumesExactly(store, name);
  }

  void shouldStopAPipelineWhoseStateBytesAreDamagedWithoutCommittingTheBatch() {
    assumeReadFaults();
    assumeStoresBytes();
    TableStore store = open();
    String name = "damaged-state";
    runBatches(store, name, "w1", 2);
    String state = statePath(name);
    List<Row> before = rowsOf(store, state);
    reads.damage(state, bytes -> {
      byte[] copy = bytes.clone();
      copy[copy.length / 2] ^= 0x10;
      return copy;
    });
    RuntimeException e = assertPipelineStops(store, name, "w2", state,
        "the state table " + state + " holds damaged bytes");
    assertNamedUnretryable("a pipeline over damaged state bytes", e, state, null);
    reads.heal();
    assertNothingCommittedAfter(store, name, 2, state, before);
    assertResumesExactly(store, name);
  }

  void shouldNotStartOverWhenTheCheckpointCannotBeRead() {
    assumeReadFaults();
    TableStore store = open();
    String name = "read-fault-checkpoint";
    runBatches(store, name, "w1", 2);
    String state = statePath(name);
    List<Row> before = rowsOf(store, state);
    String checkpoints = checkpointPath(store);
    reads.failReadsOf(checkpoints);
    RuntimeException e = assertPipelineStops(store, name, "w2", checkpoints,
        "the checkpoint table " + checkpoints + " cannot be read");
    assertTrue(causedBy(e, InjectedReadFailure.class), "a restarted pipeline whose checkpoint cannot be read must "
        + "stop with the injected read failure in the cause chain, got " + e + notWiredHint(checkpoints));
    reads.heal();
    assertNothingCommittedAfter(store, name, 2, state, before);
    assertResumesExactly(store, name);
  }

  void shouldNotStartOverWhenTheCheckpointBytesAreDamaged() {
    assumeReadFaults();
    assumeStoresBytes();
    TableStore store = open();
    String name = "damaged-checkpoint";
    runBatches(store, name, "w1", 2);
    String state = statePath(name);
    List<Row> before = rowsOf(store, state);
    String checkpoints = checkpointPath(store);
    reads.damage(checkpoints, bytes -> java.util.Arrays.copyOf(bytes, bytes.length - 1));
    RuntimeException e = assertPipelineStops(store, name, "w2", checkpoints,
        "the checkpoint table " + checkpoints + " holds damaged bytes");
    assertNamedUnretryable("a restarted pipeline over a damaged checkpoint row", e, checkpoints, null);
    reads.heal();
    assertNothingCommittedAfter(store, name, 2, state, before);
    assertResumesExactly(store, name);
  }

  // ------------------------------------------------------------------ pipeline fixtures

  private String pipelinePrefix() {
    return tablePath("pipeline/");
  }

  private String statePath(String pipeline) {
    return pipelinePrefix() + pipeline + "/counts";
  }

  private String checkpointPath(TableStore store) {
    return checkpoints(store, "contract-probe").checkpointTable().path();
  }

  private TableCheckpointStore checkpoints(TableStore store, String owner) {
    return TableCheckpointStore.builder(store).tablePrefix(pipelinePrefix()).owner(owner).build();
  }

  /** A word count over {@link #SENTENCES}, one sentence per batch, one partition, 3 immediate attempts per batch. */
  private Pipeline wordCount(TableCheckpointStore checkpoints, String name) {
    TableBackedStateFactory<MapState<String, Long>> counts =
        TransactionalTableLayout.factory(KeyCodec.strings(), Codecs.longs());
    PipelineBuilder builder = Pipeline.newBuilder(name).partitions(1).retryPolicy(RetryPolicy.immediate(3))
        .sleeper(d -> { }).checkpointStore(checkpoints);
    builder.source(ListSpout.of("sentences", SENTENCES, 1))
        .flatMap(line -> java.util.Arrays.asList(line.split(" ")))
        .groupBy(w -> w)
        .persistentAggregate("counts", counts, Aggregators.count());
    return builder.build();
  }

  private void runBatches(TableStore store, String name, String owner, int batches) {
    try (Pipeline p = wordCount(checkpoints(store, owner), name)) {
      p.run(batches);
      assertEquals(batches, p.lastCommittedTxid());
    }
  }

  /** Builds and runs a restarted pipeline that must stop; returns what it threw. */
  private RuntimeException assertPipelineStops(TableStore store, String name, String owner, String tablePath,
      String because) {
    long committed;
    try (Pipeline p = wordCount(checkpoints(store, owner), name)) {
      p.runUntilIdle();
      committed = p.lastCommittedTxid();
    } catch (RuntimeException e) {
      assertTrue(causedBy(e, EpochalException.class), "the pipeline must stop with a named error (an "
          + "EpochalException) when " + because + ", got " + e);
      return e;
    }
    throw new AssertionFailedError("a pipeline ran to txid " + committed + " although " + because
        + ": the store read an unreadable value as absent" + notWiredHint(tablePath));
  }

  private void assertNothingCommittedAfter(TableStore store, String name, long txid, String state, List<Row> before) {
    assertEquals(txid, checkpoints(store, "contract-check").load(name).committedTxid(),
        "the checkpoint advanced past a failed read");
    assertEquals(before, rowsOf(store, state), "state was committed on top of a failed read");
  }

  private void assertResumesExactly(TableStore store, String name) {
    TableCheckpointStore checkpoints = checkpoints(store, "w3");
    try (Pipeline p = wordCount(checkpoints, name)) {
      p.runUntilIdle();
      assertEquals(SENTENCES.size(), p.lastCommittedTxid());
    }
    MapState<String, Long> state = TransactionalTableLayout.factory(KeyCodec.strings(), Codecs.longs())
        .makeState(new io.epochal.store.ManualEpochs(checkpoints, name).context("counts", 0, 1));
    try {
      state.begin(io.epochal.state.Epoch.readAfter(name, SENTENCES.size())); // read what is committed
      assertEquals(COUNTS, state.multiGet(COUNTS.keySet()),
          "the counts after the failed reads and a resume must be exact");
      state.end();
    } finally {
      if (state instanceof AutoCloseable closeable) {
        try {
          closeable.close();
        } catch (Exception e) {
          throw new IllegalStateException("cannot close the state reader", e);
        }
      }
    }
  }

  private static List<Row> rowsOf(TableStore store, String path) {
    return scan(store, store.findTable(path).orElseThrow(() -> new AssertionFailedError("no table " + path)));
  }
}
