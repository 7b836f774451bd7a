package io.epochal.testkit;

import io.epochal.codec.Codecs;
import io.epochal.pipeline.Aggregators;
import io.epochal.spout.SpoutKind;
import io.epochal.state.StateKind;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableCheckpointStore;
import io.epochal.store.table.TableStates;
import io.epochal.store.table.TableStore;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The replay half of the table-store contract kit: a word count over the store under test, through a fixed table of
 * schedules (every {@link FaultPoint}, failed and crashed, the lease takeovers included, plus a combined schedule),
 * must equal the fold of the input, and no stale commit may land. Deterministic and quick (tens of short runs); a failure throws the {@link ReplayCheckFailure} report.
 */
final class TableStoreReplayChecks {
  private TableStoreReplayChecks() {
  }

  /** Words; the pipeline counts them. */
  static final List<String> INPUT = List.of("a", "b", "a", "c", "b", "c", "a", "d", "a", "a", "b", "c", "e", "a",
      "b", "d");

  /** Every point failed and crashed in batch 2 (after a prefix of 1), then one schedule with several faults. */
  static List<ReplaySchedule<String>> schedules() {
    List<ReplaySchedule<String>> out = new ArrayList<>();
    Parallelism par = new Parallelism(2, 2, 1);
    BatchCuts cuts = new BatchCuts(List.of(2, 3), List.of(1, 4));
    for (FaultPoint p : FaultPoint.values()) {
      for (boolean crash : new boolean[] {false, true}) {
        out.add(new ReplaySchedule<>(INPUT, cuts, par, List.of(new Fault(p, 2, crash, 1))));
      }
    }
    out.add(new ReplaySchedule<>(INPUT, cuts, new Parallelism(3, 3, 2), List.of(
        Fault.fail(FaultPoint.INSIDE_MULTIPUT, 1).withPrefix(1), Fault.crash(FaultPoint.AFTER_STATE_WRITES, 1),
        Fault.fail(FaultPoint.INSIDE_CHECKPOINT_COMMIT, 2), Fault.crash(FaultPoint.AFTER_EMIT, 3),
        Fault.fail(FaultPoint.DURING_CHECKPOINT_COMMIT, 3), Fault.crash(FaultPoint.BEFORE_STATE_WRITE, 4))));
    return out;
  }

  /**
   * Runs every schedule with {@code spout} into the table layout of {@code rule} over stores from {@code stores}.
   * With {@code reopens} (the store sees after a reopen what it committed before), every simulated restart and the
   * final read reopen the store; otherwise one store object serves the whole run.
   *
   * @throws ReplayCheckFailure at the first schedule whose counts differ
   */
  /** Like the full form, over one store object per run (no reopen). */
  static void run(Function<? super CommitHook, ? extends TableStore> stores, String tablePrefix, SpoutKind spout,
      StateKind rule) {
    run(stores, false, tablePrefix, spout, rule);
  }

  static void run(Function<? super CommitHook, ? extends TableStore> stores, boolean reopens, String tablePrefix,
      SpoutKind spout, StateKind rule) {
    Function<TableCheckpointStore, TableStates.Builder<String, Long>> states =
        checkpoints -> TableStates.<String, Long>builder(KeyCodec.strings(), Codecs.longs());
    ReplayCheck.MapTarget<String, Long> target = reopens
        ? ReplayCheck.forTableStore((dir, hook) -> stores.apply(hook), tablePrefix, rule, states)
            .closingTheDeadStore()
        : ReplayCheck.forInMemoryTableStore(stores, tablePrefix, rule, states);
    ReplayCheck<String, String, Long> check = target
        .<String>aggregate(w -> w, Aggregators.count())
        .name("contract-" + spout.name().toLowerCase(java.util.Locale.ROOT) + "-" + rule.name()
            .toLowerCase(java.util.Locale.ROOT))
        .spout(spout)
        .oracle(Oracle.aggregate(w -> w, Aggregators.<String>count()))
        .build();
    for (ReplaySchedule<String> schedule : schedules()) {
      check.check(schedule);
    }
  }
}
