package io.epochal.trident.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.StateCorruptedException;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableStore;
import io.epochal.store.table.TableStores;
import io.epochal.trident.RangeEmittedTwiceException;
import io.epochal.trident.RangeGapException;
import io.epochal.trident.StaleBatchException;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The range ledger's rows on their own: rows written by the first version (a bare list of {@code [txid, start]}) are
 * still checked by every rule that can apply to them, are rewritten in the current form, and a damaged row stops the
 * spout with a named error instead of being read as empty.
 */
class RangeLedgerTest {
  private static final String STATE = "wc";
  private static final String SPOUT = "sentences";

  private static String meta(long offset) {
    return RangeLedger.canonical(java.util.Map.of("offset", offset), "test metadata");
  }

  private static RangeLedger.Emission range(long from, long to) {
    return new RangeLedger.Emission("p0", meta(from), Optional.of(meta(to)), true);
  }

  /** Writes partition p0's row as it stands, bypassing the ledger (a row of an older version, or a damaged one). */
  private static void writeRow(TableStore store, String emissions) {
    Table t = store.openTable(RangeLedger.schema(STATE + RangeLedger.SUFFIX));
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(t, Row.builder(TableKey.of(t.schema(), SPOUT, "p0")).set("emissions", emissions).build());
      tx.commit();
    }
  }

  private static String readRow(TableStore store) {
    Table t = store.openTable(RangeLedger.schema(STATE + RangeLedger.SUFFIX));
    try (StoreTransaction tx = store.begin()) {
      return tx.lookup(t, List.of(TableKey.of(t.schema(), SPOUT, "p0"))).get(0).orElseThrow().getString("emissions");
    }
  }

  private static RangeLedger ledger(TableStore store) {
    return new RangeLedger(store, STATE, SPOUT, 0, "test", 2);
  }

  /** Txids 3 and 4 as the first version recorded them: ranges starting at offsets 0 and 10. */
  private static TableStore withVersion1Row() {
    TableStore store = TableStores.inMemory();
    writeRow(store, "[[3," + quoted(meta(0)) + "],[4," + quoted(meta(10)) + "]]");
    return store;
  }

  private static String quoted(String json) {
    return "\"" + json.replace("\"", "\\\"") + "\"";
  }

  @Test
  void aVersion1RowStillRefusesARangeEmittedTwice() {
    TableStore store = withVersion1Row();
    RangeEmittedTwiceException twice = assertThrows(RangeEmittedTwiceException.class,
        () -> ledger(store).record(5, List.of(range(10, 20))));
    assertEquals(5, twice.txid());
    assertEquals(4, twice.firstTxid());
  }

  @Test
  void aVersion1RowsHighestTxidMakesOlderTxidsStale() {
    TableStore store = withVersion1Row();
    StaleBatchException stale = assertThrows(StaleBatchException.class,
        () -> ledger(store).record(2, List.of(range(0, 5))));
    assertEquals(4, stale.highestTxid());
    assertEquals(2, stale.txid());
  }

  @Test
  void aVersion1RowIsContinuedAndRewrittenInTheCurrentForm() {
    TableStore store = withVersion1Row();
    RangeLedger ledger = ledger(store);
    ledger.record(5, List.of(range(20, 30))); // version 1 kept no end: the gap rule cannot apply to txid 4
    String row = readRow(store);
    assertTrue(row.startsWith("{") && row.contains("\"highest\":5") && row.contains("\"inFlight\":2"), row);
    // From now on the ends are known: txid 6 must start where txid 5 ended.
    RangeGapException gap = assertThrows(RangeGapException.class, () -> ledger.record(6, List.of(range(35, 40))));
    assertEquals(5, gap.previousTxid());
    assertEquals(meta(30), gap.previousEnd());
    ledger.record(6, List.of(range(30, 40)));
  }

  @Test
  void aDamagedRowStopsTheSpoutNamingTheLedgerTable() {
    for (String damaged : List.of("{\"highest\":3}", "[[3]]", "not json", "{\"highest\":3,\"inFlight\":1,"
        + "\"entries\":[[3,\"x\",\"y\"]]}")) {
      TableStore store = TableStores.inMemory();
      writeRow(store, damaged);
      StateCorruptedException e = assertThrows(StateCorruptedException.class,
          () -> ledger(store).record(4, List.of(range(0, 10))), damaged);
      assertTrue(e.getMessage().contains(STATE + RangeLedger.SUFFIX), e.getMessage());
    }
  }
}
