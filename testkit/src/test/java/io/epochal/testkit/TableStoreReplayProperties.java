package io.epochal.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.errors.GuaranteeNotDeliverableException;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Guarantee;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.spout.Spout;
import io.epochal.spouts.ListSpout;
import io.epochal.spouts.ReCuttingOpaqueSpout;
import io.epochal.state.MapState;
import io.epochal.state.opaque.OpaqueTableLayout;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.table.CommitProtocol;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.TableBackedStateFactory;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import io.epochal.testing.TriesScale;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.statistics.Statistics;

/**
 * The replay properties of the exactly-once pairings over the in-memory table store, on both commit protocols: the
 * epoch protocol (atomic multi-table commit: state rows and checkpoint in one store transaction) and Trident's
 * per-key protocol (the same store with {@code atomicMultiTableCommit(false)}). For random inputs, batch sizes,
 * partitions, batches in flight and failure schedules — fail or crash-and-restart before the first state read, in
 * the middle of a {@code multiPut}, after the state writes before the checkpoint commit, and after the checkpoint
 * commit; plus failures inside the store's own commits (a {@link io.epochal.store.table.CommitHook}) — the final
 * table contents equal the failure-free fold of the input. Each restart is a new process: a new
 * {@link TableCheckpointStore} (taking the pipeline's lease over) and new state factories over the same
 * {@link TableStore}.
 *
 * <p>Includes (opaque re-cutting spout, {@code TransactionalMap}), which is {@code EXACTLY_ONCE} on the epoch protocol
 * and refused on the per-key protocol. Runs {@code -Depochal.tries=N} schedules per property.
 */
@AddLifecycleHook(TriesScale.class) // a share of the tries by default: -Depochal.tries.scale=1 runs all
class TableStoreReplayProperties {
  private static final int MAX_TXID = 12;
  private static final String PIPELINE = "word-count";
  private static final String TABLE = PIPELINE + "/counts";

  /** Which txid rule stores the counts. */
  enum Rule { TRANSACTIONAL, OPAQUE }

  @Provide
  Arbitrary<List<String>> sentences() {
    return ReplayArbitraries.sentences(40);
  }

  @Provide
  Arbitrary<List<Fault>> faults() {
    return ReplayArbitraries.faultSchedules(MAX_TXID, 6);
  }

  /** Indices (1-based) of store commits, counted per table written, that fail inside the store. */
  @Provide
  Arbitrary<Set<Integer>> storeFailures() {
    return Arbitraries.integers().between(1, 60).set().ofMaxSize(4);
  }

  @Property
  void transactionalSpoutCountsExactlyOnceOnBothProtocols(@ForAll("sentences") List<String> input,
      @ForAll @IntRange(min = 1, max = 6) int batchSize, @ForAll @IntRange(min = 1, max = 4) int partitions,
      @ForAll @IntRange(min = 1, max = 3) int inFlight, @ForAll("faults") List<Fault> faults,
      @ForAll("storeFailures") Set<Integer> storeFailures, @ForAll CommitProtocol protocol, @ForAll Rule rule) {
    Run run = new Run(protocol, rule, faults, storeFailures, false);
    run.wordCount(partitions, inFlight, i -> ListSpout.of("sentences", input, batchSize));
    run.assertCounts(expectedCounts(input));
    run.record();
  }

  @Property
  void opaqueSpoutCountsExactlyOnceOnTheEpochProtocolWithEitherMap(@ForAll("sentences") List<String> input,
      @ForAll @IntRange(min = 1, max = 3) int minBatch, @ForAll @IntRange(min = 0, max = 4) int extra,
      @ForAll long seed, @ForAll @IntRange(min = 1, max = 4) int partitions,
      @ForAll @IntRange(min = 1, max = 3) int inFlight, @ForAll("faults") List<Fault> faults,
      @ForAll("storeFailures") Set<Integer> storeFailures, @ForAll Rule rule) {
    Run run = new Run(CommitProtocol.EPOCH, rule, faults, storeFailures, false);
    run.wordCount(partitions, inFlight,
        i -> ReCuttingOpaqueSpout.of("sentences", input, minBatch, minBatch + extra, seed));
    run.assertCounts(expectedCounts(input));
    run.record();
  }

