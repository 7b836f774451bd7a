package io.epochal.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.epochal.codec.Codecs;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Dedup;
import io.epochal.spout.SpoutKind;
import io.epochal.state.BucketEntry;
import io.epochal.state.InMemoryBackingMap;
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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * {@link Dedup#byId} deletes the ids that left the window, under the testkit's fault schedules (failures before,
 * inside and after state writes and removals, in and around the checkpoint commit, replays, restarts, partitions,
 * threads) with a transactional spout: the result read after the run is the kept-message counts <em>and</em> the
 * whole id state ({@code seen:<id>} → the txid of its first delivery, {@code bucket:<txid>} → the number of bucket
 * entries of that txid over all partitions), compared with a model of the failure-free run in which, after the last
 * batch {@code T}, only the ids first delivered at txids {@code >= T - window} and their buckets remain. Over the
 * in-memory table store on the epoch protocol and over {@code TransactionalMap}s of {@code InMemoryBackingMap}s on the
 * per-key protocol.
 */
@AddLifecycleHook(TriesScale.class) // a share of the tries by default: -Depochal.tries.scale=1 runs all
class DedupExpiryReplayProperties {

  @Provide
  Arbitrary<ReplaySchedule<String>> schedules() {
    Arbitrary<String> message = Arbitraries.integers().between(0, 12).map(i -> "m" + i);
    return ReplayArbitraries.schedules(ReplayArbitraries.inputs(message, 40));
  }

  @Property(tries = 300)
  void onlyTheWindowsIdsRemainOnTheEpochProtocol(@ForAll("schedules") ReplaySchedule<String> schedule,
      @ForAll @LongRange(min = 1, max = 3) long window) {
    epochTables(window).spout(SpoutKind.TRANSACTIONAL).oracle(model(schedule.cuts(), window)).build()
        .check(schedule);
  }

  @Property(tries = 300)
  void onlyTheWindowsIdsRemainOnThePerKeyProtocol(@ForAll("schedules") ReplaySchedule<String> schedule,
      @ForAll @LongRange(min = 1, max = 3) long window) {
    perKeyMaps(window).spout(SpoutKind.TRANSACTIONAL).oracle(model(schedule.cuts(), window)).build()
        .check(schedule);
  }

  /** Batches of one record, window 1: after txid 5 only the ids of txids 4 and 5 remain ("a" kept again at 5). */
  @Example
  void theIdsOfOldBatchesAreDeleted() {
    ReplaySchedule<String> schedule = new ReplaySchedule<>(List.of("a", "b", "c", "d", "a"),
        new BatchCuts(List.of(1), List.of()), Parallelism.sequential(), List.of());
    Map<String, Long> expected = new TreeMap<>(Map.of("count:a", 2L, "count:b", 1L, "count:c", 1L, "count:d", 1L,
        "seen:d", 4L, "seen:a", 5L, "bucket:4", 1L, "bucket:5", 1L));
    for (ReplayCheck.Builder<String, String, Long> check : List.of(epochTables(1), perKeyMaps(1))) {
      ReplayResult<String, Long> result = check.spout(SpoutKind.TRANSACTIONAL)
          .oracle(Oracle.fold("ids of txids 4 and 5", in -> expected)).build().run(schedule);
      assertEquals(expected, result.actual(), result.report());
    }
  }

  /**
   * Over a store that cannot delete (a backing-map layer that is no {@code RemovableBackingMap}) the decisions are the
   * same and the ids stay (the documented fallback, logged at WARN), instead of failing.
   */
  @Example
  void overAStoreThatCannotDeleteTheIdsStay() {
    ReplaySchedule<String> schedule = new ReplaySchedule<>(List.of("a", "b", "c", "d", "a"),
        new BatchCuts(List.of(1), List.of()), Parallelism.sequential(), List.of());
    Map<String, Long> expected = new TreeMap<>(Map.of("count:a", 2L, "count:b", 1L, "count:c", 1L, "count:d", 1L,
        "seen:a", 5L, "seen:b", 2L, "seen:c", 3L, "seen:d", 4L));
    ReplayResult<String, Long> result = ReplayCheck.<Maps, String, String, Long>forPipeline(
            () -> new Maps(new InMemoryBackingMap<>("seen"), new InMemoryBackingMap<>("counts")),
            (source, maps, context) -> Dedup.byId(source, "seen", m -> m, 1,
                    TransactionalMap.factory(new io.epochal.state.ForwardingBackingMap<>(maps.seen()) {
                    }))
                .groupBy(m -> m)
                .persistentAggregate("counts", TransactionalMap.factory(maps.counts()), Aggregators.count()),
            maps -> {
              Map<String, Long> out = new TreeMap<>();
              maps.counts().snapshot().forEach((k, c) -> out.put("count:" + k, c.value()));
              maps.seen().snapshot().forEach((k, c) -> out.put("seen:" + k, c.value()));
              return out;
            })
        .name("dedup-no-removal").spout(SpoutKind.TRANSACTIONAL)
        .oracle(Oracle.fold("every id stays", in -> expected)).build().run(schedule);
    assertEquals(expected, result.actual(), result.report());
  }

