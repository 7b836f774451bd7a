package io.epochal.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.codec.Codecs;
import io.epochal.pipeline.Aggregators;
import io.epochal.pipeline.Guarantee;
import io.epochal.spout.SpoutKind;
import io.epochal.state.IBackingMap;
import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.NonTransactionalMap;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;
import io.epochal.state.opaque.OpaqueMap;
import io.epochal.state.opaque.OpaqueValue;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableStores;
import io.epochal.testing.TriesScale;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.statistics.Statistics;

/**
 * The promises of the three delivery modes ({@link Guarantee}), under the testkit's fault schedules (failures after
 * the emission, before and inside the state writes, after them, inside and after the checkpoint commit; each also as a
 * crash with restart), random batch cuts and re-cuts, partitions, batches in flight and threads, over five targets:
 * {@code NonTransactionalMap}, {@code TransactionalMap} and {@code OpaqueMap} over a backing map (per-key protocol),
 * and the in-memory table store
 * with {@code TransactionalTableLayout} on the epoch protocol and on the per-key protocol; each under a transactional
 * and a re-cutting opaque spout.
 *
 * <p>Every input record is unique ({@code "<index>:<sentence>"}): the map targets count each word ({@code w:<word>})
 * and each record ({@code r:<index>}), the table targets count each record. The reference is the fold of the input,
 * which the failure-free run of the same mode must equal. Then:
 * <ul>
 *   <li>{@code EXACTLY_ONCE} (pairings the builder accepts): the faulty run equals the reference;</li>
 *   <li>{@code AT_LEAST_ONCE}: every count is at least the reference's, so every record is counted at least once;</li>
 *   <li>{@code AT_MOST_ONCE}: every count is at most the reference's, so no record is counted twice.</li>
 * </ul>
 * Runs {@code -Depochal.tries=N} schedules per property.
 */
@AddLifecycleHook(TriesScale.class) // a share of the tries by default: -Depochal.tries.scale=1 runs all
class DeliveryModeReplayProperties {

  /** What holds the counts. */
  enum Target {
    PLAIN_MAP, TRANSACTIONAL_MAP, OPAQUE_MAP, EPOCH_TABLES, PER_KEY_TABLES;

    /** Whether the builder accepts this target as exactly-once under {@code spout}. */
    boolean exactlyOnce(SpoutKind spout) {
      return this == EPOCH_TABLES || this != PLAIN_MAP && spout == SpoutKind.TRANSACTIONAL;
    }
  }

  @Provide
  Arbitrary<ReplaySchedule<String>> schedules() {
    return ReplayArbitraries.schedules(ReplayArbitraries.sentences(30).map(DeliveryModeReplayProperties::indexed));
  }

  @Provide
  Arbitrary<SpoutKind> spouts() {
    return Arbitraries.of(SpoutKind.TRANSACTIONAL, SpoutKind.OPAQUE);
  }

  @Property
  void exactlyOnceEqualsTheReference(@ForAll Target target, @ForAll("spouts") SpoutKind spout,
      @ForAll("schedules") ReplaySchedule<String> schedule) {
    // The builder refuses a non-transactional state, and an opaque spout, on the per-key protocol under EXACTLY_ONCE.
    Assume.that(target.exactlyOnce(spout));
    Verdict v = run(target, spout, Guarantee.EXACTLY_ONCE, schedule);
    assertEquals(v.reference, v.actual, v.report);
  }

  @Property
  void atLeastOnceCountsEveryRecordAtLeastOnce(@ForAll Target target, @ForAll("spouts") SpoutKind spout,
      @ForAll("schedules") ReplaySchedule<String> schedule) {
    Verdict v = run(target, spout, Guarantee.AT_LEAST_ONCE, schedule);
    v.reference.forEach((key, expected) -> {
      long actual = v.actual.getOrDefault(key, 0L);
      assertTrue(actual >= expected, key + " counted " + actual + " times, below the reference " + expected
          + (key.startsWith("w:") ? "" : " (a lost record)") + "\n" + v.report);
    });
    assertEquals(v.reference.keySet(), v.actual.keySet(), "keys that are in no input record\n" + v.report);
    Statistics.label("AT_LEAST_ONCE").collect(v.actual.equals(v.reference) ? "exact" : "counted some twice");
    Statistics.label("AT_LEAST_ONCE").coverage(c -> c.check("counted some twice").count(n -> n > 0));
  }

  @Property
  void atMostOnceCountsNoRecordTwice(@ForAll Target target, @ForAll("spouts") SpoutKind spout,
      @ForAll("schedules") ReplaySchedule<String> schedule) {
    Verdict v = run(target, spout, Guarantee.AT_MOST_ONCE, schedule);
    v.actual.forEach((key, actual) -> {
      long expected = v.reference.getOrDefault(key, 0L);
      assertTrue(actual <= expected, key + " counted " + actual + " times, above the reference " + expected
          + (key.startsWith("w:") ? "" : " (a record counted twice)") + "\n" + v.report);
    });
    Statistics.label("AT_MOST_ONCE").collect(v.actual.equals(v.reference) ? "exact" : "lost some");
    Statistics.label("AT_MOST_ONCE").coverage(c -> c.check("lost some").count(n -> n > 0));
  }

