package io.epochal.testkit.examples;

import io.epochal.codec.Codecs;
import io.epochal.pipeline.Aggregators;
import io.epochal.spout.SpoutKind;
import io.epochal.state.StateKind;
import io.epochal.state.opaque.OpaqueMap;
import io.epochal.state.opaque.OpaqueValue;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableStores;
import io.epochal.testkit.Oracle;
import io.epochal.testkit.ReplayArbitraries;
import io.epochal.testkit.ReplayCheck;
import io.epochal.testkit.ReplaySchedule;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Example: correct states pass the kit. A user's backing map that replaces cells ({@link ReplacingBackingMap}) under
 * both txid rules, and the in-memory table store on the epoch protocol with a re-cutting opaque spout, stay
 * exactly-once under every generated schedule (faults at every point, restarts, re-cuts, partitions, batches in
 * flight, threads).
 */
class CorrectStateExampleProperties {
  private static final ReplayCheck<String, String, Long> TRANSACTIONAL = ReplayCheck
      .forBackingMap(ReplacingBackingMap<TransactionalValue<Long>>::new, TransactionalMap::factory)
      .aggregate((String w) -> w, Aggregators.count())
      .build();

  private static final ReplayCheck<String, String, Long> OPAQUE = ReplayCheck
      .forBackingMap(ReplacingBackingMap<OpaqueValue<Long>>::new, OpaqueMap::factory)
      .aggregate((String w) -> w, Aggregators.count())
      .oracle(Oracle.aggregate((String w) -> w, Aggregators.count()))   // or compare with a plain fold
      .build();

  private static final ReplayCheck<String, String, Long> EPOCH_TABLES = ReplayCheck
      .forInMemoryTableStore(hook -> TableStores.inMemoryBuilder().commitHook(hook).build(), KeyCodec.strings(),
          Codecs.longs(), StateKind.TRANSACTIONAL)
      .aggregate((String w) -> w, Aggregators.count())
      .spout(SpoutKind.OPAQUE)     // exactly-once on the epoch protocol, even with re-cut replays
      .build();

  @Provide
  Arbitrary<ReplaySchedule<String>> schedules() {
    return ReplayArbitraries.schedules(ReplayArbitraries.words(30));
  }

  @Property
  void replacingMapUnderTransactionalMapIsExactlyOnce(@ForAll("schedules") ReplaySchedule<String> schedule) {
    TRANSACTIONAL.check(schedule);
  }

  @Property
  void replacingMapUnderOpaqueMapIsExactlyOnce(@ForAll("schedules") ReplaySchedule<String> schedule) {
    OPAQUE.check(schedule);
  }

  @Property(tries = 100)
  void inMemoryTableStoreWithAnOpaqueSpoutIsExactlyOnce(@ForAll("schedules") ReplaySchedule<String> schedule) {
    EPOCH_TABLES.check(schedule);
  }

}
