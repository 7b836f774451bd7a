package io.epochal.trident;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.pipeline.Guarantee;
import io.epochal.spout.SpoutKind;
import io.epochal.state.StateKind;
import io.epochal.state.opaque.OpaqueTableLayout;
import io.epochal.state.opaque.OpaqueValue;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.store.table.CellLayout;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import io.epochal.testkit.BatchCuts;
import io.epochal.testkit.Fault;
import io.epochal.testkit.FaultPoint;
import io.epochal.testkit.Oracle;
import io.epochal.testkit.Parallelism;
import io.epochal.testkit.ReplayArbitraries;
import io.epochal.testkit.ReplayCheck;
import io.epochal.testkit.ReplayResult;
import io.epochal.testkit.ReplaySchedule;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.storm.trident.operation.builtin.Count;
import org.apache.storm.trident.testing.Split;
import org.apache.storm.tuple.Fields;

/**
 * The per-partition epoch protocol of {@code EpochalTrident.stormState} under the testkit's replay schedules: Trident
 * states driven per partition ({@code beginCommit(t)} … {@code commit(t)}, a failed batch replayed with its txid,
 * possibly re-cut by an opaque spout, restarts rebuilding every state partition) with failures before, inside and
 * after the state writes and the checkpoint commit. Every pairing counts exactly once, including an opaque spout
 * into either map, which Trident's per-key protocol miscounts ({@link #theRecutThatDropsKeysMiscountsOnThePerKeyProtocol}).
 *
 * <p>The opaque-spout pairings run with {@code AT_LEAST_ONCE}: the Epochal engine's guarantee check does not know this
 * Trident state's protocol, and would refuse them; the oracle then checks the exact counts.
 */
class StormPartitionEpochProperties {
  private static final Fields SENTENCE = new Fields("sentence");
  private static final Fields WORD = new Fields("word");
  private static final AtomicInteger RUNS = new AtomicInteger();
  /** The stores of the runs, by store name: the factory reaches its run's store from a serializable supplier. */
  private static final Map<String, TableStore> STORES = new ConcurrentHashMap<>();

  /** One run's store. */
  record World(String name, TableStore store) implements AutoCloseable {
    World() {
      this("storm-epoch-" + RUNS.incrementAndGet(), TableStores.inMemory());
      STORES.put(name, store);
    }

    @Override
    public void close() {
      STORES.remove(name);
    }
  }

  private static TableStore storeOf(String name) {
    return STORES.get(name);
  }

  static ReplayCheck<String, String, Long> wordCount(StateKind kind, SpoutKind spout) {
    return ReplayCheck.<World, String, String, Long>forPipeline(World::new,
            (source, world, context) -> {
              String name = world.name();
              StormStateBuilder b = EpochalTrident.stormState(name, () -> storeOf(name), "counts");
              org.apache.storm.trident.state.StateFactory factory = kind == StateKind.OPAQUE ? b.opaque()
                  : b.transactional();
              source.map(s -> EpochalTrident.tuple(SENTENCE, List.of(s)))
                  .flatMap(EpochalTrident.each(SENTENCE, new Split(), WORD))
                  .groupBy(EpochalTrident.key(WORD))
                  .persistentAggregate("counts", context.wrapStates(EpochalTrident.tridentState(factory, kind)),
                      EpochalTrident.combiner(new Count()));
            },
            world -> counts(world.store(), kind))
        .name("storm-partition-epoch-" + kind.name().toLowerCase() + "-" + spout.name().toLowerCase())
        .spout(spout)
        .guarantee(spout == SpoutKind.OPAQUE ? Guarantee.AT_LEAST_ONCE : Guarantee.EXACTLY_ONCE)
        .oracle(Oracle.fold("the word counts of the input", StormPartitionEpochProperties::expected))
        .build();
  }

  /** The committed counts: every row of the state table, decoded by its layout. */
  static Map<String, Long> counts(TableStore store, StateKind kind) {
    CellLayout<?> layout = kind == StateKind.OPAQUE
        ? new OpaqueTableLayout<>(TridentJsonCodec.value(), v -> false)
        : new TransactionalTableLayout<>(TridentJsonCodec.value(), v -> false);
    Table table = store.openTable(PartitionEpoch.cellSchema("counts", JsonKeyCodec.INSTANCE, layout,
        TridentJsonCodec.value()));
    Map<String, Long> out = new TreeMap<>();
    try (StoreTransaction tx = store.begin()) {
      for (Row row : tx.scan(table)) {
        Object cell = layout.read(row);
        Object value = cell instanceof OpaqueValue<?> o ? o.curr() : ((TransactionalValue<?>) cell).value();
        out.put((String) JsonKeyCodec.INSTANCE.fromKey(row.key()).get(0), ((Number) value).longValue());
      }
    }
    return out;
  }

  static Map<String, Long> expected(List<String> input) {
    Map<String, Long> counts = new TreeMap<>();
    for (String s : input) {
      for (String w : s.split(" ")) {
        counts.merge(w, 1L, Long::sum);
      }
    }
    return counts;
  }

  private static final ReplayCheck<String, String, Long> OPAQUE_INTO_OPAQUE = wordCount(StateKind.OPAQUE,
      SpoutKind.OPAQUE);
  private static final ReplayCheck<String, String, Long> OPAQUE_INTO_TRANSACTIONAL = wordCount(
      StateKind.TRANSACTIONAL, SpoutKind.OPAQUE);
  private static final ReplayCheck<String, String, Long> TRANSACTIONAL_INTO_OPAQUE = wordCount(StateKind.OPAQUE,
      SpoutKind.TRANSACTIONAL);
  private static final ReplayCheck<String, String, Long> TRANSACTIONAL_INTO_TRANSACTIONAL = wordCount(
      StateKind.TRANSACTIONAL, SpoutKind.TRANSACTIONAL);

