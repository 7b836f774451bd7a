package io.epochal.testkit.examples;

import io.epochal.store.table.Lease;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreCapabilities;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableStore;
import io.epochal.testkit.store.ForwardingTableStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A user's table store over a durable "disk" store, with a write buffer per table: a commit is acknowledged once its
 * rows are in memory, and a table's buffer is written to disk (one disk transaction) when it holds {@code flushAt}
 * rows; {@code close()} writes everything. Reads see the buffers over the disk, so while the object lives it looks
 * right. With {@code flushAt > 1} it is wrong: a crash loses the buffers table by table, so the disk can hold a
 * batch's state rows without its checkpoint row. With {@code flushAt == 1} every commit reaches the disk whole.
 *
 * <p>It does not fence writers and says so ({@code fencing = false}).
 */
final class WriteBufferingStore extends ForwardingTableStore {
  private final int flushAt;
  private final Map<String, Table> tables = new HashMap<>();
  private final Map<String, Map<TableKey, Optional<Row>>> buffers = new LinkedHashMap<>();

  WriteBufferingStore(TableStore disk, int flushAt) {
    super(disk);
    this.flushAt = flushAt;
  }

  @Override
  public StoreCapabilities capabilities() {
    return new StoreCapabilities(delegate().capabilities().atomicMultiTableCommit(), false);
  }

  @Override
  public StoreTransaction begin() {
    return new Tx(null);
  }

  @Override
  public StoreTransaction begin(Lease lease) {
    return new Tx(lease);
  }

  @Override
  public List<Optional<Row>> lookup(Table table, List<TableKey> keys) {
    return read(table, keys);
  }

  private synchronized List<Optional<Row>> read(Table table, List<TableKey> keys) {
    List<Optional<Row>> out = new ArrayList<>(delegate().lookup(table, keys));
    Map<TableKey, Optional<Row>> buffered = buffers.getOrDefault(table.path(), Map.of());
    for (int i = 0; i < keys.size(); i++) {
      Optional<Row> b = buffered.get(keys.get(i));
      if (b != null) {
        out.set(i, b);
      }
    }
    return out;
  }

  private synchronized List<Row> scan(Table table) {
    Map<TableKey, Optional<Row>> rows = new LinkedHashMap<>();
    try (StoreTransaction tx = delegate().begin()) {
      for (Row row : tx.scan(table)) {
        rows.put(row.key(), Optional.of(row));
      }
    }
    rows.putAll(buffers.getOrDefault(table.path(), Map.of()));
    return rows.values().stream().flatMap(Optional::stream).toList();
  }

  private synchronized void commit(Map<Table, Map<TableKey, Optional<Row>>> writes, Lease lease) {
    for (Map.Entry<Table, Map<TableKey, Optional<Row>>> w : writes.entrySet()) {
      tables.put(w.getKey().path(), w.getKey());
      buffers.computeIfAbsent(w.getKey().path(), p -> new LinkedHashMap<>()).putAll(w.getValue());
    }
    List<String> due = buffers.entrySet().stream().filter(e -> e.getValue().size() >= flushAt)
        .map(Map.Entry::getKey).toList();
    flush(due, lease);
  }

  private void flush(List<String> paths, Lease lease) {
    if (paths.isEmpty()) {
      return;
    }
    try (StoreTransaction disk = lease == null ? delegate().begin() : delegate().begin(lease)) {
      for (String path : paths) {
        for (Map.Entry<TableKey, Optional<Row>> e : buffers.get(path).entrySet()) {
          if (e.getValue().isPresent()) {
            disk.upsert(tables.get(path), e.getValue().get());
          } else {
            disk.delete(tables.get(path), e.getKey());
          }
        }
      }
      disk.commit();
    }
    paths.forEach(buffers::remove);
  }

  /** Writes every buffer; the disk itself outlives this object (it is the durable part). */
  @Override
  public synchronized void close() {
    flush(new ArrayList<>(buffers.keySet()), null);
  }

  private final class Tx implements StoreTransaction {
    private final Lease lease;
    private final Map<Table, Map<TableKey, Optional<Row>>> writes = new LinkedHashMap<>();

    Tx(Lease lease) {
      this.lease = lease;
    }

    @Override
    public Optional<Lease> lease() {
      return Optional.ofNullable(lease);
    }

    @Override
    public List<Optional<Row>> lookup(Table table, List<TableKey> keys) {
      return read(table, keys);
    }

    @Override
    public List<Row> scan(Table table) {
      return WriteBufferingStore.this.scan(table);
    }

    @Override
    public void upsert(Table table, Row row) {
      writes.computeIfAbsent(table, t -> new LinkedHashMap<>()).put(row.key(), Optional.of(row));
    }

    @Override
    public void delete(Table table, TableKey key) {
      writes.computeIfAbsent(table, t -> new LinkedHashMap<>()).put(key, Optional.empty());
    }

    @Override
    public void commit() {
      WriteBufferingStore.this.commit(writes, lease);
      writes.clear();
    }

    @Override
    public void abort() {
      writes.clear();
    }

    @Override
    public void close() {
      writes.clear();
    }
  }
}
