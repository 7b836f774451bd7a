package io.epochal.metrics.internal;

import io.epochal.metrics.internal.StoreMeters.Op;
import io.epochal.metrics.internal.StoreMeters.Rows;
import io.epochal.store.table.Lease;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreCapabilities;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link TableStore} that forwards every call to another one and records it in {@link StoreMeters}: requests
 * (open and find table, acquire lease, begin, lookup, scan, commit, abort) are timed per operation and table, a
 * request that throws is counted by error type and its exception rethrown unchanged, and rows read, upserted and
 * deleted are counted per table. Tables, leases, results and capabilities are the inner store's own, so the metered
 * store keeps every guarantee of the inner one; its transactions are {@link MeteredTransaction}s over the inner
 * store's. Closing it closes the inner store.
 *
 * <p>Thread-safe, as the inner store is.
 */
public final class MeteredTableStore implements TableStore {
  private final TableStore inner;
  private final StoreMeters meters;

  /**
   * Meters {@code inner} in {@code registry} under the tag {@code store=<name>}.
   *
   * @param inner the store every call is forwarded to, unchanged
   * @param registry where the request timers and row and failure counters are registered
   * @param name the value of the {@code store} tag
   * @throws NullPointerException if an argument is null
   */
  public MeteredTableStore(TableStore inner, MeterRegistry registry, String name) {
    this.inner = Objects.requireNonNull(inner, "inner");
    this.meters = new StoreMeters(Objects.requireNonNull(registry, "registry"), Objects.requireNonNull(name, "name"));
  }

  /** The {@code table} tag of {@code table}: its path. */
  static String tag(Table table) {
    return Objects.requireNonNull(table, "table").path();
  }

  @Override
  public StoreCapabilities capabilities() {
    return inner.capabilities();
  }

  @Override
  public Table openTable(TableSchema schema) {
    Objects.requireNonNull(schema, "schema");
    return meters.time(Op.OPEN_TABLE, schema.path(), () -> inner.openTable(schema));
  }

  @Override
  public Optional<Table> findTable(String path) {
    Objects.requireNonNull(path, "path");
    return meters.time(Op.FIND_TABLE, path, () -> inner.findTable(path));
  }

  @Override
  public Lease acquireLease(String name, String owner) {
    return meters.time(Op.ACQUIRE_LEASE, StoreMeters.NO_TABLE, () -> inner.acquireLease(name, owner));
  }

  @Override
  public StoreTransaction begin() {
    return new MeteredTransaction(meters.time(Op.BEGIN, StoreMeters.NO_TABLE, () -> inner.begin()), meters);
  }

  @Override
  public StoreTransaction begin(Lease lease) {
    return new MeteredTransaction(meters.time(Op.BEGIN, StoreMeters.NO_TABLE, () -> inner.begin(lease)), meters);
  }

  @Override
  public List<Optional<Row>> lookup(Table table, List<TableKey> keys) {
    String tag = tag(table);
    List<Optional<Row>> rows = meters.time(Op.LOOKUP, tag, () -> inner.lookup(table, keys));
    meters.rows(Rows.READ, tag, keys.size());
    return rows;
  }

  /** @return the inner store's description followed by {@code " (metered)"} */
  @Override
  public String describe() {
    return inner.describe() + " (metered)";
  }

  @Override
  public void close() {
    inner.close();
  }

  @Override
  public String toString() {
    return "MeteredTableStore[" + inner + "]";
  }
}
