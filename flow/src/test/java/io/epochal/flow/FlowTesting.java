package io.epochal.flow;

import io.epochal.codec.Codec;
import io.epochal.codec.Codecs;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.TransactionalSpout;
import io.epochal.store.table.Lease;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreCapabilities;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** Test helpers of the Flow tests: a list spout, a lookup-counting store, a table reader. */
final class FlowTesting {
  private FlowTesting() {
  }

  /** A transactional spout over fixed batches; batch {@code i} (0-based) has metadata {@code i}. */
  static final class ListSpout<T> implements TransactionalSpout<T, Long> {
    final List<List<T>> batches = new CopyOnWriteArrayList<>();

    @SafeVarargs
    ListSpout(List<T>... batches) {
      for (List<T> batch : batches) {
        this.batches.add(batch);
      }
    }

    ListSpout(List<List<T>> batches) {
      this.batches.addAll(batches);
    }

    @Override
    public String name() {
      return "list";
    }

    @Override
    public Codec<Long> metadataCodec() {
      return Codecs.longs();
    }

    @Override
    public Optional<Long> nextBatch(long txid, Optional<Long> previous) {
      long next = previous.map(p -> p + 1).orElse(0L);
      return next < batches.size() ? Optional.of(next) : Optional.empty();
    }

    @Override
    public void emit(BatchAttempt attempt, Long metadata, Collector<T> out) {
      for (T record : batches.get(metadata.intValue())) {
        out.emit(record);
      }
    }
  }

  /** A table store that counts {@code lookup} calls per table path; everything else is delegated. */
  static final class CountingStore implements TableStore {
    final TableStore delegate;
    final ConcurrentHashMap<String, AtomicInteger> lookups = new ConcurrentHashMap<>();
    final ConcurrentHashMap<String, AtomicInteger> keysLookedUp = new ConcurrentHashMap<>();
    /** Scans per table path. */
    final ConcurrentHashMap<String, AtomicInteger> scans = new ConcurrentHashMap<>();
    /** Rows upserted or deleted per table path (in transactions, committed or not). */
    final ConcurrentHashMap<String, AtomicInteger> rowsWritten = new ConcurrentHashMap<>();

    CountingStore(TableStore delegate) {
      this.delegate = delegate;
    }

    int lookups(String path) {
      AtomicInteger n = lookups.get(path);
      return n == null ? 0 : n.get();
    }

    void reset() {
      lookups.clear();
      keysLookedUp.clear();
      scans.clear();
      rowsWritten.clear();
    }

    @Override
    public StoreCapabilities capabilities() {
      return delegate.capabilities();
    }

    @Override
    public Table openTable(TableSchema schema) {
      return delegate.openTable(schema);
    }

    @Override
    public Optional<Table> findTable(String path) {
      return delegate.findTable(path);
    }

    @Override
    public Lease acquireLease(String name, String owner) {
      return delegate.acquireLease(name, owner);
    }

    @Override
    public StoreTransaction begin() {
      return new Counting(delegate.begin());
    }

    @Override
    public StoreTransaction begin(Lease lease) {
      return new Counting(delegate.begin(lease));
    }

    @Override
    public String describe() {
      return "counting " + delegate.describe();
    }

    @Override
    public void close() {
      delegate.close();
    }

    private final class Counting implements StoreTransaction {
      private final StoreTransaction tx;

      Counting(StoreTransaction tx) {
        this.tx = tx;
      }

      @Override
      public Optional<Lease> lease() {
        return tx.lease();
      }

      @Override
      public List<Optional<Row>> lookup(Table table, List<TableKey> keys) {
        lookups.computeIfAbsent(table.path(), p -> new AtomicInteger()).incrementAndGet();
        keysLookedUp.computeIfAbsent(table.path(), p -> new AtomicInteger()).addAndGet(keys.size());
        return tx.lookup(table, keys);
      }

      @Override
      public List<Row> scan(Table table) {
        scans.computeIfAbsent(table.path(), p -> new AtomicInteger()).incrementAndGet();
        return tx.scan(table);
      }

      @Override
      public void upsert(Table table, Row row) {
        rowsWritten.computeIfAbsent(table.path(), p -> new AtomicInteger()).incrementAndGet();
        tx.upsert(table, row);
      }

      @Override
      public void delete(Table table, TableKey key) {
        rowsWritten.computeIfAbsent(table.path(), p -> new AtomicInteger()).incrementAndGet();
        tx.delete(table, key);
      }

      @Override
      public void commit() {
        tx.commit();
      }

      @Override
      public void abort() {
        tx.abort();
      }

      @Override
      public void close() {
        tx.close();
      }
    }
  }

  /** Every row of the table at {@code path}, as first key part → value decoded from column {@code value}. */
  static <V> Map<Object, V> read(TableStore store, String path, Codec<V> codec) {
    Table table = store.findTable(path).orElseThrow(() -> new AssertionError("no table " + path));
    Map<Object, V> out = new TreeMap<>();
    try (StoreTransaction tx = store.begin()) {
      for (Row row : tx.scan(table)) {
        out.put(row.key().get(0), codec.decode(row.getBytes("value")));
      }
    }
    return out;
  }
}