  /**
   * Counts that go up and down (a word of odd length adds one to the count of its first letter, an even one takes one
   * away), so states return to zero, the empty value: their rows are deleted on the epoch protocol and kept (with
   * their txid) on the per-key protocol, and the result still equals the fold.
   */
  @Property
  void statesThatBecomeEmptyStayExactlyOnce(@ForAll("sentences") List<String> input,
      @ForAll @IntRange(min = 1, max = 6) int batchSize, @ForAll @IntRange(min = 1, max = 3) int partitions,
      @ForAll("faults") List<Fault> faults, @ForAll("storeFailures") Set<Integer> storeFailures,
      @ForAll CommitProtocol protocol, @ForAll Rule rule) {
    Run run = new Run(protocol, rule, faults, storeFailures, true);
    run.run(partitions, 1, i -> ListSpout.of("sentences", input, batchSize), (builder, counts) ->
        builder.source(ListSpout.of("sentences", input, batchSize))
            .flatMap(s -> Arrays.asList(s.split(" ")))
            .groupBy(w -> w.substring(0, 1))
            .persistentAggregate("counts", counts, Aggregators.<String>sumLong(w -> w.length() % 2 == 1 ? 1 : -1)));
    Map<String, Long> expected = new TreeMap<>();
    for (String s : input) {
      for (String w : s.split(" ")) {
        expected.merge(w.substring(0, 1), w.length() % 2 == 1 ? 1L : -1L, Long::sum);
      }
    }
    Map<String, Long> stored = run.tableContents();
    if (protocol == CommitProtocol.EPOCH) {
      assertTrue(stored.values().stream().noneMatch(v -> v == 0L), "an empty state must be an absent row: " + stored);
    }
    expected.values().removeIf(v -> v == 0L);
    stored.values().removeIf(v -> v == 0L);
    assertEquals(expected, stored, run.schedule());
    run.assertCheckpointAt();
  }

  @Example
  void opaqueSpoutIntoTransactionalMapIsExactlyOnceOnTheEpochProtocol() {
    List<String> input = List.of("a b", "a c", "b c", "a", "c a b", "b", "a a", "c");
    for (long seed = 0; seed < 30; seed++) {
      Run run = new Run(CommitProtocol.EPOCH, Rule.TRANSACTIONAL,
          List.of(new Fault(FaultPoint.INSIDE_MULTIPUT, 1, false, 1), new Fault(FaultPoint.INSIDE_MULTIPUT, 2, false, 1),
              new Fault(FaultPoint.AFTER_STATE_WRITES, 3, false, 0), new Fault(FaultPoint.AFTER_STATE_WRITES, 4, true, 0)),
          Set.of(), false);
      long s = seed;
      Pipeline built = run.wordCount(1, 1, i -> ReCuttingOpaqueSpout.of("sentences", input, 1, 4, s));
      assertEquals(Guarantee.EXACTLY_ONCE, built.guarantee());
      run.assertCounts(expectedCounts(input));
    }
  }

  /**
   * Two sources in one pipeline (shows and clicks, the clicks transactional or opaque and re-cutting), merged into one
   * word count: every txid holds one batch of each, both sources' metadata commit in the same epoch, and the counts
   * equal the fold of both inputs through every failure schedule and restart.
   */
  @Property
  void twoMergedSourcesCountExactlyOnce(@ForAll("sentences") List<String> shows,
      @ForAll("sentences") List<String> clicks, @ForAll @IntRange(min = 1, max = 5) int showBatch,
      @ForAll @IntRange(min = 1, max = 5) int clickBatch, @ForAll boolean opaqueClicks, @ForAll long seed,
      @ForAll @IntRange(min = 1, max = 3) int partitions, @ForAll @IntRange(min = 1, max = 3) int inFlight,
      @ForAll("faults") List<Fault> faults, @ForAll("storeFailures") Set<Integer> storeFailures,
      @ForAll CommitProtocol protocol, @ForAll Rule rule) {
    net.jqwik.api.Assume.that(!opaqueClicks || protocol == CommitProtocol.EPOCH);
    Run run = new Run(protocol, rule, faults, storeFailures, false);
    run.run(partitions, inFlight, i -> null, (builder, counts) -> {
      io.epochal.pipeline.Stream<String> s = builder.source(ListSpout.of("shows", shows, showBatch));
      io.epochal.pipeline.Stream<String> c = builder.source(opaqueClicks
          ? ReCuttingOpaqueSpout.of("clicks", clicks, 1, clickBatch, seed) : ListSpout.of("clicks", clicks, clickBatch));
      s.merge(c).flatMap(x -> Arrays.asList(x.split(" "))).groupBy(w -> w)
          .persistentAggregate("counts", counts, Aggregators.count());
    });
    List<String> both = new java.util.ArrayList<>(shows);
    both.addAll(clicks);
    run.assertCounts(expectedCounts(both));
    run.record();
    Statistics.label("clicks").collect(opaqueClicks ? "opaque" : "transactional");
  }

