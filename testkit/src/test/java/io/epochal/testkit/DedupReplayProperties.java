package io.epochal.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.epochal.codec.Codecs;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Dedup;
import io.epochal.pipeline.Stream;
import io.epochal.spout.SpoutKind;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import io.epochal.testing.TriesScale;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * {@link Dedup#byId} under the testkit's fault schedules (failures at every point, restarts, partitions, batches in
 * flight, threads): the input holds duplicate deliveries of messages ({@code m<n>}, the record is its own id); the
 * pipeline deduplicates them and counts each kept message. With a window longer than the run, every message is counted
 * exactly once whatever fails (also with a re-cutting opaque spout on the epoch protocol); with a short window the
 * faulty run equals the failure-free run of the same batches (transactional spout), which the window's expiry makes
 * count some messages again. Over the in-memory table store on the epoch protocol (both states in one store) and over
 * {@code TransactionalMap}s on the per-key protocol.
 */
@AddLifecycleHook(TriesScale.class) // a share of the tries by default: -Depochal.tries.scale=1 runs all
class DedupReplayProperties {
  private static final long FOREVER = 1_000_000;

  @Provide
  Arbitrary<ReplaySchedule<String>> schedules() {
    Arbitrary<String> message = Arbitraries.integers().between(0, 12).map(i -> "m" + i);
    return ReplayArbitraries.schedules(ReplayArbitraries.inputs(message, 40));
  }

  @Property
  void everyMessageCountsOnceOnTheEpochProtocol(@ForAll("schedules") ReplaySchedule<String> schedule,
      @ForAll boolean opaque) {
    epochTables(FOREVER).spout(opaque ? SpoutKind.OPAQUE : SpoutKind.TRANSACTIONAL)
        .oracle(Oracle.fold("each distinct message once", DedupReplayProperties::once)).build().check(schedule);
  }

  @Property
  void everyMessageCountsOnceOnThePerKeyProtocol(@ForAll("schedules") ReplaySchedule<String> schedule) {
    perKeyMaps(FOREVER).spout(SpoutKind.TRANSACTIONAL)
        .oracle(Oracle.fold("each distinct message once", DedupReplayProperties::once)).build().check(schedule);
  }

  @Property
  void aShortWindowDecidesAsTheFailureFreeRun(@ForAll("schedules") ReplaySchedule<String> schedule,
      @ForAll @LongRange(min = 1, max = 3) long window, @ForAll boolean epoch) {
    (epoch ? epochTables(window) : perKeyMaps(window)).spout(SpoutKind.TRANSACTIONAL).oracle(Oracle.failureFree())
        .build().check(schedule);
  }

  /** The window does expire: batches of one record each, "a" at txids 1, 2 and 4, window 1. */
  @Example
  void anIdIsForgottenOnceItsFirstDeliveryIsMoreThanTheWindowBack() {
    ReplaySchedule<String> schedule = new ReplaySchedule<>(List.of("a", "a", "b", "a"),
        new BatchCuts(List.of(1), List.of()), Parallelism.sequential(), List.of());
    ReplayResult<String, Long> result = epochTables(1).spout(SpoutKind.TRANSACTIONAL)
        .oracle(Oracle.fold("a twice (txids 1 and 4), b once", in -> Map.of("a", 2L, "b", 1L))).build().run(schedule);
    assertEquals(Map.of("a", 2L, "b", 1L), result.actual(), result.report());
  }

  @Example
  void aWindowBelowOneIsRefused() {
    Stream<String> source = io.epochal.pipeline.Pipeline.newBuilder("stub")
        .source(io.epochal.spouts.GeneratedSpout.of("s", 1, 1, i -> "m" + i));
    StateFactory<MapState<String, Long>> seen = TransactionalMap.factory(new InMemoryBackingMap<>());
    assertThrows(IllegalArgumentException.class, () -> Dedup.byId(source, "seen", m -> m, 0, seen));
  }

  static Map<String, Long> once(List<String> input) {
    Map<String, Long> out = new TreeMap<>();
    input.forEach(m -> out.put(m, 1L));
    return out;
  }

  /** Per-key protocol: the seen ids and the counts in two {@code TransactionalMap}s over backing maps. */
  record Maps(InMemoryBackingMap<String, TransactionalValue<Long>> seen,
      InMemoryBackingMap<String, TransactionalValue<Long>> counts) {
  }

  static ReplayCheck.Builder<String, String, Long> perKeyMaps(long window) {
    return ReplayCheck.<Maps, String, String, Long>forPipeline(
            () -> new Maps(new InMemoryBackingMap<>("seen"), new InMemoryBackingMap<>("counts")),
            (source, maps, context) -> Dedup.byId(source, "seen", m -> m, window,
                    TransactionalMap.factory(context.wrap(maps.seen())))
                .groupBy(m -> m)
                .persistentAggregate("counts", TransactionalMap.factory(context.wrap(maps.counts())),
                    Aggregators.count()),
            maps -> {
              Map<String, Long> out = new TreeMap<>();
              maps.counts().snapshot().forEach((k, c) -> out.put(k, c.value()));
              return out;
            })
        .name("dedup-per-key");
  }

  /** Epoch protocol: both states as tables of one in-memory store, committed with the checkpoint. */
  static final class Tables {
    TableStore store;
  }

  static ReplayCheck.Builder<String, String, Long> epochTables(long window) {
    return ReplayCheck.<Tables, String, String, Long>forPipeline(Tables::new,
            (source, tables, context) -> {
              if (tables.store == null) {
                tables.store = TableStores.inMemoryBuilder().commitHook(context.commitHook()).build();
              }
              TableCheckpointStore checkpoints = TableCheckpointStore.builder(
                  context.faults().withLeaseFaults(tables.store)).owner("worker-" + context.incarnation()).build();
              context.useCheckpointStore(checkpoints);
              StateFactory<MapState<String, Long>> seen = TransactionalTableLayout.factory(
                  TableStates.builder(KeyCodec.strings(), Codecs.longs()).layer(context.layer()));
              Dedup.byId(source, "seen", m -> m, window, seen)
                  .groupBy(m -> m)
                  .persistentAggregate("counts", TransactionalTableLayout.factory(
                      TableStates.builder(KeyCodec.strings(), Codecs.longs()).layer(context.layer())),
                      Aggregators.count());
            },
            tables -> counts(tables.store, "dedup-epoch/counts"))
        .name("dedup-epoch");
  }

  static Map<String, Long> counts(TableStore store, String path) {
    Map<String, Long> out = new TreeMap<>();
    if (store == null) {
      return out;
    }
    Table table = store.findTable(path).orElseThrow(() -> new IllegalStateException("no table " + path));
    TransactionalTableLayout<Long> layout = new TransactionalTableLayout<>(Codecs.longs(), v -> false);
    try (StoreTransaction tx = store.begin()) {
      for (Row row : tx.scan(table)) {
        out.put((String) row.key().get(0), layout.read(row).value());
      }
    }
    return out;
  }
}