  /** The failure-free run's counts and id state, for batches cut by {@code cuts} (a transactional spout). */
  static Oracle<String, String, Long> model(BatchCuts cuts, long window) {
    return Oracle.fold("dedup with expiry, window " + window, input -> {
      Map<String, Long> counts = new TreeMap<>();
      Map<String, Long> seen = new HashMap<>();
      Map<Long, List<String>> buckets = new HashMap<>();
      int next = 0;
      for (long t = 1; next < input.size(); t++) {
        int end = Math.min(input.size(), next + cuts.size(t));
        List<String> kept = new ArrayList<>();
        for (String id : new LinkedHashSet<>(input.subList(next, end))) {
          Long first = seen.get(id);
          if (first == null || t - first > window) {
            kept.add(id);
            seen.put(id, t);
            counts.merge("count:" + id, 1L, Long::sum);
          }
        }
        next = end;
        if (!kept.isEmpty()) {
          buckets.put(t, kept);
        }
        long expired = t - window - 1;
        Optional.ofNullable(buckets.remove(expired)).ifPresent(ids -> ids.forEach(id -> seen.remove(id, expired)));
      }
      Map<String, Long> out = new TreeMap<>(counts);
      seen.forEach((id, t) -> out.put("seen:" + id, t));
      buckets.forEach((t, ids) -> out.put("bucket:" + t, (long) ids.size()));
      return out;
    });
  }

  /** Per-key protocol: ids, buckets and counts in {@code TransactionalMap}s over two backing maps. */
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
              maps.counts().snapshot().forEach((k, c) -> out.put("count:" + k, c.value()));
              // the bucket entries share the ids' backing map, as keys of their own type
              Map<Object, Object> seen = new HashMap<>(maps.seen().snapshot());
              seen.forEach((k, c) -> {
                if (k instanceof BucketEntry e) {
                  out.merge("bucket:" + e.bucket(), 1L, Long::sum);
                } else {
                  out.put("seen:" + k, (Long) ((TransactionalValue<?>) c).value());
                }
              });
              return out;
            })
        .name("dedup-expiry-per-key");
  }

  /** Epoch protocol: the three tables (ids, buckets, counts) of one in-memory store, committed with the checkpoint. */
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
              Dedup.byId(source, "seen", m -> m, window, TransactionalTableLayout.factory(
                      TableStates.builder(KeyCodec.strings(), Codecs.longs()).layer(context.layer())))
                  .groupBy(m -> m)
                  .persistentAggregate("counts", TransactionalTableLayout.factory(
                      TableStates.builder(KeyCodec.strings(), Codecs.longs()).layer(context.layer())),
                      Aggregators.count());
            },
            tables -> {
              Map<String, Long> out = new TreeMap<>();
              DedupReplayProperties.counts(tables.store, "dedup-expiry-epoch/counts")
                  .forEach((k, c) -> out.put("count:" + k, c));
              DedupReplayProperties.counts(tables.store, "dedup-expiry-epoch/seen")
                  .forEach((k, t) -> out.put("seen:" + k, t));
              if (tables.store != null) {
                Table buckets = tables.store.findTable("dedup-expiry-epoch/seen.buckets").orElseThrow();
                try (StoreTransaction tx = tables.store.begin()) {
                  for (Row row : tx.scan(buckets)) {
                    out.merge("bucket:" + row.key().get(1), 1L, Long::sum);
                  }
                }
              }
              return out;
            })
        .name("dedup-expiry-epoch");
  }
}
