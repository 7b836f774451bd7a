package io.epochal.testkit.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.epochal.errors.LeaseLostException;
import io.epochal.store.table.Lease;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import java.util.List;
import java.util.Optional;

/**
 * The contract's cases of leases and fencing: generations grow on every takeover, a commit under the current lease
 * lands, and one whose lease was taken over is fenced. Not thread-safe: one per contract instance, that is per test.
 */
final class LeaseCases extends ContractCases {
  LeaseCases(ContractFixture fixture) {
    super(fixture);
  }

  // ------------------------------------------------------------------ leases and fencing

  void shouldIncreaseTheLeaseGenerationOnEveryTakeover() {
    TableStore store = open();
    Lease first = store.acquireLease("pipeline-a", "worker-1");
    Lease second = store.acquireLease("pipeline-a", "worker-2");
    Lease other = store.acquireLease("pipeline-b", "worker-1");
    assertTrue(second.generation() > first.generation());
    assertEquals("worker-2", second.owner());
    assertEquals("pipeline-a", second.name());
    assertTrue(other.generation() >= 1);
    assertTrue(store.acquireLease("pipeline-a", "worker-1").generation() > second.generation());
  }

  void shouldCommitUnderTheCurrentLease() {
    TableStore store = open();
    TableSchema c = counts();
    Table tc = store.openTable(c);
    Lease lease = store.acquireLease("p", "w1");
    try (StoreTransaction tx = store.begin(lease)) {
      assertEquals(Optional.of(lease), tx.lease());
      tx.upsert(tc, count(c, "a", 1));
      tx.commit();
    }
    assertEquals(Optional.of(count(c, "a", 1)), read(store, tc, c.key("a")));
  }

  void shouldFenceACommitOnceItsLeaseWasTakenOver() {
    TableStore store = open();
    assumeTrue(store.capabilities().fencing(), "the store does not declare fencing");
    TableSchema c = counts();
    TableSchema n = names();
    Table tc = store.openTable(c);
    Table tn = store.openTable(n);
    Lease old = store.acquireLease("p", "old-worker");
    StoreTransaction stale = store.begin(old);
    stale.upsert(tc, count(c, "stale", 1));
    stale.upsert(tn, Row.of(n.key(1L), "stale"));
    Lease fresh = store.acquireLease("p", "new-worker");
    LeaseLostException e = assertThrows(LeaseLostException.class, stale::commit);
    assertTrue(e.getMessage().contains("p"), e.getMessage());
    assertEquals(List.of(), scan(store, tc), "a fenced commit must change nothing");
    assertEquals(List.of(), scan(store, tn), "a fenced commit must change nothing");
    try (StoreTransaction tx = store.begin(fresh)) {
      tx.upsert(tc, count(c, "fresh", 1));
      tx.commit();
    }
    assertEquals(1, scan(store, tc).size());
    assertThrows(LeaseLostException.class, () -> {
      try (StoreTransaction tx = store.begin(old)) {
        tx.upsert(tc, count(c, "stale-again", 1));
        tx.commit();
      }
    });
    assertEquals(Optional.empty(), read(store, tc, c.key("stale-again")));
  }
}