  /** The guarantee check covers every source that reaches a state, and only those. */
  @Example
  void theGuaranteeCheckCoversEachSourceReachingAState() {
    Run run = new Run(CommitProtocol.PER_KEY, Rule.TRANSACTIONAL, List.of(), Set.of(), false);
    GuaranteeNotDeliverableException e = assertThrows(GuaranteeNotDeliverableException.class,
        () -> run.run(1, 1, i -> null, (builder, counts) -> {
          io.epochal.pipeline.Stream<String> s = builder.source(ListSpout.of("shows", List.of("a"), 1));
          io.epochal.pipeline.Stream<String> c = builder.source(ReCuttingOpaqueSpout.of("clicks", List.of("b"), 1, 2, 1));
          s.merge(c).groupBy(w -> w).persistentAggregate("counts", counts, Aggregators.count());
        }));
    assertTrue(e.getMessage().contains("clicks") && e.getMessage().contains("counts"), e.getMessage());
    Run shownOnly = new Run(CommitProtocol.PER_KEY, Rule.TRANSACTIONAL, List.of(), Set.of(), false);
    shownOnly.run(1, 1, i -> null, (builder, counts) -> {
      io.epochal.pipeline.Stream<String> s = builder.source(ListSpout.of("shows", List.of("a b", "a"), 1));
      builder.source(ReCuttingOpaqueSpout.of("clicks", List.of("b"), 1, 2, 1))
          .to("clicks-out", new io.epochal.sink.CollectingSink<>("clicks-out"));
      s.flatMap(x -> Arrays.asList(x.split(" "))).groupBy(w -> w)
          .persistentAggregate("counts", counts, Aggregators.count());
    });
    shownOnly.assertCounts(Map.of("a", 2L, "b", 1L));
  }

  @Example
  void opaqueSpoutIsRefusedOnThePerKeyProtocol() {
    for (Rule rule : Rule.values()) {
      Run run = new Run(CommitProtocol.PER_KEY, rule, List.of(), Set.of(), false);
      GuaranteeNotDeliverableException e = assertThrows(GuaranteeNotDeliverableException.class,
          () -> run.wordCount(1, 1, i -> ReCuttingOpaqueSpout.of("sentences", List.of("a"), 1, 2, 1)));
      assertTrue(e.getMessage().contains("sentences") && e.getMessage().contains("counts")
          && e.getMessage().contains("Fix:"), e.getMessage());
    }
  }

  // ---------------------------------------------------------------------------------------------------------------

  /** One run: a store, a fault schedule, and the pipeline's incarnations over them. */
  private static final class Run {
    final CommitProtocol protocol;
    final Rule rule;
    final FaultInjector injector;
    final Set<Integer> storeFailures;
    final AtomicInteger storeWrites = new AtomicInteger();
    final AtomicInteger storeFailuresFired = new AtomicInteger();
    final TableStore store;
    final boolean zeroIsEmpty;
    long lastTxid;

    Run(CommitProtocol protocol, Rule rule, List<Fault> faults, Set<Integer> storeFailures, boolean zeroIsEmpty) {
      this.protocol = protocol;
      this.rule = rule;
      this.injector = new FaultInjector(faults);
      this.storeFailures = storeFailures;
      this.zeroIsEmpty = zeroIsEmpty;
      this.store = TableStores.inMemoryBuilder()
          .atomicMultiTableCommit(protocol == CommitProtocol.EPOCH)
          .commitHook(path -> {
            if (storeFailures.contains(storeWrites.incrementAndGet())) {
              storeFailuresFired.incrementAndGet();
              throw new IllegalStateException("injected failure inside the store's commit of " + path);
            }
          })
          .build();
    }

