package io.epochal.trident;

import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.StateAheadException;
import io.epochal.errors.StateCorruptedException;
import io.epochal.state.IBackingMap;
import io.epochal.store.table.CellLayout;
import io.epochal.store.table.Column;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.Lease;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableSchema;
import io.epochal.store.table.TableStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The per-partition epoch protocol of an Epochal state on Storm: one state partition's cells in table {@code T} of an
 * Epochal {@link TableStore}, committed per batch in one fenced store transaction together with the partition's
 * marker row (in table {@code T__epochal_partitions}: the committed txid, the partition count, and the undo record of
 * the batch, i.e. the rows every key written in the batch held before it).
 *
 * <p>Storm commits batch {@code t} partition by partition and never begins {@code t + 1} before every partition
 * committed {@code t}; a batch that failed anywhere is replayed with the same txid, possibly re-cut by an opaque
 * spout. So when {@link #beginBatch} finds the marker at {@code t}, this partition already committed the failed attempt:
 * reads then see the rows from before {@code t} (the undo record), and {@link #commitBatch} restores the rows of keys
 * the replay no longer writes, writes the replay's cells and a new marker, all in one transaction. The committed
 * state is therefore always that of the batches as last cut, which makes an opaque spout into an {@code OpaqueMap}
 * (and into a {@code TransactionalMap}) exactly-once, where Trident's per-key protocol keeps a dropped key's
 * failed-attempt value.
 *
 * <p>Fencing: the first {@link #beginBatch} takes over lease {@code storm-state:T#p} (one generation up); a task holding
 * an older generation (a frozen worker whose executors Storm reassigned) cannot commit: its commit fails with
 * {@link io.epochal.errors.LeaseLostException} and changes nothing.
 *
 * <p>Reads within a batch see the batch's own writes, then the undo record, then an optional LRU cache of committed
 * rows (updated only after a commit succeeded, cleared when a commit's outcome is unknown), then the store. Costs per
 * partition and batch: one marker lookup in {@code begin}, one transaction in {@code commit} (skipped when the
 * partition wrote nothing and undoes nothing), one extra row holding the undo record (its size grows with the keys
 * written). Not thread-safe: Storm calls a state partition from one executor thread.
 */
final class PartitionEpoch<C> implements IBackingMap<List<Object>, C> {
  private static final Logger LOG = LoggerFactory.getLogger(PartitionEpoch.class);
  static final String MARKER_SUFFIX = "__epochal_partitions";
  private static final String PARTITION = "partition";
  private static final String TXID = "txid";
  private static final String PARTITIONS = "partitions";
  private static final String UNDO = "undo";

  private final TableStore store;
  private final Table table;
  private final Table markers;
  private final KeyCodec<List<Object>> keys;
  private final CellLayout<C> layout;
  private final int partition;
  private final int partitions;
  private final String owner;
  private final CommittedRows cache;

  private Lease lease;
  private long txid = -1;
  private boolean inBatch;
  /** A replay of a committed batch: the rows from before it, of the keys it wrote. */
  private Map<TableKey, Optional<Row>> undo = Map.of();
  /** This attempt's writes, in call order. */
  private final Map<TableKey, Staged<C>> staged = new LinkedHashMap<>();
  /** The rows from before this batch of keys this attempt read or wrote. */
  private final Map<TableKey, Optional<Row>> prior = new HashMap<>();

  private record Staged<C>(List<Object> key, C cell) {
  }

  PartitionEpoch(TableStore store, Table table, KeyCodec<List<Object>> keys, CellLayout<C> layout, int partition,
      int partitions, String owner, int cacheSize) {
    this.store = Objects.requireNonNull(store, "store");
    this.table = Objects.requireNonNull(table, "table");
    this.keys = Objects.requireNonNull(keys, "keys");
    this.layout = Objects.requireNonNull(layout, "layout");
    if (partition < 0 || partition >= partitions) {
      throw new IllegalArgumentException("partition " + partition + " of " + partitions);
    }
    this.partition = partition;
    this.partitions = partitions;
    this.owner = Objects.requireNonNull(owner, "owner");
    this.markers = store.openTable(markerSchema(table.path()));
    this.cache = new CommittedRows(cacheSize);
  }

  /**
   * The schema of a state table: the key columns of {@code keys} and the value columns of {@code layout}, with the
   * layout, key mapping and value codec ids in its attributes exactly as Epochal's own table-backed states record
   * them, so an Epochal pipeline can later open the same table ({@code TableStates.builder(..).table(path)}).
   */
  static TableSchema cellSchema(String path, KeyCodec<?> keys, CellLayout<?> layout, io.epochal.codec.Codec<?> values) {
    TableSchema.Builder b = TableSchema.builder(path);
    for (Column c : keys.columns()) {
      b.key(c);
    }
    for (Column c : layout.valueColumns()) {
      b.value(c);
    }
    return b.attribute("epochal.layout", layout.id()).attribute("epochal.key", keys.id())
        .attribute("epochal.codec", values.id()).build();
  }

  /** The schema of the marker table of state table {@code path}. */
  static TableSchema markerSchema(String path) {
    return TableSchema.builder(path + MARKER_SUFFIX)
        .key(Column.required(PARTITION, ColumnType.INT64))
        .value(Column.required(TXID, ColumnType.INT64))
        .value(Column.required(PARTITIONS, ColumnType.INT64))
        .value(Column.required(UNDO, ColumnType.BYTES))
        .attribute("epochal.layout", "storm-partition-epoch:v1")
        .build();
  }

  /** The lease that fences the writers of one partition of a state table. */
  static String leaseName(String path, int partition) {
    return "storm-state:" + path + "#" + partition;
  }

  /** Trident's {@code beginCommit(t)}: drops what an earlier attempt staged and reads this partition's marker. */
  void beginBatch(long t) {
    staged.clear();
    prior.clear();
    undo = Map.of();
    inBatch = false;
    if (lease == null) {
      lease = store.acquireLease(leaseName(table.path(), partition), owner);
    }
    TableKey own = markerKey(partition);
    TableKey first = markerKey(0);
    List<TableKey> wanted = partition == 0 ? List.of(own) : List.of(own, first);
    List<Optional<Row>> found = store.lookup(markers, wanted);
    Optional<Row> mine = found.get(0);
    Optional<Row> reference = mine.isPresent() ? mine : found.get(found.size() - 1);
    if (reference.isPresent() && longOf(reference.get(), PARTITIONS, t) != partitions) {
      checkRescale(t, (int) (long) longOf(reference.get(), PARTITIONS, t));
    }
    if (mine.isPresent()) {
      long committed = longOf(mine.get(), TXID, t);
      if (committed > t) {
        throw new StateAheadException(markers.path(), "partition " + partition, committed, t);
      }
      if (committed == t && longOf(mine.get(), PARTITIONS, t) == partitions) {
        undo = UndoRecord.decode(mine.get().getBytes(UNDO), table.schema(), markers.path(), "partition " + partition,
            t);
      }
    }
    txid = t;
    inBatch = true;
    if (LOG.isDebugEnabled()) {
      LOG.debug("begin batch {} on partition {} of {}: marker {}, undo of {} keys", t, partition, table.path(),
          mine.map(r -> String.valueOf(r.getLong(TXID))).orElse("none"), undo.size());
    }
  }

  /**
   * The partition count changed (Storm parallelism): safe only if no partition of the old layout committed a batch
   * at or after {@code t}, since their undo records would belong to other partitions now.
   */
  private void checkRescale(long t, int before) {
    List<TableKey> old = new ArrayList<>(before);
    for (int p = 0; p < before; p++) {
      old.add(markerKey(p));
    }
    List<Optional<Row>> rows = store.lookup(markers, old);
    for (int p = 0; p < before; p++) {
      if (rows.get(p).isPresent() && longOf(rows.get(p).get(), PARTITIONS, t) == before
          && longOf(rows.get(p).get(), TXID, t) >= t) {
        throw new EpochalException("state table " + table.path() + " was committed by " + before
            + " partitions up to batch " + longOf(rows.get(p).get(), TXID, t) + " (partition " + p + "), and batch "
            + t + " now runs with " + partitions + " partitions: a batch that some partitions of the old layout "
            + "committed cannot be replayed by a new layout. Restart the topology with parallelism " + before
            + " until batch " + t + " is committed, then change it.", null, false,
            ErrorContext.of(markers.path(), "partition " + p).withTxid(t));
      }
    }
  }

  /** Trident's {@code commit(t)}: makes this partition's batch durable in one fenced transaction. */
  void commitBatch(long t) {
    if (!inBatch || t != txid) {
      throw new EpochalException("commit of batch " + t + " on partition " + partition + " of " + table.path()
          + " without its beginCommit (current batch " + (inBatch ? String.valueOf(txid) : "none") + ")", null, false,
          ErrorContext.of(table.path(), "partition " + partition).withTxid(t));
    }
    inBatch = false;
    if (staged.isEmpty() && undo.isEmpty()) {
      LOG.debug("commit of batch {} on partition {} of {}: nothing written, nothing to undo", t, partition,
          table.path());
      return;
    }
    readPrior(missingPrior());
    Map<TableKey, Optional<Row>> newUndo = new LinkedHashMap<>();
    Map<TableKey, Optional<Row>> after = new HashMap<>();
    try (StoreTransaction tx = store.begin(lease)) {
      for (Map.Entry<TableKey, Optional<Row>> e : undo.entrySet()) {
        if (!staged.containsKey(e.getKey())) {
          if (e.getValue().isPresent()) {
            tx.upsert(table, e.getValue().get());
          } else {
            tx.delete(table, e.getKey());
          }
          after.put(e.getKey(), e.getValue());
        }
      }
      for (Map.Entry<TableKey, Staged<C>> e : staged.entrySet()) {
        Row.Builder row = Row.builder(e.getKey());
        layout.write(e.getValue().cell(), row);
        Row built = row.build();
        tx.upsert(table, built);
        after.put(e.getKey(), Optional.of(built));
        newUndo.put(e.getKey(), prior.get(e.getKey()));
      }
      tx.upsert(markers, Row.builder(markerKey(partition)).set(TXID, t).set(PARTITIONS, (long) partitions)
          .set(UNDO, UndoRecord.encode(newUndo)).build());
      tx.commit();
    } catch (RuntimeException e) {
      cache.clear(); // the outcome is unknown: the next batch reads the store
      throw e;
    } finally {
      staged.clear();
      prior.clear();
      undo = Map.of();
    }
    after.forEach(cache::put);
    if (LOG.isDebugEnabled()) {
      LOG.debug("committed batch {} on partition {} of {}: {} keys written, {} restored from the undo record", t,
          partition, table.path(), newUndo.size(), after.size() - newUndo.size());
    }
  }

  private List<TableKey> missingPrior() {
    List<TableKey> missing = new ArrayList<>();
    for (TableKey k : staged.keySet()) {
      if (!prior.containsKey(k)) {
        missing.add(k);
      }
    }
    return missing;
  }

  /** Fills {@link #prior} for {@code wanted} (keys neither staged nor in the undo record): cache, then the store. */
  private void readPrior(List<TableKey> wanted) {
    List<TableKey> fromStore = new ArrayList<>();
    for (TableKey k : wanted) {
      Optional<Row> u = undo.get(k);
      if (u != null) {
        prior.put(k, u);
        continue;
      }
      Optional<Row> cached = cache.get(k);
      if (cached != null) {
        prior.put(k, cached);
      } else {
        fromStore.add(k);
      }
    }
    if (fromStore.isEmpty()) {
      return;
    }
    List<Optional<Row>> rows = store.lookup(table, fromStore);
    for (int i = 0; i < fromStore.size(); i++) {
      prior.put(fromStore.get(i), rows.get(i));
      cache.put(fromStore.get(i), rows.get(i));
    }
  }

  @Override
  public Map<List<Object>, C> multiGet(Collection<? extends List<Object>> wanted) {
    if (wanted.isEmpty()) {
      return Map.of();
    }
    List<List<Object>> list = new ArrayList<>(wanted.size());
    List<TableKey> tableKeys = new ArrayList<>(wanted.size());
    for (List<Object> k : wanted) {
      list.add(Objects.requireNonNull(k, "key"));
      tableKeys.add(keys.toKey(table.schema(), k));
    }
    Map<List<Object>, C> out = new HashMap<>(Math.max(16, list.size() * 2));
    if (!inBatch) {
      // Outside a batch (Trident's stateQuery): the committed rows.
      List<Optional<Row>> rows = store.lookup(table, tableKeys);
      for (int i = 0; i < list.size(); i++) {
        final int at = i;
        rows.get(i).ifPresent(r -> out.put(list.get(at), decode(list.get(at), r)));
      }
      return Collections.unmodifiableMap(out);
    }
    List<TableKey> unknown = new ArrayList<>();
    for (TableKey k : tableKeys) {
      if (!staged.containsKey(k) && !prior.containsKey(k)) {
        unknown.add(k);
      }
    }
    readPrior(unknown);
    for (int i = 0; i < list.size(); i++) {
      TableKey k = tableKeys.get(i);
      Staged<C> s = staged.get(k);
      if (s != null) {
        out.put(list.get(i), s.cell());
      } else {
        final int at = i;
        prior.get(k).ifPresent(r -> out.put(list.get(at), decode(list.get(at), r)));
      }
    }
    return Collections.unmodifiableMap(out);
  }

  @Override
  public void multiPut(Map<List<Object>, C> cells) {
    if (!inBatch) {
      throw new EpochalException("a write to partition " + partition + " of " + table.path()
          + " outside a batch: Epochal state on Storm is written only between beginCommit and commit", null, false,
          ErrorContext.of(table.path(), "partition " + partition));
    }
    List<TableKey> unread = new ArrayList<>();
    for (Map.Entry<List<Object>, C> e : cells.entrySet()) {
      List<Object> key = List.copyOf(Objects.requireNonNull(e.getKey(), "key"));
      TableKey k = keys.toKey(table.schema(), key);
      staged.put(k, new Staged<>(key, Objects.requireNonNull(e.getValue(), "cell")));
      if (!prior.containsKey(k)) {
        unread.add(k);
      }
    }
    if (!unread.isEmpty()) {
      readPrior(unread);
    }
  }

  private C decode(List<Object> key, Row row) {
    try {
      return layout.read(row);
    } catch (RuntimeException e) {
      throw new StateCorruptedException(table.path(), key, OptionalLong.of(txid), e);
    }
  }

  private TableKey markerKey(int p) {
    return TableKey.of(markers.schema(), (long) p);
  }

  private long longOf(Row row, String column, long t) {
    Long v = row.getLong(column);
    if (v == null) {
      throw new StateCorruptedException(markers.path(), "partition " + partition, OptionalLong.of(t),
          new IllegalStateException("marker column " + column + " is null"));
    }
    return v;
  }

  @Override
  public String describe() {
    return "partition " + partition + "/" + partitions + " of table " + table.path() + " (" + layout.id()
        + ", per-partition epoch) on " + store.describe();
  }

  @Override
  public String toString() {
    return "PartitionEpoch[" + describe() + "]";
  }

  /** An LRU cache of committed rows (absent rows too); size 0 caches nothing. */
  private static final class CommittedRows {
    private final int size;
    private final LinkedHashMap<TableKey, Optional<Row>> rows;

    CommittedRows(int size) {
      this.size = size;
      this.rows = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<TableKey, Optional<Row>> eldest) {
          return size() > CommittedRows.this.size;
        }
      };
    }

    Optional<Row> get(TableKey k) {
      return size == 0 ? null : rows.get(k);
    }

    void put(TableKey k, Optional<Row> row) {
      if (size > 0) {
        rows.put(k, row);
      }
    }

    void clear() {
      rows.clear();
    }
  }
}
