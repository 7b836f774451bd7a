package io.epochal.testkit.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.epochal.errors.CommitConflictException;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import java.util.List;
import java.util.Optional;

/**
 * The contract's cases of commits: atomic multi-table commit (all tables together, nothing on a failure midway) and
 * conflicts between overlapping transactions. Not thread-safe: one per contract instance, that is per test.
 */
final class CommitAndConflictCases extends ContractCases {
  /** Whether the commit hook of {@code shouldApplyNothingWhenTheCommitFailsMidway} fails the next table write. */
  private volatile boolean armed;

  CommitAndConflictCases(ContractFixture fixture) {
    super(fixture);
  }

  // ------------------------------------------------------------------ atomicity

  void shouldCommitSeveralTablesTogether() {
    TableStore store = open();
    TableSchema c = counts();
    TableSchema n = names();
    Table tc = store.openTable(c);
    Table tn = store.openTable(n);
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(tc, count(c, "a", 1));
      tx.upsert(tn, Row.of(n.key(7L), "seven"));
      assertEquals(Optional.empty(), read(store, tn, n.key(7L)));
      tx.commit();
    }
    assertEquals(Optional.of(count(c, "a", 1)), read(store, tc, c.key("a")));
    assertEquals("seven", read(store, tn, n.key(7L)).orElseThrow().getString("name"));
  }

  void shouldApplyNothingWhenTheCommitFailsMidway() {
    RuntimeException injected = new IllegalStateException("injected failure after the first table");
    TableStore store = open(path -> {
      if (armed && path.equals(tablePath("names"))) {
        throw injected;
      }
    });
    assumeTrue(store.capabilities().atomicMultiTableCommit(), "the store does not declare atomic multi-table commit");
    TableSchema c = counts();
    TableSchema n = names();
    Table tc = store.openTable(c);
    Table tn = store.openTable(n);
    commit(store, tc, count(c, "before", 1));
    armed = true;
    StoreTransaction tx = store.begin();
    tx.upsert(tc, count(c, "a", 1));
    tx.delete(tc, c.key("before"));
    tx.upsert(tn, Row.of(n.key(1L), "one"));
    RuntimeException thrown = assertThrows(RuntimeException.class, tx::commit);
    assertTrue(causedBy(thrown, injected), "commit must fail with the injected failure, got " + thrown);
    armed = false;
    assertEquals(List.of(count(c, "before", 1)), scan(store, tc), "a failed atomic commit wrote the first table");
    assertEquals(List.of(), scan(store, tn));
    tx.abort();
    commit(store, tn, Row.of(n.key(2L), "two"));
    assertEquals(1, scan(store, tn).size(), "the store must stay usable after a failed commit");
  }

  // ------------------------------------------------------------------ conflicts

  void shouldFailTheSecondOfTwoOverlappingWritesToOneRow() {
    TableStore store = open();
    TableSchema c = counts();
    TableSchema n = names();
    Table tc = store.openTable(c);
    Table tn = store.openTable(n);
    StoreTransaction first = store.begin();
    StoreTransaction second = store.begin();
    first.upsert(tc, count(c, "contended", 1));
    second.upsert(tn, Row.of(n.key(1L), "from the loser"));
    second.upsert(tc, count(c, "contended", 2));
    first.commit();
    CommitConflictException e = assertThrows(CommitConflictException.class, second::commit);
    assertTrue(e.getMessage().contains(tablePath("counts")), "message must name the table: " + e.getMessage());
    assertTrue(e.getMessage().contains("contended"), "message must name the key: " + e.getMessage());
    assertEquals(Optional.of(count(c, "contended", 1)), read(store, tc, c.key("contended")));
    assertEquals(List.of(), scan(store, tn), "nothing of the conflicting transaction may be applied");
    second.abort();
  }

  void shouldDetectAConflictWithACommittedDelete() {
    TableStore store = open();
    TableSchema c = counts();
    Table tc = store.openTable(c);
    commit(store, tc, count(c, "x", 1));
    StoreTransaction deleter = store.begin();
    StoreTransaction writer = store.begin();
    deleter.delete(tc, c.key("x"));
    deleter.commit();
    writer.upsert(tc, count(c, "x", 5));
    assertThrows(CommitConflictException.class, writer::commit);
    assertEquals(Optional.empty(), read(store, tc, c.key("x")));
  }

  void shouldNotConflictWithoutOverlapOrOnDifferentRows() {
    TableStore store = open();
    TableSchema c = counts();
    Table tc = store.openTable(c);
    StoreTransaction a = store.begin();
    StoreTransaction b = store.begin();
    a.upsert(tc, count(c, "a", 1));
    b.upsert(tc, count(c, "b", 1));
    a.commit();
    b.commit();
    StoreTransaction later = store.begin();
    later.upsert(tc, count(c, "a", 2));
    later.commit();
    assertEquals(List.of(count(c, "a", 2), count(c, "b", 1)),
        scan(store, tc).stream().sorted((x, y) -> ((String) x.key().get("word")).compareTo(
            (String) y.key().get("word"))).toList());
  }
}
