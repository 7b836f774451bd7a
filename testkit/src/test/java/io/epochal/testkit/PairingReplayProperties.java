package io.epochal.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.GuaranteeNotDeliverableException;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Guarantee;
import io.epochal.pipeline.Pipeline;
import io.epochal.pipeline.PipelineBuilder;
import io.epochal.spout.SpoutKind;
import io.epochal.spouts.ReCuttingOpaqueSpout;
import io.epochal.state.IBackingMap;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import io.epochal.state.opaque.OpaqueMap;
import io.epochal.state.opaque.OpaqueValue;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalValue;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.statistics.StatisticsCoverage;

/**
 * The replay properties of the exactly-once pairings, run on the testkit's machinery ({@link ReplayCheck} over
 * {@link ReplayArbitraries#schedules}): for random inputs, batch cuts, partition counts, batches in flight, worker
 * threads and failure schedules (fail after the spout emitted, before the first state write, between two keys of one
 * multiPut, after the state writes before the checkpoint commit, inside and after the checkpoint commit, and
 * crash-and-restart at any of those points), the final word counts equal the fold of the input. Runs
 * {@code -Depochal.tries=N} schedules per property (jqwik's {@code jqwik.tries.default}).
 */
class PairingReplayProperties {

  /** The word count every property runs, over a backing map of cells {@code C} under a txid rule. */
  static <C> ReplayCheck<String, String, Long> wordCount(SpoutKind spout, Guarantee guarantee,
      Function<IBackingMap<String, C>, StateFactory<MapState<String, Long>>> rule, Function<C, Long> value) {
    return ReplayCheck.<InMemoryBackingMap<String, C>, String, String, Long>forPipeline(
            () -> new InMemoryBackingMap<>("counts"),
            (source, store, context) -> source
                .flatMap(s -> Arrays.asList(s.split(" ")))
                .groupBy(w -> w)
                .persistentAggregate("counts", rule.apply(context.wrap(store)), Aggregators.count()),
            store -> values(store.snapshot(), value))
        .name("word-count")
        .spout(spout)
        .guarantee(guarantee)
        .oracle(Oracle.fold("the word counts of the input", PairingReplayProperties::expectedCounts))
        .build();
  }

  private static final ReplayCheck<String, String, Long> TRANSACTIONAL =
      PairingReplayProperties.<TransactionalValue<Long>>wordCount(SpoutKind.TRANSACTIONAL,
      Guarantee.EXACTLY_ONCE, TransactionalMap::factory, TransactionalValue::value);
  private static final ReplayCheck<String, String, Long> OPAQUE =
      PairingReplayProperties.<OpaqueValue<Long>>wordCount(SpoutKind.TRANSACTIONAL,
      Guarantee.EXACTLY_ONCE, OpaqueMap::factory, OpaqueValue::curr);

  @Provide
  Arbitrary<ReplaySchedule<String>> schedules() {
    return ReplayArbitraries.schedules(ReplayArbitraries.sentences(40));
  }

  @Property
  void transactionalSpoutIntoTransactionalMapCountsExactlyOnce(
      @ForAll("schedules") ReplaySchedule<String> schedule) {
    record(TRANSACTIONAL.check(schedule));
  }

  @Property
  void transactionalSpoutIntoOpaqueMapCountsExactlyOnce(@ForAll("schedules") ReplaySchedule<String> schedule) {
    record(OPAQUE.check(schedule));
  }

  /**
   * Why (opaque spout, OpaqueMap) is refused on the per-key protocol: a failed attempt wrote key {@code x}; the
   * re-cut replay of the same txid no longer contains {@code x}, so its cell keeps the failed attempt's value, and the
   * next batch (which now holds those records) counts them again. Storm Trident has the same hole. The epoch
   * protocol (atomic stores) makes the pairing exactly-once: see the table-store replay properties.
   */
  @Example
  void opaqueSpoutIntoOpaqueMapMiscountsOnThePerKeyProtocol() {
    ReplayResult<String, Long> result = PairingReplayProperties.<OpaqueValue<Long>>wordCount(SpoutKind.OPAQUE,
        Guarantee.AT_LEAST_ONCE, OpaqueMap::factory, OpaqueValue::curr).run(recutAfterStateWrites());
    assertMiscountsTheDroppedKeys(result);
  }

