package io.epochal.testkit.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.epochal.errors.StoreException;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.opentest4j.AssertionFailedError;

/**
 * The contract's read-fault cases in single calls: an unreadable store (lookups, scans and one-off lookups must fail,
 * never report keys missing) and damaged stored bytes (every flipped bit, truncation and garbage must be refused with
 * a named error). Not thread-safe: one per contract instance, that is per test.
 */
final class ReadFaultCases extends ReadFaultChecks {
  /** A key no other text of the contract contains, so that an error naming it is recognised. */
  private static final String DAMAGED_KEY = "damaged-key-17";

  ReadFaultCases(ContractFixture fixture) {
    super(fixture);
  }

  // ------------------------------------------------------------------ read faults: an unreadable store

  void shouldFailALookupWhoseReadFailsInsteadOfReportingTheKeysMissing() {
    assumeReadFaults();
    TableStore store = open();
    TableSchema schema = counts();
    Table t = store.openTable(schema);
    commit(store, t, count(schema, "a", 1), count(schema, "b", 2));
    reads.failReadsOf(schema.path());
    try (StoreTransaction tx = store.begin()) {
      assertInjectedReadFailure("StoreTransaction.lookup", schema.path(),
          () -> tx.lookup(t, List.of(schema.key("a"), schema.key("never-written"), schema.key("b"))));
    }
    reads.heal();
    assertEquals(Optional.of(count(schema, "a", 1)), read(store, t, schema.key("a")), "a failed read changed a");
    assertEquals(Optional.of(count(schema, "b", 2)), read(store, t, schema.key("b")), "a failed read changed b");
    assertEquals(2, scan(store, t).size(), "a failed read changed the table");
  }

  void shouldFailAScanWhoseReadFailsInsteadOfReportingAnEmptyTable() {
    assumeReadFaults();
    TableStore store = open();
    TableSchema schema = counts();
    Table t = store.openTable(schema);
    commit(store, t, count(schema, "a", 1));
    reads.failReadsOf(schema.path());
    try (StoreTransaction tx = store.begin()) {
      assertInjectedReadFailure("StoreTransaction.scan", schema.path(), () -> tx.scan(t));
    }
    reads.heal();
    assertEquals(List.of(count(schema, "a", 1)), scan(store, t));
  }

  void shouldFailAOneOffLookupWhoseReadFails() {
    assumeReadFaults();
    TableStore store = open();
    TableSchema schema = counts();
    Table t = store.openTable(schema);
    commit(store, t, count(schema, "a", 1));
    reads.failReadsOf(schema.path());
    assertInjectedReadFailure("TableStore.lookup", schema.path(),
        () -> store.lookup(t, List.of(schema.key("a"), schema.key("never-written"))));
    reads.heal();
    assertEquals(List.of(Optional.of(count(schema, "a", 1)), Optional.empty()),
        store.lookup(t, List.of(schema.key("a"), schema.key("never-written"))));
  }

