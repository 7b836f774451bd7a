package io.epochal.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.epochal.codec.Codecs;
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
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.constraints.IntRange;

/**
 * Timers under the testkit's fault schedules: random adds, deletes and re-arming timers (handlers that add the next
 * timer) over random batches, partitions and batches in flight; failures and crash-restarts after the state writes,
 * inside and during the checkpoint commit, and inside timer handlers (a firing epoch that fails, or whose process
 * dies, after some timers fired); restarts between a timer's creation and its firing. The committed outputs (per
 * txid), the final states and the pending timers equal those of the same input run without failures. Runs
 * {@code -Depochal.tries=N} schedules.
 */
class TimerReplayProperties {
  private static final int MAX_TXID = 16;
  private static final Set<FaultPoint> POINTS = EnumSet.of(FaultPoint.AFTER_STATE_WRITES,
      FaultPoint.INSIDE_CHECKPOINT_COMMIT, FaultPoint.DURING_CHECKPOINT_COMMIT);

  @Provide
  Arbitrary<List<String>> commands() {
    Arbitrary<String> key = Arbitraries.of("a", "b", "c", "d", "e");
    Arbitrary<Long> trigger = Arbitraries.longs().between(0, 120);
    Arbitrary<String> add = Combinators.combine(key, trigger).as((k, t) -> "add " + k + " " + t);
    Arbitrary<String> again = Combinators.combine(key, trigger, Arbitraries.integers().between(0, 3))
        .as((k, t, n) -> "add " + k + " " + t + " again-" + n);
    Arbitrary<String> del = Combinators.combine(key, trigger).as((k, t) -> "del " + k + " " + t);
    return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(5, add), net.jqwik.api.Tuple.of(2, again),
        net.jqwik.api.Tuple.of(2, del)).list().ofMaxSize(30);
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
  void timersFireExactlyOnceThroughFailuresAndRestarts(@ForAll("commands") List<String> commands,
      @ForAll @IntRange(min = 1, max = 5) int batchSize, @ForAll @IntRange(min = 1, max = 3) int partitions,
      @ForAll @IntRange(min = 1, max = 2) int inFlight, @ForAll @IntRange(min = 1, max = 3) int maxFired,
      @ForAll("faults") List<Fault> faults, @ForAll("handlerFaults") Map<Long, Boolean> handlerFaults) {
    List<List<String>> batches = new ArrayList<>();
    for (int i = 0; i < commands.size(); i += batchSize) {
      batches.add(commands.subList(i, Math.min(commands.size(), i + batchSize)));
    }
    while (batches.size() < MAX_TXID) {
      batches.add(List.of()); // the clock runs on: 10 per txid, past every trigger (some stay pending: maxFired)
    }
    Result reference = run(batches, partitions, inFlight, maxFired, List.of(), Map.of());
    Result replayed = run(batches, partitions, inFlight, maxFired, faults, handlerFaults);
    assertEquals(reference.outputs, replayed.outputs, replayed.schedule);
    assertEquals(reference.fired, replayed.fired, replayed.schedule);
    assertEquals(reference.pending, replayed.pending, replayed.schedule);
    Statistics.label("timers fired").collect(reference.outputs.values().stream().mapToInt(List::size).sum() > 0);
    Statistics.label("restarts").collect(replayed.restarts);
    Statistics.label("handler faults fired").collect(replayed.handlerFaultsFired);
  }

  record Result(Map<Long, List<String>> outputs, Map<Object, Long> fired, List<String> pending, int restarts,
      int handlerFaultsFired, String schedule) {
  }

  private Result run(List<List<String>> batches, int partitions, int inFlight, int maxFired, List<Fault> faults,
      Map<Long, Boolean> handlerFaults) {
    TableStore store = TableStores.inMemory();
    FaultInjector injector = new FaultInjector(faults);
    CollectingSink<String> out = new CollectingSink<>("out");
    Set<Long> handlerFired = ConcurrentHashMap.newKeySet();
    ThreadLocal<Long> firingTxid = new ThreadLocal<>();
    ListSpout<String> spout = new ListSpout<>(batches);
    ReplayHarness.Outcome outcome = ReplayHarness.runToEnd(incarnation -> {
      TableCheckpointStore checkpoints = TableCheckpointStore.builder(store).owner("w" + incarnation).build();
      FlowStates states = FlowStates.builder().clock(b -> {
        firingTxid.set(b.txid()); // read on the partition's thread right before its timers fire
        return 10 * b.txid();
      }).build();
      PipelineBuilder builder = Pipeline.newBuilder("timers").partitions(partitions).threads(partitions > 1 ? 2 : 1)
          .maxBatchesInFlight(inFlight).retryPolicy(RetryPolicy.immediate(50)).sleeper(d -> { })
          .checkpointStore(injector.wrap(checkpoints));
      Flow.process(builder.source(spout), "c", TimerScript::key,
          () -> new TimerScript(TimeDomain.PROCESSING_TIME, maxFired, 2) {
            @Override
            public void onTimer(String key, Timer timer, Emitter<String> emitter) {
              super.onTimer(key, timer, emitter);
              // the first timer fired in a txid with a handler fault: fail (or die) after it fired and emitted
              long txid = firingTxid.get();
              if (handlerFaults.containsKey(txid) && handlerFired.add(txid)) {
                Fault f = new Fault(FaultPoint.BEFORE_STATE_WRITE, txid, handlerFaults.get(txid), 0);
                if (f.crash()) {
                  throw new SimulatedCrash(f);
                }
                throw new InjectedFailure(f);
              }
            }
          }, states).to("out", out);
      return builder.build();
    }, 60);
    Map<Long, List<String>> outputs = new TreeMap<>();
    for (CollectingSink.Output<String> o : out.committed()) {
      outputs.computeIfAbsent(o.txid(), t -> new ArrayList<>()).add(o.value());
    }
    outputs.values().forEach(l -> l.sort(null));
    return new Result(outputs, FlowTesting.read(store, "timers/c/fired", Codecs.longs()), pending(store),
        outcome.restarts(), handlerFired.size(), "faults " + faults + " fired " + injector.fired() + ", handler faults "
        + handlerFaults + " fired at " + handlerFired);
  }

  private static List<String> pending(TableStore store) {
    List<String> out = new ArrayList<>();
    store.findTable("timers/c/t.timers").ifPresent(t -> {
      try (StoreTransaction tx = store.begin()) {
        for (Row r : tx.scan(t)) {
          out.add(new String(r.getBytes("key"), java.nio.charset.StandardCharsets.UTF_8) + "@" + r.get("trigger")
              + ":" + (r.isNull("payload") ? "" : new String(r.getBytes("payload"),
                  java.nio.charset.StandardCharsets.UTF_8)));
        }
      }
    });
    out.sort(null);
    return out;
  }
}
