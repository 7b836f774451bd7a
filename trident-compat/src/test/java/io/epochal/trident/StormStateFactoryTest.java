package io.epochal.trident;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.StateAheadException;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.opaque.OpaqueValue;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.storm.trident.operation.builtin.Count;
import org.apache.storm.trident.state.CombinerValueUpdater;
import org.apache.storm.trident.state.State;
import org.apache.storm.trident.state.StateFactory;
import org.apache.storm.trident.state.ValueUpdater;
import org.apache.storm.trident.state.map.MapState;
import org.apache.storm.trident.state.snapshot.Snapshottable;
import org.junit.jupiter.api.Test;

/** The Trident state factories of Epochal state, outside a cluster: serializable, and Trident map states. */
class StormStateFactoryTest {
  static final TableStore STORE = TableStores.inMemory();
  static final InMemoryBackingMap<List<Object>, OpaqueValue<Object>> CELLS = new InMemoryBackingMap<>("cells");

  static TableStore store() {
    return STORE;
  }

  static InMemoryBackingMap<List<Object>, OpaqueValue<Object>> cells() {
    return CELLS;
  }

  @SuppressWarnings("rawtypes")
  private static List<ValueUpdater> plus(long n) {
    return List.of(new CombinerValueUpdater(new Count(), n));
  }

  @Test
  @SuppressWarnings({"unchecked", "rawtypes"})
  void shouldSurviveStormsSerializationAndCountAcrossPartitionsAndTables() {
    for (StateFactory factory : List.of(
        EpochalTrident.stormState("unit", StormStateFactoryTest::store, "t_kryo")
            .valueCodec(EpochalTrident.kryoValues())
            .localCacheSize(10).opaque(),
        EpochalTrident.stormState("unit", StormStateFactoryTest::store, "t_json").transactional(),
        EpochalTrident.stormOpaqueState(StormStateFactoryTest::cells))) {
      StateFactory copy = StormContexts.copy(factory); // what Storm does with every component
      State partition0 = copy.makeState(Map.of(), null, 0, 2);
      State partition1 = copy.makeState(Map.of(), null, 1, 2);
      assertTrue(partition0 instanceof MapState && partition0 instanceof Snapshottable, factory.toString());
      MapState<Object> map0 = (MapState<Object>) partition0;
      MapState<Object> map1 = (MapState<Object>) partition1;
      map0.beginCommit(1L);
      assertEquals(List.of(2L), map0.multiUpdate(List.of(List.of("a")), plus(2)));
      map0.commit(1L);
      map1.beginCommit(1L);
      assertEquals(List.of(5L), map1.multiUpdate(List.of(List.of("b")), plus(5)));
      map1.commit(1L);
      map0.beginCommit(2L);
      assertEquals(List.of(3L), map0.multiUpdate(List.of(List.of("a")), plus(1)));
      map0.commit(2L);
      map0.beginCommit(2L); // a replay of txid 2: the update is not applied twice
      assertEquals(List.of(3L), map0.multiUpdate(List.of(List.of("a")), plus(1)));
      map0.commit(2L);
      assertEquals(Arrays.asList(3L, 5L, null), copy.makeState(Map.of(), null, 0, 1) instanceof MapState<?> m
          ? ((MapState<Object>) m).multiGet(List.of(List.of("a"), List.of("b"), List.of("c"))) : null);
      // a txid below the committed one: table-backed states refuse it at beginCommit, per-key ones at the update
      assertThrows(StateAheadException.class, () -> {
        map0.beginCommit(1L);
        map0.multiUpdate(List.of(List.of("a")), plus(1));
      });
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void shouldServeNonGroupedAggregatesAsSnapshottable() {
    Snapshottable<Object> global = (Snapshottable<Object>) EpochalTrident.stormState("unit",
        StormStateFactoryTest::store, "t_global").opaque().makeState(Map.of(), null, 0, 1);
    global.beginCommit(1L);
    assertEquals(4L, global.update(new CombinerValueUpdater(new Count(), 4L)));
    global.commit(1L);
    global.beginCommit(2L);
    global.set(10L);
    global.commit(2L);
    assertEquals(10L, global.get());
  }

  @Test
  void shouldRefuseOptionsSetTwiceAndBadValues() {
    StormStateBuilder b = EpochalTrident.stormState("unit", StormStateFactoryTest::store, "t");
    b.localCacheSize(5);
    assertThrows(IllegalStateException.class, () -> b.localCacheSize(6));
    assertThrows(IllegalArgumentException.class,
        () -> EpochalTrident.stormState("unit", StormStateFactoryTest::store, "t").localCacheSize(0));
    assertThrows(IllegalArgumentException.class,
        () -> EpochalTrident.stormState("unit", StormStateFactoryTest::store, " "));
  }
}
