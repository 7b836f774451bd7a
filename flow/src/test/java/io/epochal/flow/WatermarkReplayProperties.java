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
import io.epochal.testkit.InjectedFailure;
import io.epochal.testkit.ReplayArbitraries;
import io.epochal.testkit.ReplayHarness;
import io.epochal.testkit.SimulatedCrash;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;

/**
 * Event-time timers and the watermark under the testkit's fault schedules: random timestamped adds, deletes,
 * re-arming timers and watermark reads, from up to three source partitions, over random batches, engine partitions,
 * batches in flight, bounds and idleness timeouts; failures and crash-restarts after the state writes, inside and
 * during the checkpoint commit, and inside timer handlers. The committed outputs (per txid, each fired timer with the
 * watermark it fired under), the final states, the pending timers and the committed watermark row equal those of the
 * same input run without failures. Runs {@code -Depochal.tries=N} schedules.
 */
class WatermarkReplayProperties {
  private static final int MAX_TXID = 16;
  private static final Set<FaultPoint> POINTS = EnumSet.of(FaultPoint.AFTER_STATE_WRITES,
      FaultPoint.INSIDE_CHECKPOINT_COMMIT, FaultPoint.DURING_CHECKPOINT_COMMIT);

  @Provide
  Arbitrary<List<Ev>> records() {
    Arbitrary<String> key = Arbitraries.of("a", "b", "c", "d", "e");
    Arbitrary<Long> trigger = Arbitraries.longs().between(0, 120);
    Arbitrary<String> add = Combinators.combine(key, trigger).as((k, t) -> "add " + k + " " + t);
    Arbitrary<String> again = Combinators.combine(key, trigger, Arbitraries.integers().between(0, 3))
        .as((k, t, n) -> "add " + k + " " + t + " again-" + n);
    Arbitrary<String> del = Combinators.combine(key, trigger).as((k, t) -> "del " + k + " " + t);
    Arbitrary<String> wm = key.map(k -> "wm " + k);
    Arbitrary<String> cmd = Arbitraries.frequencyOf(Tuple.of(5, add), Tuple.of(2, again), Tuple.of(2, del),
        Tuple.of(1, wm));
    return Combinators.combine(cmd, Arbitraries.longs().between(0, 120), Arbitraries.integers().between(0, 2))
        .as(Ev::new).list().ofMaxSize(30);
  }

  @Provide
  Arbitrary<List<Fault>> faults() {
    return ReplayArbitraries.faultSchedules(MAX_TXID, 5, POINTS, true);
  }

  /** Txids whose first attempt fails inside a timer handler, and whether the process dies there. */
  @Provide
  Arbitrary<Map<Long, Boolean>> handlerFaults() {
    return Arbitraries.maps(Arbitraries.longs().between(1, MAX_TXID), Arbitraries.of(false, true)).ofMaxSize(4);
  }

  @Property
  void eventTimeTimersFireExactlyOnceThroughFailuresAndRestarts(@ForAll("records") List<Ev> records,
      @ForAll @IntRange(min = 1, max = 5) int batchSize, @ForAll @IntRange(min = 1, max = 3) int partitions,
      @ForAll @IntRange(min = 1, max = 2) int inFlight, @ForAll @IntRange(min = 1, max = 3) int maxFired,
      @ForAll @IntRange(min = 0, max = 10) int bound, @ForAll @IntRange(min = 0, max = 40) int idleMillis,
      @ForAll("faults") List<Fault> faults, @ForAll("handlerFaults") Map<Long, Boolean> handlerFaults) {
    List<List<Ev>> batches = new ArrayList<>();
    for (int i = 0; i < records.size(); i += batchSize) {
      batches.add(records.subList(i, Math.min(records.size(), i + batchSize)));
    }
    // then every source partition moves past every trigger; empty batches let the rest fire (maxFired)
    batches.add(List.of(new Ev("tick z", 1000, 0), new Ev("tick z", 1000, 1), new Ev("tick z", 1000, 2)));
    while (batches.size() < MAX_TXID) {
      batches.add(List.of());
    }
    WatermarkStrategy.Builder<Ev> strategy = EventScript.strategy(bound);
    if (idleMillis >= 10) { // below 10: no timeout (the clock moves 10 ms per txid)
      strategy.idleTimeout(Duration.ofMillis(idleMillis));
    }
    Config config = new Config(batches, partitions, inFlight, maxFired, strategy.build());
    Result reference = run(config, List.of(), Map.of());
    Result replayed = run(config, faults, handlerFaults);
    assertEquals(reference.outputs, replayed.outputs, replayed.schedule);
    assertEquals(reference.fired, replayed.fired, replayed.schedule);
    assertEquals(reference.pending, replayed.pending, replayed.schedule);
    assertEquals(reference.watermark, replayed.watermark, replayed.schedule);
    Statistics.label("timers fired").collect(reference.fired.values().stream().mapToLong(Long::longValue).sum() > 0);
    Statistics.label("restarts").collect(replayed.restarts);
    Statistics.label("handler faults fired").collect(replayed.handlerFaultsFired);
  }

