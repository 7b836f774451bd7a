package io.epochal.testkit.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.epochal.errors.SchemaMismatchException;
import io.epochal.hash.FarmHash;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.Lease;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * The contract's cases of schemas and keys (create once and validate on every open, find, the hash column, null and
 * ill-fitting keys and rows, byte keys by content) and of persistence across a reopen. Not thread-safe: one per
 * contract instance, that is per test.
 */
final class SchemaCases extends ContractCases {
  SchemaCases(ContractFixture fixture) {
    super(fixture);
  }

  // ------------------------------------------------------------------ schemas, keys and validation

  void shouldCreateATableOnceAndValidateItsSchemaOnEveryOpen() {
    TableStore store = open();
    TableSchema c = counts();
    Table first = store.openTable(c);
    commit(store, first, count(c, "a", 1));
    Table again = store.openTable(c);
    assertEquals(c, again.schema());
    assertEquals(Optional.of(count(c, "a", 1)), read(store, again, c.key("a")));
    TableSchema otherType = TableSchema.builder(tablePath("counts")).key("word", ColumnType.STRING)
        .value("count", ColumnType.DOUBLE).value("note", ColumnType.BYTES).build();
    SchemaMismatchException e = assertThrows(SchemaMismatchException.class, () -> store.openTable(otherType));
    assertTrue(e.getMessage().contains("expected " + otherType), e.getMessage());
    assertTrue(e.getMessage().contains("actual " + c), e.getMessage());
    TableSchema otherKey = TableSchema.builder(tablePath("counts")).key("word", ColumnType.BYTES)
        .value("count", ColumnType.INT64).value("note", ColumnType.BYTES).build();
    assertThrows(SchemaMismatchException.class, () -> store.openTable(otherKey));
    TableSchema otherAttribute = TableSchema.builder(tablePath("counts")).key("word", ColumnType.STRING)
        .value("count", ColumnType.INT64).value("note", ColumnType.BYTES).attribute("codec", "v2").build();
    assertThrows(SchemaMismatchException.class, () -> store.openTable(otherAttribute));
    assertEquals(Optional.of(count(c, "a", 1)), read(store, first, c.key("a")), "a failed open changed the table");
  }

  void shouldFindExistingTablesWithTheirSchema() {
    TableStore store = open();
    TableSchema c = TableSchema.builder(tablePath("found")).key("word", ColumnType.STRING)
        .value("count", ColumnType.INT64).attribute("epochal.codec", "long-be:v1").build();
    store.openTable(c);
    assertEquals(c, store.findTable(tablePath("found")).orElseThrow().schema());
    assertEquals(Optional.empty(), store.findTable(tablePath("nope")));
  }

  void shouldComputeTheHashColumnAsFarmHashOfTheKeyColumns() {
    TableStore store = open();
    TableSchema schema = everyType();
    Table t = store.openTable(schema);
    byte[] bytes = "raw".getBytes(StandardCharsets.UTF_8);
    TableKey key = schema.key("word", 42L, -7L, bytes, true, 2.5);
    commit(store, t, Row.of(key, null, null, null, null, null, null));
    Row stored = read(store, t, key).orElseThrow();
    long expected = FarmHash.farmHash("word", 42L, -7L, bytes, true, 2.5);
    assertEquals(expected, stored.getLong(TableSchema.HASH_COLUMN));
    assertEquals(expected, stored.key().hash());
    TableSchema single = counts();
    assertEquals(FarmHash.farmHash("hello"), single.key("hello").hash());
    assertEquals(FarmHash.farmHash("hello"), (long) Row.of(single.key("hello"), 1L, null).getLong("hash"));
  }

  void shouldRejectNullKeyPartsNamingTableAndColumn() {
    TableSchema schema = everyType();
    NullPointerException e = assertThrows(NullPointerException.class,
        () -> schema.key("s", null, 1L, new byte[0], true, 1.0));
    assertTrue(e.getMessage().contains(tablePath("every_type")), e.getMessage());
    assertTrue(e.getMessage().contains("k_i64"), e.getMessage());
    TableSchema n = names();
    NullPointerException required = assertThrows(NullPointerException.class, () -> Row.of(n.key(1L), (Object) null));
    assertTrue(required.getMessage().contains("name"), required.getMessage());
  }

  void shouldRejectKeysAndRowsThatDoNotFitTheSchema() {
    TableStore store = open();
    TableSchema c = counts();
    TableSchema n = names();
    Table tc = store.openTable(c);
    IllegalArgumentException wrongType = assertThrows(IllegalArgumentException.class, () -> n.key("not a number"));
    assertTrue(wrongType.getMessage().contains("id"), wrongType.getMessage());
    assertThrows(IllegalArgumentException.class, () -> c.key("a", "b"));
    assertThrows(IllegalArgumentException.class, () -> Row.of(c.key("a"), 1L));
    assertThrows(IllegalArgumentException.class, () -> Row.of(c.key("a"), "one", null));
    assertThrows(IllegalArgumentException.class, () -> Row.builder(c.key("a")).set("word", "x"));
    assertThrows(IllegalArgumentException.class, () -> c.key("\uD800"));
    try (StoreTransaction tx = store.begin()) {
      assertThrows(IllegalArgumentException.class, () -> tx.upsert(tc, Row.of(n.key(1L), "one")));
      assertThrows(IllegalArgumentException.class, () -> tx.lookup(tc, List.of(n.key(1L))));
      assertThrows(NullPointerException.class, () -> tx.upsert(tc, (Row) null));
    }
  }

  void shouldTreatByteKeysByContent() {
    TableStore store = open();
    TableSchema schema = TableSchema.builder(tablePath("blobs")).key("k", ColumnType.BYTES)
        .value("v", ColumnType.INT64).build();
    Table t = store.openTable(schema);
    byte[] k = {1, 2, 3};
    TableKey key = schema.key(k);
    k[0] = 9;
    commit(store, t, Row.of(key, 5L));
    assertEquals(5L, read(store, t, schema.key(new byte[] {1, 2, 3})).orElseThrow().getLong("v"));
    assertEquals(schema.key(new byte[] {1, 2, 3}), key);
    assertNotEquals(schema.key(new byte[] {9, 2, 3}), key);
  }

  // ------------------------------------------------------------------ persistence

  void shouldKeepCommittedRowsSchemasAndLeasesAcrossReopen() {
    assumeTrue(supportsReopen(), "the store does not persist across reopen");
    TableStore first = open();
    TableSchema c = counts();
    Table tc = first.openTable(c);
    commit(first, tc, count(c, "a", 1), count(c, "b", 2));
    try (StoreTransaction tx = first.begin()) {
      tx.delete(tc, c.key("b"));
      tx.commit();
    }
    StoreTransaction unfinished = first.begin();
    unfinished.upsert(tc, count(c, "uncommitted", 1));
    Lease before = first.acquireLease("p", "w1");
    first.close();

    TableStore second = open();
    TableSchema otherType = TableSchema.builder(tablePath("counts")).key("word", ColumnType.STRING)
        .value("count", ColumnType.DOUBLE).value("note", ColumnType.BYTES).build();
    assertThrows(SchemaMismatchException.class, () -> second.openTable(otherType));
    Table again = second.openTable(c);
    assertEquals(List.of(count(c, "a", 1)), scan(second, again));
    Lease after = second.acquireLease("p", "w2");
    assertTrue(after.generation() > before.generation(), "lease generations must survive a reopen");
    assertSame(c.getClass(), again.schema().getClass());
  }
}