  @Provide
  Arbitrary<ReplaySchedule<String>> schedules() {
    return ReplayArbitraries.schedules(ReplayArbitraries.sentences(30));
  }

  @Property
  void opaqueSpoutIntoOpaqueMapCountsExactlyOnce(@ForAll("schedules") ReplaySchedule<String> schedule) {
    ReplayCoverage.record(OPAQUE_INTO_OPAQUE.check(schedule));
  }

  @Property
  void opaqueSpoutIntoTransactionalMapCountsExactlyOnce(@ForAll("schedules") ReplaySchedule<String> schedule) {
    ReplayCoverage.record(OPAQUE_INTO_TRANSACTIONAL.check(schedule));
  }

  @Property
  void transactionalSpoutIntoOpaqueMapCountsExactlyOnce(@ForAll("schedules") ReplaySchedule<String> schedule) {
    ReplayCoverage.record(TRANSACTIONAL_INTO_OPAQUE.check(schedule));
  }

  @Property
  void transactionalSpoutIntoTransactionalMapCountsExactlyOnce(
      @ForAll("schedules") ReplaySchedule<String> schedule) {
    ReplayCoverage.record(TRANSACTIONAL_INTO_TRANSACTIONAL.check(schedule));
  }

  /**
   * Batch 1 = "a b", "c d"; it fails after its state partitions committed (inside the checkpoint commit), and the
   * replay re-cuts it to "a b" alone; "c d" comes in batch 2.
   */
  static ReplaySchedule<String> recutAfterTheStateCommitted() {
    return new ReplaySchedule<>(List.of("a b", "c d", "e f"), new BatchCuts(List.of(2), List.of(1)),
        Parallelism.sequential(), List.of(Fault.fail(FaultPoint.INSIDE_CHECKPOINT_COMMIT, 1)));
  }

  @Example
  void theRecutThatDropsKeysCountsExactlyOnThePerPartitionProtocol() {
    for (ReplayCheck<String, String, Long> check : List.of(OPAQUE_INTO_OPAQUE, OPAQUE_INTO_TRANSACTIONAL)) {
      ReplayResult<String, Long> result = check.run(recutAfterTheStateCommitted());
      assertTrue(result.passed(), result.report());
      assertFalse(result.fired().isEmpty(), "the fault fired: " + result.report());
      assertEquals(1L, result.actual().get("c"), result.report());
    }
  }

  /** The same schedule on Trident's per-key protocol (Epochal's OpaqueMap over a plain backing map) counts c, d twice. */
  /** One run's per-key cells: Epochal's OpaqueMap over a plain backing map, as Trident runs it. */
  record PerKeyWorld(String name, io.epochal.state.InMemoryBackingMap<List<Object>, OpaqueValue<Object>> cells)
      implements AutoCloseable {
    PerKeyWorld() {
      this("per-key-" + RUNS.incrementAndGet(), new io.epochal.state.InMemoryBackingMap<>("per-key"));
      PER_KEY.put(name, cells);
    }

    @Override
    public void close() {
      PER_KEY.remove(name);
    }
  }

  private static final Map<String, io.epochal.state.InMemoryBackingMap<List<Object>, OpaqueValue<Object>>> PER_KEY =
      new ConcurrentHashMap<>();

  /** The same schedule on Trident's per-key protocol (Epochal's OpaqueMap over a plain backing map) counts c, d twice. */
  @Example
  void theRecutThatDropsKeysMiscountsOnThePerKeyProtocol() {
    ReplayCheck<String, String, Long> perKey = ReplayCheck.<PerKeyWorld, String, String, Long>forPipeline(
            PerKeyWorld::new,
            (source, world, context) -> {
              String name = world.name();
              source.map(s -> EpochalTrident.tuple(SENTENCE, List.of(s)))
                  .flatMap(EpochalTrident.each(SENTENCE, new Split(), WORD))
                  .groupBy(EpochalTrident.key(WORD))
                  .persistentAggregate("counts", context.wrapStates(EpochalTrident.tridentState(
                      EpochalTrident.stormOpaqueState(() -> PER_KEY.get(name)), StateKind.OPAQUE)),
                      EpochalTrident.combiner(new Count()));
            },
            world -> {
              Map<String, Long> out = new TreeMap<>();
              for (String w : List.of("a", "b", "c", "d", "e", "f")) {
                List<Object> key = List.of(w);
                OpaqueValue<Object> cell = world.cells().multiGet(List.of(key)).get(key);
                if (cell != null) {
                  out.put(w, ((Number) cell.curr()).longValue());
                }
              }
              return out;
            })
        .name("storm-per-key-opaque").spout(SpoutKind.OPAQUE).guarantee(Guarantee.AT_LEAST_ONCE)
        .oracle(Oracle.fold("the word counts of the input", StormPartitionEpochProperties::expected)).build();
    ReplayResult<String, Long> result = perKey.run(recutAfterTheStateCommitted());
    assertFalse(result.passed(), result.report());
    assertEquals(2L, result.actual().get("c"), result.report());
    assertEquals(1L, result.actual().get("a"), result.report());
  }
}