  record Config(List<List<Ev>> batches, int partitions, int inFlight, int maxFired, WatermarkStrategy<Ev> strategy) {
  }

  record Result(Map<Long, List<String>> outputs, Map<Object, Long> fired, List<String> pending, String watermark,
      int restarts, int handlerFaultsFired, String schedule) {
  }

  private Result run(Config config, List<Fault> faults, Map<Long, Boolean> handlerFaults) {
    TableStore store = TableStores.inMemory();
    FaultInjector injector = new FaultInjector(faults);
    CollectingSink<String> out = new CollectingSink<>("out");
    Set<Long> handlerFired = ConcurrentHashMap.newKeySet();
    ThreadLocal<Long> firingTxid = new ThreadLocal<>();
    ListSpout<Ev> spout = new ListSpout<>(config.batches());
    ReplayHarness.Outcome outcome = ReplayHarness.runToEnd(incarnation -> {
      TableCheckpointStore checkpoints = TableCheckpointStore.builder(store).owner("w" + incarnation).build();
      FlowStates states = FlowStates.builder().clock(b -> {
        firingTxid.set(b.txid()); // read on the partition's thread right before its timers fire
        return 10 * b.txid();
      }).build();
      PipelineBuilder builder = Pipeline.newBuilder("wm").partitions(config.partitions())
          .threads(config.partitions() > 1 ? 2 : 1).maxBatchesInFlight(config.inFlight())
          .retryPolicy(RetryPolicy.immediate(50)).sleeper(d -> { }).checkpointStore(injector.wrap(checkpoints));
      Flow.process(builder.source(spout), "c", Ev::key, () -> new EventScript(config.maxFired(), 2) {
        @Override
        public void onTimer(String key, Timer timer, Emitter<String> emitter) {
          super.onTimer(key, timer, emitter);
          long txid = firingTxid.get();
          if (handlerFaults.containsKey(txid) && handlerFired.add(txid)) {
            Fault f = new Fault(FaultPoint.BEFORE_STATE_WRITE, txid, handlerFaults.get(txid), 0);
            if (f.crash()) {
              throw new SimulatedCrash(f);
            }
            throw new InjectedFailure(f);
          }
        }
      }, states, config.strategy()).to("out", out);
      return builder.build();
    }, 60);
    Map<Long, List<String>> outputs = new TreeMap<>();
    for (CollectingSink.Output<String> o : out.committed()) {
      outputs.computeIfAbsent(o.txid(), t -> new ArrayList<>()).add(o.value());
    }
    outputs.values().forEach(l -> l.sort(null));
    return new Result(outputs, FlowTesting.read(store, "wm/c/fired", Codecs.longs()), pending(store),
        watermark(store), outcome.restarts(), handlerFired.size(), "faults " + faults + " fired " + injector.fired()
        + ", handler faults " + handlerFaults + " fired at " + handlerFired);
  }

  private static List<String> pending(TableStore store) {
    List<String> out = new ArrayList<>();
    store.findTable("wm/c/t.timers").ifPresent(t -> {
      try (StoreTransaction tx = store.begin()) {
        for (Row r : tx.scan(t)) {
          out.add(new String(r.getBytes("key"), StandardCharsets.UTF_8) + "@" + r.get("trigger") + ":"
              + (r.isNull("payload") ? "" : new String(r.getBytes("payload"), StandardCharsets.UTF_8)));
        }
      }
    });
    out.sort(null);
    return out;
  }

  /** The committed watermark row: watermark, late count, sources. */
  private static String watermark(TableStore store) {
    StringBuilder sb = new StringBuilder();
    store.findTable("wm/c/.watermark").ifPresent(t -> {
      try (StoreTransaction tx = store.begin()) {
        for (Row r : tx.scan(t)) {
          sb.append(r.getLong("watermark")).append(' ').append(r.getLong("late")).append(' ')
              .append(java.util.Arrays.toString(r.getBytes("sources")));
        }
      }
    });
    return sb.toString();
  }
}