  /**
   * The pairing that validation refuses: an opaque spout re-cuts a replayed batch, and TransactionalMap skips keys it
   * already wrote under that txid (under EXACTLY_ONCE rules a key the re-cut replay holds more records of would lose
   * them). Forced with AT_LEAST_ONCE, which re-applies such cells instead of skipping them, the same schedule counts
   * the failed attempt's records again: a and b (re-applied by the replay) and c and d (kept by the failed attempt,
   * counted again by txid 2) are 2, nothing is below its count.
   */
  @Example
  void opaqueSpoutIntoTransactionalMapCountsTwiceUnderAtLeastOnce() {
    ReplayResult<String, Long> result = PairingReplayProperties.<TransactionalValue<Long>>wordCount(
        SpoutKind.OPAQUE, Guarantee.AT_LEAST_ONCE, TransactionalMap::factory, TransactionalValue::value).run(recutAfterStateWrites());
    assertFalse(result.passed(), result.report());
    assertEquals(List.of("a", "b", "c", "d"), List.copyOf(result.differences().keySet()), result.report());
    for (String k : List.of("a", "b", "c", "d")) {
      assertEquals(2L, result.actual().get(k), result.report());
    }
    assertEquals(1L, result.actual().get("e"), result.report());
  }

  /** Batch 1 = "a b", "c d"; it fails after its state writes, and the replay re-cuts it to "a b" alone. */
  private static ReplaySchedule<String> recutAfterStateWrites() {
    return new ReplaySchedule<>(List.of("a b", "c d", "e f"), new BatchCuts(List.of(2), List.of(1)),
        Parallelism.sequential(), List.of(Fault.fail(FaultPoint.AFTER_STATE_WRITES, 1)));
  }

  private static void assertMiscountsTheDroppedKeys(ReplayResult<String, Long> result) {
    assertFalse(result.passed(), result.report());
    assertEquals(List.of("c", "d"), List.copyOf(result.differences().keySet()), result.report());
    assertEquals(2L, result.actual().get("c"), result.report());
    assertTrue(result.report().contains("c: expected 1, actual 2"), result.report());
  }

  @Example
  void exactlyOnceRefusesOpaqueSpoutIntoOpaqueMapOverAPerKeyStore() {
    PipelineBuilder builder = Pipeline.newBuilder("refused");
    builder.source(ReCuttingOpaqueSpout.of("sentences", List.of("a"), 1, 2, 1))
        .flatMap(s -> Arrays.asList(s.split(" ")))
        .groupBy(w -> w)
        .persistentAggregate("counts", OpaqueMap.<String, Long>factory(new InMemoryBackingMap<>()),
            Aggregators.count());
    GuaranteeNotDeliverableException e = assertThrows(GuaranteeNotDeliverableException.class, builder::build);
    assertTrue(e.getMessage().contains("per-key") && e.getMessage().contains("Fix:"), e.getMessage());
  }

  @Example
  void exactlyOnceRefusesOpaqueSpoutIntoTransactionalMapOverAPerKeyStore() {
    PipelineBuilder builder = Pipeline.newBuilder("refused");
    builder.source(ReCuttingOpaqueSpout.of("sentences", List.of("a"), 1, 2, 1))
        .flatMap(s -> Arrays.asList(s.split(" ")))
        .groupBy(w -> w)
        .persistentAggregate("counts", TransactionalMap.<String, Long>factory(new InMemoryBackingMap<>()),
            Aggregators.count());
    GuaranteeNotDeliverableException e = assertThrows(GuaranteeNotDeliverableException.class, builder::build);
    assertTrue(e.getMessage().contains("sentences") && e.getMessage().contains("counts")
        && e.getMessage().contains("Fix:"), e.getMessage());
  }

  // ---------------------------------------------------------------------------------------------------------------

  static Map<String, Long> expectedCounts(List<String> input) {
    Map<String, Long> counts = new TreeMap<>();
    for (String s : input) {
      for (String w : s.split(" ")) {
        counts.merge(w, 1L, Long::sum);
      }
    }
    return counts;
  }

  static <C> Map<String, Long> values(Map<String, C> cells, Function<C, Long> value) {
    Map<String, Long> out = new TreeMap<>();
    cells.forEach((k, c) -> out.put(k, value.apply(c)));
    return out;
  }

  /** Collects which points fired, and requires every point, failed and crashed, to be reached over the tries. */
  static void record(ReplayResult<?, ?> result) {
    for (Fault f : result.fired()) {
      Statistics.label("failure point").collect(f.point() + (f.crash() ? " + restart" : ""));
    }
    Statistics.label("failure point").coverage(PairingReplayProperties::everyPointReached);
  }

  private static void everyPointReached(StatisticsCoverage coverage) {
    for (FaultPoint p : FaultPoint.values()) {
      if (p.isLeasePoint()) {
        continue; // no lease in these pipelines: the zombie points fire only in table-store targets
      }
      coverage.check(p + "").count(c -> c > 0);
      coverage.check(p + " + restart").count(c -> c > 0);
    }
  }
}