    /** The word count, built per incarnation. */
    Pipeline wordCount(int partitions, int inFlight, IntFunction<Spout<String, ?>> spouts) {
      return run(partitions, inFlight, spouts, (builder, counts) -> builder.source(spouts.apply(0))
          .flatMap(s -> Arrays.asList(s.split(" ")))
          .groupBy(w -> w)
          .persistentAggregate("counts", counts, Aggregators.count()));
    }

    interface Topology {
      void declare(PipelineBuilder builder, TableBackedStateFactory<MapState<String, Long>> counts);
    }

    Pipeline run(int partitions, int inFlight, IntFunction<Spout<String, ?>> spouts, Topology topology) {
      Pipeline[] first = new Pipeline[1];
      ReplayHarness.Outcome outcome = ReplayHarness.runToEnd(incarnation -> {
        TableCheckpointStore checkpoints = TableCheckpointStore.builder(store).owner("worker-" + incarnation).build();
        assertEquals(protocol, checkpoints.protocol());
        TableStates.Builder<String, Long> states = TableStates.builder(KeyCodec.strings(), Codecs.longs())
            .layer(injector::wrap);
        if (zeroIsEmpty) {
          states.emptyValue(0L);
        }
        TableBackedStateFactory<MapState<String, Long>> counts = rule == Rule.TRANSACTIONAL
            ? TransactionalTableLayout.factory(states) : OpaqueTableLayout.factory(states);
        PipelineBuilder builder = Pipeline.newBuilder(PIPELINE)
            .partitions(partitions)
            .threads(partitions > 1 ? 2 : 1)
            .maxBatchesInFlight(inFlight)
            .retryPolicy(RetryPolicy.immediate(50))
            .sleeper(d -> { })
            .checkpointStore(injector.wrap(checkpoints));
        topology.declare(builder, counts);
        Pipeline p = builder.build();
        if (first[0] == null) {
          first[0] = p;
        }
        return p;
      }, 50);
      lastTxid = outcome.lastTxid();
      return first[0];
    }

    Map<String, Long> tableContents() {
      Map<String, Long> out = new TreeMap<>();
      try (StoreTransaction tx = store.begin()) {
        for (Row row : tx.scan(store.findTable(TABLE).orElseThrow())) {
          long txid = row.getLong("txid");
          assertTrue(txid >= 1 && txid <= lastTxid, "row " + row + " has a txid beyond the last commit " + lastTxid);
          out.put((String) row.key().get("key"), Codecs.longs().decode(row.getBytes("value")));
        }
      }
      return out;
    }

    void assertCounts(Map<String, Long> expected) {
      if (expected.isEmpty() && store.findTable(TABLE).isEmpty()) {
        return;
      }
      assertEquals(expected, tableContents(), schedule());
      assertCheckpointAt();
    }

    void assertCheckpointAt() {
      TableCheckpointStore reader = TableCheckpointStore.builder(store).owner("reader").build();
      try (StoreTransaction tx = store.begin()) {
        List<java.util.Optional<Row>> rows = tx.lookup(reader.checkpointTable(),
            List.of(reader.checkpointTable().schema().key(PIPELINE)));
        long committed = rows.get(0).map(r -> r.getLong("committed_txid")).orElse(0L);
        assertEquals(lastTxid, committed, "the checkpoint row must hold the last committed txid");
      }
    }

    String schedule() {
      return protocol + "/" + rule + ": fired " + injector.fired() + ", unfired " + injector.unfired()
          + ", store failures at " + storeFailures + " (" + storeFailuresFired.get() + " fired of "
          + storeWrites.get() + " table writes)";
    }

    void record() {
      for (Fault f : injector.fired()) {
        Statistics.label("failure point").collect(f.point() + (f.crash() ? " + restart" : ""));
      }
      Statistics.label("store failures fired").collect(storeFailuresFired.get());
    }
  }

  static Map<String, Long> expectedCounts(List<String> input) {
    Map<String, Long> counts = new TreeMap<>();
    for (String s : input) {
      for (String w : s.split(" ")) {
        counts.merge(w, 1L, Long::sum);
      }
    }
    return counts;
  }
}