  // ---------------------------------------------------------------------------------------------------------------

  /** A finished run: the reference (the input's fold), the faulty run's counts and its report. */
  record Verdict(Map<String, Long> reference, Map<String, Long> actual, String report) {
  }

  static Verdict run(Target target, SpoutKind spout, Guarantee guarantee, ReplaySchedule<String> schedule) {
    ReplayResult<String, Long> result = check(target, spout, guarantee).run(schedule);
    assertTrue(result.error().isEmpty(), "the run stopped: " + result.report());
    Map<String, Long> reference = target != Target.EPOCH_TABLES && target != Target.PER_KEY_TABLES
        ? wordAndRecordCounts(schedule.input()) : recordCounts(schedule.input());
    assertEquals(reference, new TreeMap<>(result.expected()),
        "the failure-free run of " + guarantee + " is not the fold of the input\n" + result.report());
    for (Fault f : result.fired()) {
      Statistics.label("failure point").collect(f.point() + (f.crash() ? " + restart" : ""));
    }
    return new Verdict(reference, new TreeMap<>(result.actual()), result.report());
  }

  static ReplayCheck<String, String, Long> check(Target target, SpoutKind spout, Guarantee guarantee) {
    String name = "modes-" + guarantee.name().toLowerCase(java.util.Locale.ROOT);
    return switch (target) {
      case PLAIN_MAP -> DeliveryModeReplayProperties.<Long>maps(spout, guarantee, NonTransactionalMap::factory,
          c -> c, name);
      case TRANSACTIONAL_MAP -> DeliveryModeReplayProperties.<TransactionalValue<Long>>maps(spout, guarantee,
          TransactionalMap::factory, TransactionalValue::value, name);
      case OPAQUE_MAP -> DeliveryModeReplayProperties.<OpaqueValue<Long>>maps(spout, guarantee, OpaqueMap::factory,
          OpaqueValue::curr, name);
      case EPOCH_TABLES, PER_KEY_TABLES -> ReplayCheck
          .forInMemoryTableStore(hook -> TableStores.inMemoryBuilder().commitHook(hook)
              .atomicMultiTableCommit(target == Target.EPOCH_TABLES).build(), KeyCodec.strings(), Codecs.longs(),
              StateKind.TRANSACTIONAL)
          .aggregate((String record) -> "r:" + id(record), Aggregators.count())
          .name(name)
          .spout(spout)
          .guarantee(guarantee)
          .oracle(Oracle.failureFree())
          .build();
    };
  }

  /** Words and records counted in one state over a backing map with cells {@code C} (per-key protocol). */
  static <C> ReplayCheck<String, String, Long> maps(SpoutKind spout, Guarantee guarantee,
      Function<IBackingMap<String, C>, StateFactory<MapState<String, Long>>> rule, Function<C, Long> value,
      String name) {
    return ReplayCheck.<InMemoryBackingMap<String, C>, String, String, Long>forPipeline(
            () -> new InMemoryBackingMap<>("counts"),
            (source, store, context) -> source
                .flatMap(DeliveryModeReplayProperties::keys)
                .groupBy(k -> k)
                .persistentAggregate("counts", rule.apply(context.wrap(store)), Aggregators.count()),
            store -> {
              Map<String, Long> out = new TreeMap<>();
              store.snapshot().forEach((k, c) -> out.put(k, value.apply(c)));
              return out;
            })
        .name(name)
        .spout(spout)
        .guarantee(guarantee)
        .oracle(Oracle.failureFree())
        .build();
  }

  static List<String> indexed(List<String> sentences) {
    List<String> out = new ArrayList<>(sentences.size());
    for (int i = 0; i < sentences.size(); i++) {
      out.add(i + ":" + sentences.get(i));
    }
    return out;
  }

  static String id(String record) {
    return record.substring(0, record.indexOf(':'));
  }

  /** {@code r:<index>} once, and {@code w:<word>} per word of the record's sentence. */
  static List<String> keys(String record) {
    List<String> keys = new ArrayList<>();
    keys.add("r:" + id(record));
    for (String w : record.substring(record.indexOf(':') + 1).split(" ")) {
      keys.add("w:" + w);
    }
    return keys;
  }

  static Map<String, Long> wordAndRecordCounts(List<String> input) {
    Map<String, Long> counts = new TreeMap<>();
    for (String record : input) {
      for (String k : keys(record)) {
        counts.merge(k, 1L, Long::sum);
      }
    }
    return counts;
  }

  static Map<String, Long> recordCounts(List<String> input) {
    Map<String, Long> counts = new TreeMap<>();
    for (String record : input) {
      counts.merge("r:" + id(record), 1L, Long::sum);
    }
    return counts;
  }
}
