package io.epochal.testkit;

import io.epochal.codec.Codecs;
import io.epochal.errors.BatchFailedException;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Guarantee;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.pipeline.RetryPolicy;
import io.epochal.spout.Spout;
import io.epochal.spouts.ListSpout;
import io.epochal.spouts.ReCuttingOpaqueSpout;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import io.epochal.state.opaque.OpaqueMap;
import io.epochal.state.opaque.OpaqueTableLayout;
import io.epochal.state.opaque.OpaqueValue;
import io.epochal.store.CheckpointStore;
import io.epochal.store.InMemoryCheckpointStore;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStores;
import io.epochal.testing.TriesScale;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.stream.LongStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.statistics.Statistics;
import org.junit.jupiter.api.Assertions;

/**
 * The attempt numbers a spout sees strictly grow per txid and never repeat (issue 10, finding 10), whatever fails
 * where and however often the pipeline is restarted over the same stores: random spout kinds, checkpoint stores,
 * windows, partitions and threads, random retryable failures and crashes at the spout, before the state writes, before
 * and after the checkpoint commit, and random voluntary restarts after a random number of batches. Runs
 * {@code -Depochal.tries=N} schedules.
 */
@AddLifecycleHook(TriesScale.class) // a share of the tries by default: -Depochal.tries.scale=1 runs all
class AttemptNumberProperties {
  private static final List<Long> NUMBERS = LongStream.range(0, 48).boxed().toList();
  private static final List<FaultPoint> POINTS = List.of(FaultPoint.AFTER_EMIT, FaultPoint.BEFORE_STATE_WRITE,
      FaultPoint.AFTER_STATE_WRITES, FaultPoint.DURING_CHECKPOINT_COMMIT);

  /** What goes wrong in one try: faults (retryable or crashes), and voluntary restarts after so many batches. */
  record Trouble(List<Fault> faults, List<Integer> restartsAfter) {
  }

  @Provide
  Arbitrary<Trouble> trouble() {
    Arbitrary<Fault> fault = Combinators.combine(Arbitraries.of(POINTS), Arbitraries.longs().between(1, 14),
        Arbitraries.of(false, false, true)).as((point, txid, crash) -> new Fault(point, txid, crash, 0));
    return Combinators.combine(fault.list().ofMaxSize(8), Arbitraries.integers().between(0, 5).list().ofMaxSize(4))
        .as(Trouble::new);
  }

  @Property
  void attemptsOfATxidStrictlyIncreaseAcrossDropsAndRestarts(@ForAll boolean opaque, @ForAll boolean table,
      @ForAll @IntRange(min = 1, max = 4) int window, @ForAll @IntRange(min = 1, max = 3) int partitions,
      @ForAll @IntRange(min = 1, max = 2) int threads, @ForAll("trouble") Trouble trouble) {
    List<Fault> faults = trouble.faults();
    List<Integer> restartsAfter = trouble.restartsAfter();
    AttemptRecorder recorder = new AttemptRecorder();
    FaultInjector injector = new FaultInjector(faults);
    CheckpointStore base;
    StateFactory<MapState<Long, Long>> counts;
    if (table) {
      TableCheckpointStore cps = TableCheckpointStore.on(TableStores.inMemory());
      base = cps;
      counts = injector.wrapStates(OpaqueTableLayout.factory(KeyCodec.longs(), Codecs.longs()));
    } else {
      base = new InMemoryCheckpointStore();
      counts = OpaqueMap.factory(injector.wrap(new InMemoryBackingMap<Long, OpaqueValue<Long>>()));
    }
    CheckpointStore checkpoints = injector.wrap(base);
    Spout<Long, ?> spout = opaque ? injector.wrap(ReCuttingOpaqueSpout.of("numbers", NUMBERS, 2, 6, 5))
        : injector.wrap(ListSpout.of("numbers", NUMBERS, 4));
    Deque<Integer> voluntary = new ArrayDeque<>(restartsAfter);
    int restarts = 0;
    boolean done = false;
    for (int run = 0; run < 40 && !done; run++) {
      PipelineBuilder b = Pipeline.newBuilder("attempts").partitions(partitions).threads(threads)
          .maxBatchesInFlight(window).retryPolicy(RetryPolicy.immediate(50)).checkpointStore(checkpoints)
          .guarantee(table ? Guarantee.EXACTLY_ONCE : Guarantee.AT_LEAST_ONCE);
      b.source(recorder.wrap(spout)).groupBy(x -> x % 5).persistentAggregate("counts", counts, Aggregators.count());
      try (Pipeline p = b.build()) {
        Integer stopAfter = voluntary.poll();
        if (stopAfter == null) {
          p.runUntilIdle();
          done = true;
        } else {
          p.run(stopAfter);
        }
      } catch (SimulatedCrash crash) {
        // the process died: the next iteration restarts over the same stores
      } catch (BatchFailedException e) {
        Assertions.fail("a retryable fault exhausted the retries: " + e);
      }
      restarts++;
    }
    Assertions.assertTrue(done, "the pipeline finished within 40 runs");
    Optional<String> violation = recorder.violation();
    Assertions.assertEquals(Optional.empty(), violation);
    Statistics.label("re-emitted").collect(recorder.reEmissions() > 0);
    Statistics.label("runs").collect(restarts > 1 ? "restarted" : "one run");
    Statistics.label("re-emitted").coverage(c -> c.check(true).count(n -> n > 0));
    Statistics.label("runs").coverage(c -> c.check("restarted").count(n -> n > 0));
  }
}
