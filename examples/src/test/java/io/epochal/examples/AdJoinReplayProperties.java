package io.epochal.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.sink.CollectingSink;
import io.epochal.spouts.GeneratedSpout;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import io.epochal.testkit.Fault;
import io.epochal.testkit.FaultInjector;
import io.epochal.testkit.FaultPoint;
import io.epochal.testkit.ReplayArbitraries;
import io.epochal.testkit.ReplayHarness;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.statistics.Statistics;

/**
 * The ad-join on the engine under the testkit's fault schedules: generated shows (one every 10 minutes of event time
 * on average, so shows are emitted while later ones still arrive), clicks (many read before their show), late and
 * orphan clicks, factors and late factors, over 2 partitions per topic, cut into random batches, on 1 to 3 engine
 * partitions, with failures and crash-restarts after the state writes, inside and during the checkpoint commit. The
 * committed outputs (each show published once), the counts and the emptied state equal the batch recomputation
 * ({@link AdJoinLogic#recompute}) of the same input. Runs {@code -Depochal.tries=N} schedules.
 */
class AdJoinReplayProperties {
  private static final int MAX_TXID = 24;
  private static final int MAX_BATCH = 12;
  private static final Set<FaultPoint> POINTS = EnumSet.of(FaultPoint.AFTER_STATE_WRITES,
      FaultPoint.INSIDE_CHECKPOINT_COMMIT, FaultPoint.DURING_CHECKPOINT_COMMIT);
  /** High shares of the rare cases, so that a small input holds each of them. */
  static final AdJoinInput.Mix MIX = new AdJoinInput.Mix(600_000, 0.6, 0.3, 0.8, 0.2, 0.2);

  @Provide
  Arbitrary<List<Fault>> faults() {
    return ReplayArbitraries.faultSchedules(MAX_TXID, 5, POINTS, true);
  }

  @Property
  void outputsAndCountsEqualTheBatchRecomputationThroughFailuresAndRestarts(
      @ForAll @LongRange(min = 0, max = 1_000_000) long seed, @ForAll @IntRange(min = 1, max = 14) int shows,
      @ForAll @IntRange(min = 4, max = MAX_BATCH) int batchSize, @ForAll @IntRange(min = 1, max = 3) int partitions,
      @ForAll @IntRange(min = 1, max = 2) int inFlight, @ForAll("faults") List<Fault> faults) {
    List<AdEvent> input = drained(AdJoinInput.generate(seed, shows, new int[] {2, 2, 2}, MIX), MAX_BATCH);
    AdJoinLogic.Expected expected = AdJoinLogic.recompute(input);
    Run run = run(input, batchSize, partitions, inFlight, faults);
    String schedule = "faults " + faults + " fired " + run.fired + ", " + run.restarts + " restarts";
    assertEquals(expected.outputs(), run.outputs, schedule);
    assertEquals(List.of(), run.duplicates, schedule);
    assertEquals(expected.counts(), run.counts, schedule);
    assertEquals(0, run.cells, () -> "state cells left (the TTL expires them at the drain's watermark); " + schedule);
    Statistics.label("late clicks").collect(expected.counts().getOrDefault(AdJoinLogic.LATE_CLICKS, 0L) > 0);
    Statistics.label("restarts").collect(run.restarts > 0);
  }

  /**
   * {@code input} (which ends with the generator's ticks) followed by {@code maxBatch} more copies of its last tick,
   * so that what follows is in a later batch than every tick, then one tick per source at the last tick's time plus
   * the shows' TTL: its batch's watermark is past the TTL deadline of every show cell, including those emitted in
   * the batch of the last ticks, so the state ends empty.
   */
  static List<AdEvent> drained(List<AdEvent> input, int maxBatch) {
    AdEvent last = input.get(input.size() - 1);
    List<AdEvent> out = new ArrayList<>(input);
    for (int i = 0; i < maxBatch; i++) {
      out.add(last);
    }
    input.stream().map(AdEvent::source).distinct().sorted().forEach(source -> out.add(new AdEvent(AdEvent.Kind.TICK,
        AdEvent.TICK_KEY, last.time() + AdJoinLogic.SHOW_TTL.toMillis(), "", source)));
    return out;
  }

  record Run(Map<String, String> outputs, List<String> duplicates, Map<String, Long> counts, long cells,
      int restarts, String fired) {
  }

  /** Runs the join over {@code input} to its end on an in-memory table store, with {@code faults} injected. */
  static Run run(List<AdEvent> input, int batchSize, int partitions, int inFlight, List<Fault> faults) {
    TableStore tables = TableStores.inMemory();
    FaultInjector injector = new FaultInjector(faults);
    CollectingSink<AdJoinLogic.Out> out = new CollectingSink<>("joined");
    TableExampleStore store = new TableExampleStore(tables, "in-memory", AdJoin.PIPELINE);
    ReplayHarness.Outcome outcome = ReplayHarness.runToEnd(incarnation -> {
      TableCheckpointStore checkpoints = TableCheckpointStore.builder(tables).owner("w" + incarnation).build();
      PipelineBuilder builder = Pipeline.newBuilder(AdJoin.PIPELINE).partitions(partitions)
          .threads(partitions > 1 ? 2 : 1).maxBatchesInFlight(inFlight).retryPolicy(RetryPolicy.immediate(50))
          .sleeper(d -> { }).checkpointStore(injector.wrap(checkpoints));
      AdJoin.join(builder.source(GeneratedSpout.of("ad-join-input", input.size(), batchSize, i -> input.get((int) i))),
          store, new RandomFaults(0, 0)).filter(AdJoinLogic.Out::isResult).to("joined", out);
      return builder.build();
    }, 60);
    Map<String, String> outputs = new TreeMap<>();
    List<String> duplicates = new ArrayList<>();
    for (CollectingSink.Output<AdJoinLogic.Out> o : out.committed()) {
      if (outputs.put(o.value().showId(), o.value().line()) != null) {
        duplicates.add(o.value().showId() + "@" + o.txid());
      }
    }
    Map<String, Long> counts = new TreeMap<>();
    store.read("join-counts").forEach((k, v) -> {
      if ((Long) v != 0) {
        counts.put(k, (Long) v);
      }
    });
    return new Run(outputs, duplicates, counts, AdJoin.stateCells(store), outcome.restarts(),
        injector.fired().toString());
  }
}
