package io.epochal.trident;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.LeaseLostException;
import java.util.List;
import java.util.Map;
import org.apache.storm.topology.FailedException;
import org.apache.storm.trident.spout.IOpaquePartitionedTridentSpout;
import org.apache.storm.trident.state.map.MapState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * STORM-1557 reproduced on Storm 2.8.3's own {@code OpaquePartitionedTridentSpoutExecutor} emitter (its per-txid
 * metadata cache and ZooKeeper partition state, on an in-process ZooKeeper), driven with the txid order Storm's
 * coordinator produces with several batches in flight: txid 3 is emitted before txid 2. Both then start from the
 * metadata committed by txid 1 and emit the same range; Storm commits both and every state counts the range twice.
 * The guard ({@link StormStateBuilder#guard}) fails txid 2 instead, the driver replays 2 and 3 as the coordinator does
 * after a failure, and the counts equal a recount. The batches are word counts persisted as {@code persistentAggregate}
 * does (one {@code multiUpdate} of Count per committed batch) into Storm's {@code MemoryMapState} and Epochal's state.
 */
class Storm1557GuardTest {
  @RegisterExtension
  static final GuardWorld WORLD = new GuardWorld("storm1557");

  private static List<List<String>> data() {
    return TestPartitionedSpouts.split(Sentences.make(60, 1557), 2);
  }

  private static Map<String, Long> expected() {
    return Sentences.counts(Sentences.make(60, 1557));
  }

  private static Map<String, Long> counts(MapState<Object> state) {
    return GuardWorld.counts(state, expected().keySet());
  }

  private static long total(Map<String, Long> counts) {
    return GuardWorld.sum(counts);
  }

  @Test
  void stormCountsARangeTwiceWhenTxid3IsEmittedBeforeTxid2() {
    Map<String, Object> conf = WORLD.conf(3);
    MapState<Object> storm = GuardWorld.memory(conf);
    MapState<Object> epochal = GuardWorld.epochal(WORLD.newState(), conf);
    List<MapState<Object>> states = List.of(storm, epochal);
    StormEmitterDriver e = new StormEmitterDriver(new TestPartitionedSpouts.Opaque(data(), 3), conf);
    e.emit(1, 0);
    e.commit(1, states);
    int third = e.emit(3, 0);
    int second = e.emit(2, 0);
    assertEquals(e.emitted.get(3L), e.emitted.get(2L), "Storm's emitter gives txids 2 and 3 the same range");
    assertTrue(second > 0 && third > 0);
    e.commit(2, states);
    e.commit(3, states);
    e.drain(4, states);
    long words = 0;
    for (String s : e.emitted.get(2L)) {
      words += s.split(" ").length;
    }
    // Storm's MemoryMapState counts the range twice; so does any state fed by the unguarded spout.
    assertEquals(total(expected()) + words, total(counts(storm)));
    assertNotEquals(expected(), counts(storm));
    assertEquals(counts(storm), counts(epochal));
  }

  @Test
  void theGuardFailsTheSecondEmissionOfTheRangeAndTheReplayCountsExactly() {
    Map<String, Object> conf = WORLD.conf(3);
    StormStateBuilder state = WORLD.newState();
    MapState<Object> epochal = GuardWorld.epochal(state, conf);
    MapState<Object> storm = GuardWorld.memory(conf);
    List<MapState<Object>> states = List.of(epochal, storm);
    StormEmitterDriver e = new StormEmitterDriver(state.guard("sentences", new TestPartitionedSpouts.Opaque(data(), 3)), conf);
    e.emit(1, 0);
    e.commit(1, states);
    e.emit(3, 0);
    long sent = e.sent;
    FailedException failed = assertThrows(FailedException.class, () -> e.emit(2, 0));
    assertEquals(sent, e.sent, "the refused emission sends no tuple: Storm may still commit the batch");
    RangeEmittedTwiceException twice = assertInstanceOf(RangeEmittedTwiceException.class, failed.getCause());
    assertEquals(2, twice.txid());
    assertEquals(3, twice.firstTxid());
    assertTrue(twice.retryable());
    // The coordinator fails txid 2 and every later one, and replays them in order (attempt 1 re-cuts them).
    e.emit(2, 1);
    e.emit(3, 1);
    e.commit(2, states);
    e.commit(3, states);
    // The race again, on the next txids.
    e.emit(5, 0);
    FailedException again = assertThrows(FailedException.class, () -> e.emit(4, 0));
    assertEquals(5, ((RangeEmittedTwiceException) again.getCause()).firstTxid());
    e.emit(4, 1);
    e.emit(5, 1);
    e.commit(4, states);
    e.commit(5, states);
    e.drain(6, states);
    assertEquals(expected(), counts(epochal));
    assertEquals(expected(), counts(storm), "the guard is in the spout: every state fed by it is exact");
  }

  @Test
  void replaysInOrderAreNeverRefusedEvenWhenTheyReCutTheBatches() {
    Map<String, Object> conf = WORLD.conf(3);
    StormStateBuilder state = WORLD.newState();
    MapState<Object> epochal = GuardWorld.epochal(state, conf);
    List<MapState<Object>> states = List.of(epochal);
    StormEmitterDriver e = new StormEmitterDriver(state.guard("sentences", new TestPartitionedSpouts.Opaque(data(), 3)), conf);
    e.emit(1, 0);
    e.emit(2, 0);
    e.emit(3, 0);
    e.emit(4, 0);
    e.commit(1, states);
    // Txid 2 fails: 2, 3 and 4 are replayed with new attempts, each re-cut one sentence longer, then twice more.
    for (int attempt = 1; attempt <= 3; attempt++) {
      e.emit(2, attempt);
      e.emit(3, attempt);
      e.emit(4, attempt);
    }
    e.commit(2, states);
    e.commit(3, states);
    e.commit(4, states);
    e.drain(5, states);
    assertEquals(expected(), counts(epochal));
  }

  @Test
  void aZombieEmitterOfTheSameTaskCannotRecord() {
    Map<String, Object> conf = WORLD.conf(3);
    StormStateBuilder state = WORLD.newState();
    IOpaquePartitionedTridentSpout<Integer, TestPartitionedSpouts.Partition, Map<String, Object>> guarded =
        state.guard("sentences", new TestPartitionedSpouts.Opaque(data(), 3));
    StormEmitterDriver zombie = new StormEmitterDriver(guarded, conf);
    zombie.emit(1, 0);
    StormEmitterDriver successor = new StormEmitterDriver(guarded, conf); // Storm moved the task: same task index
    successor.emit(1, 0); // the same cut, so only the lease can refuse the zombie
    assertThrows(LeaseLostException.class, () -> zombie.emit(2, 0));
  }

  @Test
  void emptyEmissionsUnderTwoTxidsAreNotRefusedAsRepeats() {
    Map<String, Object> conf = WORLD.conf(3);
    StormStateBuilder state = WORLD.newState();
    StormEmitterDriver e = new StormEmitterDriver(state.guard("sentences", new TestPartitionedSpouts.Opaque(
        List.of(List.of(), List.of()), 3)), conf);
    assertEquals(0, e.emit(2, 0));
    assertEquals(0, e.emit(1, 0)); // the same (empty) start under two txids: nothing to count twice
  }

}
