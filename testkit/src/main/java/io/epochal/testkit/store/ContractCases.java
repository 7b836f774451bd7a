package io.epochal.testkit.store;

import io.epochal.store.table.ColumnType;
import io.epochal.store.table.CommitHook;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import java.util.List;
import java.util.Optional;

/**
 * The base of the contract's topic cases: the store and schemas of one test (through its {@link ContractFixture})
 * and the one-call transactions the cases build on. Not thread-safe, like the fixture.
 */
abstract class ContractCases {
  private final ContractFixture fixture;
  /** The read hook of every store this test opens. */
  final ContractReadHook reads;

  ContractCases(ContractFixture fixture) {
    this.fixture = fixture;
    this.reads = fixture.reads();
  }

  // ------------------------------------------------------------------ the contract's hooks

  String tablePath(String name) {
    return fixture.contract().tablePath(name);
  }

  boolean supportsReopen() {
    return fixture.contract().supportsReopen();
  }

  boolean storesBytes() {
    return fixture.contract().storesBytes();
  }

  Optional<String> readFaultsOptOut() {
    return fixture.contract().readFaultsOptOut();
  }

  // ------------------------------------------------------------------ fixtures

  TableStore open(CommitHook hook) {
    return fixture.open(hook);
  }

  TableStore open() {
    return open(CommitHook.NONE);
  }

  /** {@code (hash, word string) -> count int64, note bytes} */
  TableSchema counts() {
    return TableSchema.builder(tablePath("counts")).key("word", ColumnType.STRING)
        .value("count", ColumnType.INT64).value("note", ColumnType.BYTES).build();
  }

  /** {@code (hash, id int64) -> name string required} */
  TableSchema names() {
    return TableSchema.builder(tablePath("names")).key("id", ColumnType.INT64)
        .requiredValue("name", ColumnType.STRING).build();
  }

  /** Every column type, with a composite key. */
  TableSchema everyType() {
    return TableSchema.builder(tablePath("every_type"))
        .key("k_str", ColumnType.STRING).key("k_i64", ColumnType.INT64).key("k_u64", ColumnType.UINT64)
        .key("k_bytes", ColumnType.BYTES).key("k_bool", ColumnType.BOOLEAN).key("k_dbl", ColumnType.DOUBLE)
        .value("v_str", ColumnType.STRING).value("v_i64", ColumnType.INT64).value("v_u64", ColumnType.UINT64)
        .value("v_bytes", ColumnType.BYTES).value("v_bool", ColumnType.BOOLEAN).value("v_dbl", ColumnType.DOUBLE)
        .build();
  }

  static Row count(TableSchema schema, String word, long n) {
    return Row.of(schema.key(word), n, null);
  }

  static void commit(TableStore store, Table table, Row... rows) {
    try (StoreTransaction tx = store.begin()) {
      tx.upsert(table, List.of(rows));
      tx.commit();
    }
  }

  static Optional<Row> read(TableStore store, Table table, TableKey key) {
    try (StoreTransaction tx = store.begin()) {
      return tx.lookup(table, List.of(key)).get(0);
    }
  }

  static List<Row> scan(TableStore store, Table table) {
    try (StoreTransaction tx = store.begin()) {
      return tx.scan(table);
    }
  }

  static boolean causedBy(Throwable t, Throwable cause) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c == cause) {
        return true;
      }
    }
    return false;
  }
}
