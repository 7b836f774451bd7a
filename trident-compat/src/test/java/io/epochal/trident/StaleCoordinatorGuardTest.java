package io.epochal.trident;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.storm.topology.FailedException;
import org.apache.storm.trident.state.map.MapState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A stale master batch coordinator on Storm 2.8.3's own {@code OpaquePartitionedTridentSpoutExecutor} emitter: after
 * Storm reassigned a frozen worker's executors and the frozen worker resumed, its coordinator (same task id as the new
 * one) sends its stale txid to the live spout executors, which emit it. Storm's executor caches the metadata of that
 * emission under the old txid, and the next real batch continues from that cache ({@code cachedMetas.lowerEntry}):
 * the range the stale batch took is skipped, and every state fed by the spout silently loses it. Found on the real
 * cluster ({@code StormClusterFencingIT}: 29,900 of 30,000 words, one batch short, after the zombie's end).
 *
 * <p>The guard ({@link StormStateBuilder#guard}) refuses a txid more than the batches in flight below the highest one
 * it recorded ({@link StaleBatchException}), before Storm's executor caches anything from it, and refuses a range that
 * does not start where the previous txid's range ended ({@link RangeGapException}).
 */
class StaleCoordinatorGuardTest {
  @RegisterExtension
  static final GuardWorld WORLD = new GuardWorld("stale");

  private static List<String> sentences() {
    return Sentences.make(60, 4242);
  }

  private static Map<String, Long> expected() {
    return Sentences.counts(sentences());
  }

  private static long total(MapState<Object> state) {
    return GuardWorld.sum(GuardWorld.counts(state, expected().keySet()));
  }

  private static long sum(Map<String, Long> counts) {
    return GuardWorld.sum(counts);
  }

  /** Txids 1..5 emitted and committed in order, one batch in flight. */
  private static void firstFive(StormEmitterDriver e, List<MapState<Object>> states) {
    for (long t = 1; t <= 5; t++) {
      e.emit(t, 0);
      e.commit(t, states);
    }
  }

  @Test
  void stormSkipsTheRangeAStaleCoordinatorsBatchTookThenRepeatsTheNext() {
    Map<String, Object> conf = WORLD.conf(1);
    MapState<Object> storm = GuardWorld.memory(conf);
    List<MapState<Object>> states = List.of(storm);
    List<List<String>> data = TestPartitionedSpouts.split(sentences(), 2);
    StormEmitterDriver e = new StormEmitterDriver(new TestPartitionedSpouts.Opaque(data, 3), conf);
    firstFive(e, states);
    // The resumed zombie's coordinator re-sends its txid 2 (attempt 6: the test spout cuts 3 sentences at attempts
    // 0 and 6): the live executor emits the next range (sentences 15..17 of each partition) under it; the batch never
    // commits (the state refuses a txid below its marker, or the batch times out).
    e.emit(2, 6);
    assertEquals(List.of(data.get(0).get(15), data.get(0).get(16), data.get(0).get(17), data.get(1).get(15),
        data.get(1).get(16), data.get(1).get(17)), sorted(e.emitted.get(2L), data));
    e.emit(6, 0);
    e.commit(6, states);
    e.emit(7, 0);
    e.commit(7, states);
    // Txid 6 continued from the stale emission (sentences 18..20: 15..17 are never counted), and so does every later
    // txid while the executor lives (txid 7 repeats 18..20): Storm loses one range and counts the next again.
    assertEquals(List.of(data.get(0).get(18), data.get(0).get(19), data.get(0).get(20), data.get(1).get(18),
        data.get(1).get(19), data.get(1).get(20)), sorted(e.emitted.get(6L), data));
    assertEquals(e.emitted.get(6L), e.emitted.get(7L));
  }

  /** The sentences of a batch in (partition, offset) order. */
  private static List<String> sorted(List<String> batch, List<List<String>> data) {
    List<String> out = new ArrayList<>(batch);
    out.sort(java.util.Comparator.comparingInt((String s) -> data.get(0).contains(s) ? 0 : 1)
        .thenComparingInt(s -> data.get(0).contains(s) ? data.get(0).indexOf(s) : data.get(1).indexOf(s)));
    return out;
  }

  @Test
  void theGuardRefusesTheStaleBatchBeforeStormCachesItAndTheCountsStayExact() {
    Map<String, Object> conf = WORLD.conf(1);
    StormStateBuilder state = WORLD.newState();
    MapState<Object> epochal = GuardWorld.epochal(state, conf);
    MapState<Object> storm = GuardWorld.memory(conf);
    List<MapState<Object>> states = List.of(epochal, storm);
    StormEmitterDriver e = new StormEmitterDriver(state.guard("sentences", new TestPartitionedSpouts.Opaque(
        TestPartitionedSpouts.split(sentences(), 2), 3)), conf);
    firstFive(e, states);
    long sent = e.sent;
    FailedException failed = assertThrows(FailedException.class, () -> e.emit(2, 7));
    assertEquals(sent, e.sent, "a refused batch sends no tuple");
    StaleBatchException stale = assertInstanceOf(StaleBatchException.class, failed.getCause());
    assertEquals(2, stale.txid());
    assertEquals(5, stale.highestTxid());
    assertEquals("sentences", stale.spout());
    // The coordinator's replay of its own stale txid is refused again, however often it retries.
    assertThrows(FailedException.class, () -> e.emit(2, 8));
    e.drain(6, states);
    assertEquals(sum(expected()), total(epochal));
    assertEquals(sum(expected()), total(storm), "the guard is in the spout: every state fed by it is exact");
  }

  @Test
  void replaysWithinTheBatchesInFlightAreNotStale() {
    Map<String, Object> conf = WORLD.conf(3);
    StormStateBuilder state = WORLD.newState();
    MapState<Object> epochal = GuardWorld.epochal(state, conf);
    List<MapState<Object>> states = List.of(epochal);
    StormEmitterDriver e = new StormEmitterDriver(state.guard("sentences", new TestPartitionedSpouts.Opaque(
        TestPartitionedSpouts.split(sentences(), 2), 3)), conf);
    e.emit(1, 0);
    e.commit(1, states);
    e.emit(2, 0);
    e.emit(3, 0);
    e.emit(4, 0);
    // Txid 2 failed: the coordinator replays 2, 3, 4 (two below the highest, with 3 in flight: not stale).
    e.emit(2, 1);
    e.emit(3, 1);
    e.emit(4, 1);
    e.commit(2, states);
    e.commit(3, states);
    e.commit(4, states);
    e.drain(5, states);
    assertEquals(sum(expected()), total(epochal));
  }

  @Test
  void aReplayThatDoesNotStartWhereThePreviousTxidEndedIsRefused() {
    Map<String, Object> conf = WORLD.conf(3);
    StormStateBuilder state = WORLD.newState();
    MapState<Object> epochal = GuardWorld.epochal(state, conf);
    List<MapState<Object>> states = List.of(epochal);
    StormEmitterDriver e = new StormEmitterDriver(state.guard("sentences", new TestPartitionedSpouts.Opaque(
        TestPartitionedSpouts.split(sentences(), 2), 3)), conf);
    firstFive(e, states);
    // Txid 4 again, within the batches in flight, so the stale check cannot tell; Storm's executor emits the next
    // range under it (from its committed txid 5), which does not start where txid 3 ended.
    long sent = e.sent;
    FailedException failed = assertThrows(FailedException.class, () -> e.emit(4, 5));
    assertEquals(sent, e.sent, "a refused batch sends no tuple");
    RangeGapException gap = assertInstanceOf(RangeGapException.class, failed.getCause());
    assertEquals(4, gap.txid());
    assertEquals(3, gap.previousTxid());
    assertEquals("sentences", gap.spout());
    e.drain(6, states);
    assertEquals(sum(expected()), total(epochal));
  }
}
