package io.epochal.store.ytsaurus.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.epochal.store.table.ColumnType;
import io.epochal.store.table.Row;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which transactions of a store carry the staged consumer advances: exactly the epoch commit of their batch. */
class ConsumerAdvancesTest {
  private static final Object OWNER = new Object();
  private final TableSchema checkpointSchema = TableSchema.builder("__epochal_checkpoints")
      .key("pipeline", ColumnType.STRING).requiredValue("committed_txid", ColumnType.INT64)
      .requiredValue("metadata", ColumnType.BYTES).requiredValue("pending", ColumnType.BYTES)
      .attribute("epochal.layout", "checkpoint:v1").build();
  private final YtTable checkpoints = new YtTable(checkpointSchema, "//t/__epochal_checkpoints", OWNER);
  private final TableSchema stateSchema = TableSchema.builder("wc/counts").key("word", ColumnType.STRING)
      .value("value", ColumnType.BYTES).build();
  private final YtTable state = new YtTable(stateSchema, "//t/wc/counts", OWNER);
  private final ConsumerAdvances advances = new ConsumerAdvances();
  private final ConsumerAdvances.Advance a = new ConsumerAdvances.Advance("wc", "//c", "//q", 1, 10, 15);
  private final ConsumerAdvances.Advance b = new ConsumerAdvances.Advance("wc", "//c", "//q", 2, 0, 4);

  private Row checkpointRow(String pipeline, long txid) {
    return Row.of(checkpointSchema.key(pipeline), txid, new byte[0], new byte[0]);
  }

  private Map<YtTable, LinkedHashMap<TableKey, Row>> writes(Row... checkpointRows) {
    Map<YtTable, LinkedHashMap<TableKey, Row>> w = new LinkedHashMap<>();
    LinkedHashMap<TableKey, Row> s = new LinkedHashMap<>();
    s.put(stateSchema.key("x"), Row.of(stateSchema.key("x"), new byte[] {1}));
    w.put(state, s);
    LinkedHashMap<TableKey, Row> c = new LinkedHashMap<>();
    for (Row r : checkpointRows) {
      c.put(r.key(), r);
    }
    w.put(checkpoints, c);
    return w;
  }

  private static Optional<Row> none(YtTable t, TableKey k) {
    return Optional.empty();
  }

  @Test
  void theCommitThatMovesTheCommittedTxidFromTMinusOneToTCarriesTheAdvancesOfT() {
    advances.stage("wc", "events", 3, List.of(a, b));
    advances.stage("wc", "events", 4, List.of(b));
    Row stored = checkpointRow("wc", 2);
    List<ConsumerAdvances.EpochCommit> found = advances.forCommit(writes(checkpointRow("wc", 3)),
        (t, k) -> Optional.of(stored));
    assertEquals(List.of(new ConsumerAdvances.EpochCommit("wc", 3, List.of(a, b))), found);
  }

  @Test
  void otherWritesOfTheCheckpointRowCarryNothingAndDropStaleStaging() {
    advances.stage("wc", "events", 3, List.of(a));
    Row atThree = checkpointRow("wc", 3);
    // a pending-metadata write after txid 3 landed without its success being heard: the row already holds 3
    assertEquals(List.of(), advances.forCommit(writes(checkpointRow("wc", 3)), (t, k) -> Optional.of(atThree)));
    assertEquals(List.of(), advances.staged("wc", 3), "the landed batch's staging was dropped");
    advances.stage("wc", "events", 5, List.of(a));
    assertEquals(List.of(), advances.forCommit(writes(checkpointRow("wc", 5)), (t, k) -> Optional.of(atThree)),
        "a commit of 5 over 3 is not an epoch commit of 5 (the core refuses it anyway)");
  }

  @Test
  void onlyThePipelineOfTheCheckpointRowAndOnlyStagedBatchesCount() {
    advances.stage("wc", "events", 1, List.of(a));
    assertEquals(List.of(), advances.forCommit(writes(checkpointRow("other", 1)), ConsumerAdvancesTest::none));
    assertEquals(List.of(), advances.forCommit(writes(), ConsumerAdvancesTest::none), "no checkpoint row written");
    assertEquals(1, advances.forCommit(writes(checkpointRow("wc", 1)), ConsumerAdvancesTest::none).size(),
        "a first commit (no checkpoint row yet) carries its advances");
    assertEquals(List.of(), advances.committed("wc", 1), "txid 1 was carried");
    assertEquals(List.of(), advances.forCommit(writes(checkpointRow("wc", 1)), ConsumerAdvancesTest::none));
  }

  @Test
  void aCommittedBatchWhoseAdvancesNoTransactionCarriedIsReported() {
    advances.stage("typo", "events", 1, List.of(a));
    advances.stage("typo", "events", 2, List.of());
    assertEquals(List.of(), advances.forCommit(writes(checkpointRow("wc", 1)), ConsumerAdvancesTest::none));
    assertEquals(List.of(1L), advances.committed("typo", 2), "the pipeline name matched no epoch commit");
    assertEquals(List.of(), advances.staged("typo", 1));
  }

  @Test
  void aReplayedEmissionReplacesAndAFailedOneRemovesWhatWasStaged() {
    advances.stage("wc", "events", 1, List.of(a, b));
    advances.stage("wc", "events", 1, List.of(b));
    advances.stage("wc", "clicks", 1, List.of(a));
    assertEquals(List.of(a, b), advances.staged("wc", 1), "spouts in name order, the events spout's latest emission");
    advances.unstage("wc", "clicks", 1);
    assertEquals(List.of(b), advances.staged("wc", 1));
  }

  @Test
  void anAdvanceMustMoveForward() {
    assertThrows(IllegalArgumentException.class, () -> new ConsumerAdvances.Advance("wc", "//c", "//q", 0, 5, 4));
    assertThrows(IllegalArgumentException.class, () -> new ConsumerAdvances.Advance("wc", "//c", "//q", -1, 0, 4));
  }
}