  void shouldNameTheTableOfEachReadToTheReadHook() {
    assumeReadFaults();
    TableStore store = open();
    TableSchema c = counts();
    TableSchema n = names();
    Table tc = store.openTable(c);
    Table tn = store.openTable(n);
    commit(store, tc, count(c, "a", 1));
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(tn, Row.of(n.key(1L), "one"));
      tx.commit();
    }
    reads.failReadsOf(n.path());
    assertEquals(Optional.of(count(c, "a", 1)), read(store, tc, c.key("a")),
        "only reads of " + n.path() + " fail; a read of " + c.path() + " must not");
    assertEquals(List.of(count(c, "a", 1)), scan(store, tc));
    try (StoreTransaction tx = store.begin()) {
      assertInjectedReadFailure("StoreTransaction.lookup", n.path(), () -> tx.lookup(tn, List.of(n.key(1L))));
    }
    assertTrue(reads.beforeReads(c.path()) >= 2, "ReadHook.beforeRead must be called with the path of the table "
        + "read (" + c.path() + ") on every lookup and scan; calls seen: " + reads.beforeReadPaths());
  }

  // ------------------------------------------------------------------ read faults: damaged stored bytes

  void shouldPassTheStoredBytesOfEveryRowReadThroughTheReadHook() {
    assumeReadFaults();
    TableStore store = open();
    TableSchema schema = counts();
    Table t = store.openTable(schema);
    commit(store, t, count(schema, "a", 1), Row.of(schema.key("b"), 2L, new byte[] {1, 2, 3}));
    int before = reads.storedBytesCalls(schema.path());
    try (StoreTransaction tx = store.begin()) {
      assertEquals(3, tx.lookup(t, List.of(schema.key("a"), schema.key("never-written"), schema.key("b"))).size());
    }
    int afterLookup = reads.storedBytesCalls(schema.path());
    assertEquals(2, scan(store, t).size());
    int afterScan = reads.storedBytesCalls(schema.path());
    if (!storesBytes()) {
      assertEquals(0, afterScan, "the store declares that it keeps no stored bytes (storesBytes() is false) but "
          + "called ReadHook.storedBytes; override storesBytes() to return true");
      return;
    }
    assertTrue(afterLookup - before >= 2, "a lookup of 2 stored rows passed " + (afterLookup - before)
        + " rows' bytes through ReadHook.storedBytes; a store that keeps rows as bytes must pass every row it reads "
        + "(if it keeps no bytes, override storesBytes() to return false)" + notWiredHint(schema.path()));
    assertTrue(afterScan - afterLookup >= 2, "a scan of 2 stored rows passed " + (afterScan - afterLookup)
        + " rows' bytes through ReadHook.storedBytes");
    assertTrue(reads.storedBytesLengths(schema.path()).stream().allMatch(len -> len > 0),
        "ReadHook.storedBytes was given empty bytes: " + reads.storedBytesLengths(schema.path()));
  }

  void shouldRefuseAStoredRowWithAnyBitFlipped() {
    assumeReadFaults();
    assumeStoresBytes();
    TableStore store = open();
    TableSchema schema = counts();
    Table t = store.openTable(schema);
    Row row = Row.of(schema.key(DAMAGED_KEY), 17L, new byte[] {5, 6, 7});
    commit(store, t, row);
    int length = storedLength(store, t, schema.key(DAMAGED_KEY));
    int bits = length * 8;
    int step = Math.max(1, bits / 2048);
    for (int bit = 0; bit < bits; bit += step) {
      int flipped = bit;
      reads.damage(schema.path(), bytes -> {
        if (flipped >= bytes.length * 8) {
          return null;
        }
        byte[] copy = bytes.clone();
        copy[flipped / 8] ^= (byte) (1 << (flipped % 8));
        return copy;
      });
      assertRefusedDamage("a lookup of a stored row with bit " + bit + " of " + bits + " flipped", schema.path(),
          DAMAGED_KEY, () -> read(store, t, schema.key(DAMAGED_KEY)));
      assertRefusedDamage("a scan over a stored row with bit " + bit + " of " + bits + " flipped", schema.path(),
          null, () -> scan(store, t));
    }
    reads.heal();
    assertEquals(Optional.of(row), read(store, t, schema.key(DAMAGED_KEY)), "a damaged read changed the row");
  }

  void shouldRefuseATruncatedStoredRow() {
    assumeReadFaults();
    assumeStoresBytes();
    TableStore store = open();
    TableSchema schema = counts();
    Table t = store.openTable(schema);
    Row row = Row.of(schema.key(DAMAGED_KEY), 17L, new byte[] {5, 6, 7});
    commit(store, t, row);
    int length = storedLength(store, t, schema.key(DAMAGED_KEY));
    for (int keep = 0; keep < length; keep++) {
      int kept = keep;
      reads.damage(schema.path(), bytes -> kept >= bytes.length ? null : java.util.Arrays.copyOf(bytes, kept));
      assertRefusedDamage("a lookup of a stored row truncated to " + keep + " of " + length + " bytes",
          schema.path(), DAMAGED_KEY, () -> read(store, t, schema.key(DAMAGED_KEY)));
    }
    reads.damage(schema.path(), bytes -> java.util.Arrays.copyOf(bytes, bytes.length / 2));
    assertRefusedDamage("a scan over a stored row truncated to half", schema.path(), null, () -> scan(store, t));
    reads.heal();
    assertEquals(Optional.of(row), read(store, t, schema.key(DAMAGED_KEY)), "a damaged read changed the row");
  }

  void shouldRefuseGarbageInPlaceOfAStoredRow() {
    assumeReadFaults();
    assumeStoresBytes();
    TableStore store = open();
    TableSchema schema = counts();
    Table t = store.openTable(schema);
    Row row = Row.of(schema.key(DAMAGED_KEY), 17L, new byte[] {5, 6, 7});
    commit(store, t, row);
    int length = storedLength(store, t, schema.key(DAMAGED_KEY));
    java.util.Random random = new java.util.Random(20240610L);
    List<byte[]> garbage = new ArrayList<>();
    for (int len : new int[] {1, length - 1, length, length, length + 1, 2 * length, 256}) {
      byte[] g = new byte[Math.max(1, len)];
      random.nextBytes(g);
      garbage.add(g);
    }
    garbage.add(new byte[length]);
    byte[] ones = new byte[length];
    java.util.Arrays.fill(ones, (byte) 0xff);
    garbage.add(ones);
    for (byte[] g : garbage) {
      reads.damage(schema.path(), bytes -> g.clone());
      assertRefusedDamage("a lookup of a stored row replaced by " + g.length + " bytes of garbage", schema.path(),
          DAMAGED_KEY, () -> read(store, t, schema.key(DAMAGED_KEY)));
      assertRefusedDamage("a scan over a stored row replaced by " + g.length + " bytes of garbage", schema.path(),
          null, () -> scan(store, t));
    }
    reads.heal();
    assertEquals(Optional.of(row), read(store, t, schema.key(DAMAGED_KEY)), "a damaged read changed the row");
  }

  // ------------------------------------------------------------------ read-fault assertions

  /** Asserts that {@code call} fails with the injected read failure, as is or as the cause of a StoreException. */
  private void assertInjectedReadFailure(String what, String tablePath, Supplier<?> call) {
    Object result;
    try {
      result = call.get();
    } catch (RuntimeException e) {
      assertTrue(causedBy(e, InjectedReadFailure.class), what + " of " + tablePath + " must fail with the failure "
          + "ReadHook.beforeRead threw (as is or as the cause of a StoreException), got " + e);
      assertTrue(e instanceof StoreException, what + " must throw the injected StoreException or a StoreException "
          + "caused by it, got " + e);
      return;
    }
    throw new AssertionFailedError(what + " of " + tablePath + " returned " + result + " although its read failed "
        + "(ReadHook.beforeRead threw): a store must never turn an unreadable value into \"absent\""
        + notWiredHint(tablePath));
  }

  /** Asserts that {@code call} fails with a named, unretryable error because the stored bytes were damaged. */
  private void assertRefusedDamage(String what, String tablePath, String key, Supplier<?> call) {
    int calls = reads.storedBytesCalls(tablePath);
    int damaged = reads.damaged();
    Object result;
    try {
      result = call.get();
    } catch (RuntimeException e) {
      assertNamedUnretryable(what, e, tablePath, key);
      return;
    }
    if (reads.storedBytesCalls(tablePath) == calls) {
      throw new AssertionFailedError(what + " of table " + tablePath + " returned " + result + " without passing "
          + "any stored bytes through ReadHook.storedBytes: a store that keeps rows as bytes must pass every row it "
          + "reads (if it keeps no bytes, override storesBytes() to return false)" + notWiredHint(tablePath));
    }
    if (reads.damaged() != damaged) {
      throw new AssertionFailedError(what + " of table " + tablePath + " returned " + result + ": damaged stored "
          + "bytes must fail with a named error (StateCorruptedException), never read as absent or as another "
          + "value");
    }
    // the bytes the store passed were too short for this damage: nothing was damaged
  }

  /** The length of the stored bytes of {@code key}, as the store passes them to the hook on a lookup. */
  private int storedLength(TableStore store, Table t, TableKey key) {
    String path = t.path();
    int before = reads.storedBytesCalls(path);
    assertTrue(read(store, t, key).isPresent(), "a committed row of " + path + " was not found");
    List<Integer> lengths = reads.storedBytesLengths(path);
    assertTrue(lengths.size() > before, "a lookup of a stored row did not pass its bytes through "
        + "ReadHook.storedBytes (if the store keeps no bytes, override storesBytes() to return false)"
        + notWiredHint(path));
    return lengths.get(before);
  }
}
