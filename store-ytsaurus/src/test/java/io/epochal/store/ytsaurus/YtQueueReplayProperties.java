package io.epochal.store.ytsaurus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.GroupedStream;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.spout.Spout;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.store.table.CommitProtocol;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import io.epochal.store.table.TableStore;
import io.epochal.testkit.Fault;
import io.epochal.testkit.FaultInjector;
import io.epochal.testkit.FaultPoint;
import io.epochal.testkit.Parallelism;
import io.epochal.testkit.ReplayArbitraries;
import io.epochal.testkit.ReplayHarness;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.GenerationMode;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;

/**
 * Replay properties of the YTsaurus queue spouts through the testkit's fault points, on {@link YtTableStore} over the
 * {@link YtProtocolDouble} (a test double of the HTTP API, not YTsaurus): an exactly-once word count from a 3-tablet
 * queue whose consumer is advanced inside every epoch commit. Every fault point fires, as a retryable failure and as a
 * crash (a new process: a new store object, new spout, new lease owner); lease points make the old worker a zombie
 * that must be fenced. At every restart and at the end the durable state must be consistent — the consumer's offsets
 * equal the end offsets in the committed checkpoint, and (epoch protocol) the counts equal a recount of exactly the
 * rows below them — and at the end the counts equal a recount of the whole queue.
 *
 * <p>Each try runs pipelines against the double over HTTP, so the tries are fixed here.
 */
class YtQueueReplayProperties {
  private static final AtomicInteger RUNS = new AtomicInteger();
  private static final Map<Integer, Long> SIZES = Map.of(0, 30L, 1, 17L, 2, 6L);
  private static YtProtocolDouble yt;

  @BeforeContainer
  static void start() {
    yt = YtProtocolDouble.start(3);
  }

  @AfterContainer
  static void stop() {
    yt.close();
  }

  /** Every fault point, failed and crashed, at txid 2, for both spout kinds: each must fire, and the count be exact. */
  @Property(generation = GenerationMode.EXHAUSTIVE)
  void everyFaultPointFailedAndCrashedKeepsCountsAndConsumerExact(@ForAll FaultPoint point, @ForAll boolean crash,
      @ForAll boolean opaque) {
    Fault fault = new Fault(point, 2, crash, 1);
    FaultInjector injector = run(opaque, List.of(fault), Parallelism.sequential(), 8, false);
    assertEquals(List.of(fault), injector.fired(), "the fault must fire");
  }

  @Property(tries = 12)
  void theTransactionalSpoutIsExactlyOnceUnderFaultsOnBothProtocols(@ForAll("faults") List<Fault> faults,
      @ForAll("parallelism") Parallelism par, @ForAll @IntRange(min = 1, max = 12) int cap,
      @ForAll boolean perKey) {
    record(run(false, faults, par, cap, perKey));
  }

  @Property(tries = 12)
  void theOpaqueSpoutIsExactlyOnceUnderFaultsOnTheEpochProtocol(@ForAll("faults") List<Fault> faults,
      @ForAll("parallelism") Parallelism par, @ForAll @IntRange(min = 1, max = 12) int cap) {
    record(run(true, faults, par, cap, false));
  }

  @Provide
  Arbitrary<List<Fault>> faults() {
    return ReplayArbitraries.faultSchedules(6, 4);
  }

  @Provide
  Arbitrary<Parallelism> parallelism() {
    return ReplayArbitraries.parallelism(3, 3, 2);
  }

  private static void record(FaultInjector injector) {
    for (Fault f : injector.fired()) {
      Statistics.label("failure point").collect(f.point() + (f.crash() ? " + restart" : ""));
    }
  }

  private static FaultInjector run(boolean opaque, List<Fault> faults, Parallelism par, int cap, boolean perKey) {
    String name = "replay-" + RUNS.incrementAndGet();
    String what = (opaque ? "opaque" : "transactional") + ", faults " + faults + ", " + par + ", cap " + cap
        + (perKey ? ", per-key protocol" : ", epoch protocol");
    QueueWorld w = new QueueWorld(yt, 3);
    SIZES.forEach((t, n) -> w.append(t, 0, n.intValue()));
    FaultInjector injector = new FaultInjector(faults);
    List<YtTableStore> stores = new ArrayList<>();
    try {
      ReplayHarness.runToEnd(incarnation -> {
        if (!stores.isEmpty()) {
          checkConsistent(w, stores.get(stores.size() - 1), name, !perKey, what + ", restart " + incarnation);
        }
        YtTableStore store = w.store().commitHook(injector.commitHook()).build();
        stores.add(store);
        TableStore fenced = injector.withLeaseFaults(store);
        TableCheckpointStore.Builder cb = TableCheckpointStore.builder(fenced).owner("worker-" + incarnation);
        TableCheckpointStore checkpoints = (perKey ? cb.protocol(CommitProtocol.PER_KEY) : cb).build();
        YtQueueSpoutConfig<String> cfg = w.spout("events").maxRowsPerPartition(cap).consumer(w.consumer)
            .advanceConsumerIn(store, name).build();
        Spout<String, ?> spout = opaque ? injector.wrap(YtQueueSpouts.opaque(cfg))
            : injector.wrap(YtQueueSpouts.transactional(cfg));
        PipelineBuilder b = Pipeline.newBuilder(name).partitions(par.partitions()).threads(par.threads())
            .maxBatchesInFlight(par.maxBatchesInFlight()).checkpointStore(injector.wrap(checkpoints))
            .retryPolicy(new RetryPolicy(20, Duration.ZERO, Duration.ZERO));
        GroupedStream<String, String> words = b.source(spout).flatMap(s -> Arrays.asList(s.split(" ")))
            .groupBy(x -> x);
        words.persistentAggregate("counts", TransactionalTableLayout.factory(TableStates.builder(KeyCodec.strings("word"), Codecs.longs()).layer(injector.layer())), Aggregators.count());
        return b.build();
      }, 20);
      YtTableStore last = stores.get(stores.size() - 1);
      checkConsistent(w, last, name, true, what + ", at the end");
      assertEquals(w.recount(null, 3), QueueWorld.counts(last, name + "/counts", true), what);
      assertEquals(SIZES, w.consumerOffsets(), what);
      assertTrue(injector.fencingViolations().isEmpty(), what + ": " + injector.fencingViolations());
      return injector;
    } finally {
      stores.forEach(YtTableStore::close);
    }
  }

  /** Consumer offsets = committed end offsets; on the epoch protocol, counts = the rows below them. */
  private static void checkConsistent(QueueWorld w, YtTableStore store, String name, boolean counts, String what) {
    Map<Integer, Long> ends = QueueWorld.committedEnds(store, name);
    assertEquals(ends, w.consumerOffsets(), what + ": consumer offsets vs the committed checkpoint");
    if (counts) {
      assertEquals(w.recount(ends, 3), QueueWorld.counts(store, name + "/counts", true),
          what + ": committed counts vs the rows below the committed offsets " + ends);
    }
  }
}
