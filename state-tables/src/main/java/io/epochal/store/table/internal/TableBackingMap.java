package io.epochal.store.table.internal;

import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.InvalidRecordException;
import io.epochal.errors.StateCorruptedException;
import io.epochal.state.Epoch;
import io.epochal.state.IBackingMap;
import io.epochal.state.RemovableBackingMap;
import io.epochal.state.StateContext;
import io.epochal.store.table.CellLayout;
import io.epochal.store.table.CommitProtocol;
import io.epochal.store.table.EpochBuffer;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.Row;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * An {@link IBackingMap} over one table: keys through a {@link KeyCodec}, cells through a {@link CellLayout} (where
 * the value codec runs), reads and writes through the pipeline's {@link PipelineEpoch} (buffered under the epoch
 * protocol, write-through under the per-key protocol).
 *
 * <p>An empty cell ({@link CellLayout#isEmpty}) deletes its row, except under the per-key protocol for layouts with a
 * txid column (the txid is what makes a replay of the batch idempotent, so the row is kept). {@link #multiRemove}
 * deletes rows on both protocols: staged with the epoch (epoch protocol), at once (per-key protocol, no tombstone). A
 * row that cannot be decoded raises {@link StateCorruptedException} naming the table, the key and the txid column's
 * value, before anything is written. The epoch is the one the state over it was begun with ({@link #begin}, forwarded
 * by the map state); outside an epoch, or in a read-only one, reads see the committed rows and writes are refused.
 * Thread-safe (stateless besides the epoch and the last lookup's table keys, an immutable value reused only for keys
 * identical to its own). Internal.
 *
 * @param <K> the key type
 * @param <C> the cell type
 */
public final class TableBackingMap<K, C> implements RemovableBackingMap<K, C> {
  private final TableStore store;
  private final StateContext context;
  private final String pipeline;
  private final Table table;
  private final KeyCodec<K> keys;
  private final CellLayout<C> layout;
  private final boolean deleteEmpty;
  /** The epoch of the batch being applied, null outside one. */
  private volatile Epoch epoch;
  /**
   * The keys of the last positional lookup with their table keys, for the write that usually follows it with the
   * same key objects in the same order (a map state's read-modify-write): their table keys are reused, not rebuilt
   * (a farm_hash and a key object per key). Immutable; dropped when an epoch begins or ends.
   */
  private volatile LookedUp lastLookup;

  /** Keys (by identity) and their table keys, index-aligned. */
  private record LookedUp(Object[] keys, TableKey[] tableKeys) {
  }

  /**
   * @param store the table store holding {@code table}
   * @param protocol the protocol of the checkpoint store the state was made with
   * @param context the state's context, bound to the pipeline's epochs by the engine
   * @param table the state's table, opened and claimed by the caller
   * @param keys maps the state's keys to the table's user key columns
   * @param layout lays the cells out in the table's value columns
   */
  public TableBackingMap(TableStore store, CommitProtocol protocol, StateContext context, Table table, KeyCodec<K> keys,
      CellLayout<C> layout) {
    this.store = Objects.requireNonNull(store, "store");
    this.context = Objects.requireNonNull(context, "context");
    this.pipeline = context.pipeline();
    this.table = Objects.requireNonNull(table, "table");
    this.keys = Objects.requireNonNull(keys, "keys");
    this.layout = Objects.requireNonNull(layout, "layout");
    this.deleteEmpty = Objects.requireNonNull(protocol, "protocol") == CommitProtocol.EPOCH
        || layout.txidColumn().isEmpty();
  }

  @Override
  public void begin(Epoch epoch) {
    this.epoch = Objects.requireNonNull(epoch, "epoch");
    lastLookup = null;
  }

  @Override
  public void end() {
    epoch = null;
    lastLookup = null;
  }

  @Override
  public void abort() {
    epoch = null;
    lastLookup = null;
  }

  /**
   * The staging of the open epoch, or empty outside an epoch or in a read-only one (then reads see the committed
   * rows).
   *
   * @throws EpochalException (not retryable) if the epoch stages no rows of this table's store: the pipeline's
   *     checkpoint store is not the table checkpoint store the state was made with
   */
  private Optional<EpochBuffer> staging() {
    Epoch epoch = this.epoch;
    if (epoch == null || epoch.readOnly()) {
      return Optional.empty();
    }
    Optional<EpochBuffer> buffer = epoch.staging(EpochBuffer.class);
    if (buffer.isEmpty() || buffer.get().store() != store) {
      throw new EpochalException("state '" + context.stateName() + "' of pipeline '" + pipeline + "' writes table "
          + table.path() + " on " + store.describe() + ", but the pipeline's " + epoch + " stages "
          + (buffer.isEmpty() ? "no table rows" : "rows of " + buffer.get().store().describe()) + ". Build the "
          + "pipeline with .checkpointStore(...) set to the table checkpoint store the state was made with (a "
          + "CheckpointStore wrapper must return CheckpointEpoch.through(this, wrapped.openEpoch(..)))", null, false,
          ErrorContext.of(table.path(), null).withPipeline(pipeline).withTxid(epoch.txid()));
    }
    return buffer;
  }

  @Override
  public Map<K, C> multiGet(Collection<? extends K> wanted) {
    Objects.requireNonNull(wanted, "keys");
    if (wanted.isEmpty()) {
      return Map.of();
    }
    // The keys in order with their table keys, side by side (a key given twice is looked up twice, same result).
    List<K> typed = new ArrayList<>(wanted);
    List<Optional<Row>> rows = lookup(typed);
    Map<K, C> out = new HashMap<>(Math.max(16, rows.size() * 2));
    for (int i = 0; i < typed.size(); i++) {
      Optional<Row> row = rows.get(i);
      if (row.isPresent()) {
        K key = typed.get(i);
        out.put(key, decode(key, row.get()));
      }
    }
    return Collections.unmodifiableMap(out);
  }

  /** The same lookup as {@link #multiGet}, by position: no map of the results. */
  @Override
  @SuppressWarnings("unchecked")
  public List<C> multiGetOrdered(List<? extends K> wanted) {
    Objects.requireNonNull(wanted, "keys");
    if (wanted.isEmpty()) {
      return List.of();
    }
    Object[] keyObjects = wanted.toArray();
    TableKey[] tableKeys = new TableKey[keyObjects.length];
    for (int i = 0; i < keyObjects.length; i++) {
      tableKeys[i] = tableKey((K) keyObjects[i]);
    }
    List<Optional<Row>> rows = lookupKeys(Arrays.asList(tableKeys));
    lastLookup = new LookedUp(keyObjects, tableKeys);
    Object[] cells = new Object[rows.size()];
    int i = 0;
    for (K key : wanted) {
      Optional<Row> row = rows.get(i);
      cells[i++] = row.isPresent() ? decode(key, row.get()) : null;
    }
    return (List<C>) Collections.unmodifiableList(Arrays.asList(cells));
  }

  /** The rows of the keys, in order: from the open epoch's buffer when it stages, else from the store. */
  private List<Optional<Row>> lookup(List<? extends K> keys) {
    List<TableKey> tableKeys = new ArrayList<>(keys.size());
    for (K k : keys) {
      tableKeys.add(tableKey(k));
    }
    return lookupKeys(tableKeys);
  }

  private List<Optional<Row>> lookupKeys(List<TableKey> tableKeys) {
    Optional<EpochBuffer> buffer = staging();
    return buffer.isPresent() ? buffer.get().lookup(table, tableKeys) : store.lookup(table, tableKeys);
  }

  @Override
  public void multiPut(Map<K, C> cells) {
    Objects.requireNonNull(cells, "cells");
    List<Row> upserts = new ArrayList<>(cells.size());
    List<TableKey> deletes = new ArrayList<>();
    // The written keys are usually the last lookup's, in its order, some skipped: matched by identity with a cursor
    // that only moves forward (at most one pass over the looked-up keys, whatever the order here).
    LookedUp looked = lastLookup;
    int next = 0;
    for (Map.Entry<K, C> e : cells.entrySet()) {
      K k = e.getKey();
      TableKey key = null;
      if (looked != null) {
        Object[] seen = looked.keys();
        int at = next;
        while (at < seen.length && seen[at] != k) {
          at++;
        }
        if (at < seen.length) {
          key = looked.tableKeys()[at];
          next = at + 1;
        } else {
          looked = null; // not in order: the rest is mapped key by key
        }
      }
      if (key == null) {
        key = tableKey(k);
      }
      C cell = Objects.requireNonNull(e.getValue(), "cell");
      if (deleteEmpty && layout.isEmpty(cell)) {
        deletes.add(key);
      } else {
        Row.Builder row = Row.builder(key);
        layout.write(cell, row);
        upserts.add(row.build());
      }
    }
    staging().orElseThrow(() -> new IllegalStateException("state '" + context.stateName() + "' of pipeline '"
        + pipeline + "' writes table " + table.path() + " outside an epoch (or in a read-only one): states are "
        + "written only in a batch's commit phase")).write(table, upserts, deletes);
  }

  /**
   * Deletes the rows of {@code keys}: staged in the epoch and committed with it on the epoch protocol (the row is
   * gone from the store, its space reclaimed), at once on the per-key protocol.
   *
   * @throws IllegalStateException outside an epoch or in a read-only one
   */
  @Override
  public void multiRemove(Collection<? extends K> removed) {
    Objects.requireNonNull(removed, "keys");
    List<TableKey> deletes = new ArrayList<>(removed.size());
    for (K k : removed) {
      deletes.add(tableKey(k));
    }
    staging().orElseThrow(() -> new IllegalStateException("state '" + context.stateName() + "' of pipeline '"
        + pipeline + "' deletes from table " + table.path() + " outside an epoch (or in a read-only one): states are "
        + "written only in a batch's commit phase")).write(table, List.of(), deletes);
  }

  /**
   * The table key of {@code key}: a key the codec cannot map (a null or mistyped part, a string with no UTF-8 form)
   * is an {@link InvalidRecordException} naming the table and the key (no retry maps it either).
   */
  private TableKey tableKey(K key) {
    if (key == null) {
      throw new InvalidRecordException("null key for table " + table.path(), null,
          ErrorContext.of(table.path(), null).withPipeline(pipeline));
    }
    try {
      return keys.toKey(table.schema(), key);
    } catch (IllegalArgumentException | NullPointerException | ClassCastException e) {
      throw new InvalidRecordException("key '" + key + "' cannot be stored in table " + table.path() + " with key codec "
          + keys.id() + ": " + e.getMessage(), e, ErrorContext.of(table.path(), key).withPipeline(pipeline));
    }
  }

  private C decode(K key, Row row) {
    try {
      return layout.read(row);
    } catch (RuntimeException e) {
      Optional<String> txidColumn = layout.txidColumn();
      if (txidColumn.isEmpty()) {
        throw new StateCorruptedException(table.path(), key, "txid none: layout " + layout.id() + " has no txid column",
            OptionalLong.empty(), e);
      }
      OptionalLong txid;
      try {
        Object stored = row.get(txidColumn.get());
        txid = stored instanceof Long l ? OptionalLong.of(l) : OptionalLong.empty();
      } catch (RuntimeException unreadable) {
        txid = OptionalLong.empty();
      }
      throw new StateCorruptedException(table.path(), key, txid, e);
    }
  }

  /** @return the table */
  public Table table() {
    return table;
  }

  @Override
  public String describe() {
    return "table " + table.path() + " (" + layout.id() + ") on " + store.describe();
  }

  @Override
  public String toString() {
    return "TableBackingMap[" + describe() + "]";
  }
}
