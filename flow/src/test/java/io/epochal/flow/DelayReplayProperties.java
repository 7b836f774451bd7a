package io.epochal.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.epochal.codec.Codecs;
import io.epochal.flow.EventScript.Ev;
import io.epochal.flow.FlowTesting.ListSpout;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.sink.CollectingSink;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import io.epochal.testkit.Fault;
import io.epochal.testkit.FaultInjector;
import io.epochal.testkit.FaultPoint;
import io.epochal.testkit.ReplayArbitraries;
import io.epochal.testkit.ReplayHarness;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;

/**
 * Delayed inputs under the testkit's fault schedules: random timestamped records of a few keys from two source
 * partitions, random delays, out-of-orderness bounds, late policies, release bounds, partitions and batches in
 * flight; failures and crash-restarts after the state writes, inside and during the checkpoint commit (so releases
 * happen in attempts that fail, and restarts fall between a record's buffering and its release). The committed
 * outputs per txid (each with the watermark it was processed under), the processor's states, the records still
 * buffered and the committed watermark equal those of the same input run without failures. Runs
 * {@code -Depochal.tries=N} schedules.
 */
class DelayReplayProperties {
  private static final int MAX_TXID = 16;
  private static final Set<FaultPoint> POINTS = EnumSet.of(FaultPoint.AFTER_STATE_WRITES,
      FaultPoint.INSIDE_CHECKPOINT_COMMIT, FaultPoint.DURING_CHECKPOINT_COMMIT);

  @Provide
  Arbitrary<List<Ev>> records() {
    return Combinators.combine(Arbitraries.of("a", "b", "c", "d"), Arbitraries.longs().between(0, 300),
        Arbitraries.integers().between(0, 1)).as((k, ts, src) -> new Ev("r k" + k, ts, src)).list().ofMaxSize(40)
        .map(l -> {
          List<Ev> numbered = new ArrayList<>();
          for (int i = 0; i < l.size(); i++) {
            Ev e = l.get(i);
            numbered.add(new Ev("r" + i + " " + e.cmd().substring(2), e.ts(), e.src()));
          }
          return numbered;
        });
  }

  @Provide
  Arbitrary<List<Fault>> faults() {
    return ReplayArbitraries.faultSchedules(MAX_TXID, 5, POINTS, true);
  }

  @Property
  void delayedRecordsAreProcessedExactlyOnceThroughFailuresAndRestarts(@ForAll("records") List<Ev> records,
      @ForAll @IntRange(min = 1, max = 5) int batchSize, @ForAll @IntRange(min = 1, max = 3) int partitions,
      @ForAll @IntRange(min = 1, max = 2) int inFlight, @ForAll @IntRange(min = 1, max = 3) int maxReleased,
      @ForAll @IntRange(min = 0, max = 100) int delayMillis, @ForAll @IntRange(min = 0, max = 30) int bound,
      @ForAll WatermarkStrategy.LatePolicy latePolicy, @ForAll("faults") List<Fault> faults) {
    List<List<Ev>> batches = new ArrayList<>();
    for (int i = 0; i < records.size(); i += batchSize) {
      batches.add(records.subList(i, Math.min(records.size(), i + batchSize)));
    }
    while (batches.size() < MAX_TXID - 4) {
      batches.add(List.of()); // bounded releases continue in later batches
    }
    // then the watermark jumps past every record's release time (ticks from both source partitions; they are
    // delayed too and stay buffered), and bounded releases drain in the last batches
    batches.add(List.of(new Ev("tick z", 1000, 0), new Ev("tick z", 1000, 1)));
    for (int i = 0; i < 3; i++) {
      batches.add(List.of());
    }
    Config config = new Config(partitions, inFlight, DelaySpec.of(Duration.ofMillis(delayMillis), DelayScript.CODEC)
        .withMaxReleasedPerBatch(maxReleased).withPageSize(2), EventScript.strategy(bound).latePolicy(latePolicy)
        .build());
    Result reference = run(batches, config, List.of());
    Result replayed = run(batches, config, faults);
    assertEquals(reference.outputs, replayed.outputs, replayed.schedule);
    assertEquals(reference.seen, replayed.seen, replayed.schedule);
    assertEquals(reference.buffered, replayed.buffered, replayed.schedule);
    assertEquals(reference.progress, replayed.progress, replayed.schedule);
    Statistics.label("released").collect(reference.outputs.values().stream().mapToInt(List::size).sum() > 0);
    Statistics.label("records (not ticks) still buffered at the end")
        .collect(reference.buffered.stream().anyMatch(b -> !b.contains("tick ")));
    Statistics.label("restarts").collect(replayed.restarts);
  }

  record Config(int partitions, int inFlight, DelaySpec<Ev> delay, WatermarkStrategy<Ev> strategy) {
  }

  record Result(Map<Long, List<String>> outputs, Map<Object, Long> seen, List<String> buffered,
      Optional<EventTimeProgress> progress, int restarts, String schedule) {
  }

  private Result run(List<List<Ev>> batches, Config config, List<Fault> faults) {
    TableStore store = TableStores.inMemory();
    FaultInjector injector = new FaultInjector(faults);
    CollectingSink<String> out = new CollectingSink<>("out");
    ListSpout<Ev> spout = new ListSpout<>(batches);
    ReplayHarness.Outcome outcome = ReplayHarness.runToEnd(incarnation -> {
      TableCheckpointStore checkpoints = TableCheckpointStore.builder(store).owner("w" + incarnation).build();
      FlowStates states = FlowStates.builder().clock(b -> 10 * b.txid()).build();
      PipelineBuilder builder = Pipeline.newBuilder("delay").partitions(config.partitions())
          .threads(config.partitions() > 1 ? 2 : 1).maxBatchesInFlight(config.inFlight())
          .retryPolicy(RetryPolicy.immediate(50)).sleeper(d -> { }).checkpointStore(injector.wrap(checkpoints));
      Flow.process(builder.source(spout), "c", Ev::key, DelayScript::new, states, config.strategy(), config.delay())
          .to("out", out);
      return builder.build();
    }, 60);
    Map<Long, List<String>> outputs = new TreeMap<>();
    for (CollectingSink.Output<String> o : out.committed()) {
      outputs.computeIfAbsent(o.txid(), t -> new ArrayList<>()).add(o.value());
    }
    outputs.values().forEach(l -> l.sort(null));
    List<String> buffered = new ArrayList<>();
    store.findTable("delay/c/.delayed.timers").ifPresent(t -> {
      try (StoreTransaction tx = store.begin()) {
        for (Row r : tx.scan(t)) {
          buffered.add(r.get("partition") + "/" + r.get("trigger") + ":"
              + DelayScript.CODEC.decode(r.getBytes("payload")));
        }
      }
    });
    buffered.sort(null);
    Map<Object, Long> seen = store.findTable("delay/c/seen").isPresent()
        ? FlowTesting.read(store, "delay/c/seen", Codecs.longs()) : Map.of();
    return new Result(outputs, seen, buffered,
        FlowStates.eventTimeProgress(TableCheckpointStore.on(store), "delay", "c"), outcome.restarts(),
        "faults " + faults + " fired " + injector.fired());
  }
}
