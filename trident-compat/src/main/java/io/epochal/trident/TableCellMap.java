package io.epochal.trident;

import io.epochal.codec.Codec;
import io.epochal.errors.StateCorruptedException;
import io.epochal.state.IBackingMap;
import io.epochal.store.table.CellLayout;
import io.epochal.store.table.Column;
import io.epochal.store.table.KeyCodec;
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
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * An Epochal {@link IBackingMap} over one table of any Epochal {@link TableStore} (in-memory, RocksDB, YTsaurus), for
 * Epochal map states inside a Storm topology: each {@code multiGet} is one lookup, each {@code multiPut} one store
 * transaction (atomic per call: Trident's per-key protocol, the txids in the cells make replays harmless). The table
 * has the key columns of a {@link KeyCodec} and the value columns of a {@link CellLayout}, and records the layout, key
 * mapping and value codec ids in its attributes exactly as Epochal's own table-backed states do, so an Epochal
 * pipeline can later open the same table ({@code TableStates.builder(..).table(path)}). Rows are never deleted (the
 * txid of an empty value still matters). Transactions are not fenced by a lease: Storm guarantees one task per state
 * partition. Thread-safe.
 */
final class TableCellMap<C> implements IBackingMap<List<Object>, C> {
  private final TableStore store;
  private final Table table;
  private final KeyCodec<List<Object>> keys;
  private final CellLayout<C> layout;

  TableCellMap(TableStore store, String path, KeyCodec<List<Object>> keys, CellLayout<C> layout, Codec<?> values) {
    this.store = Objects.requireNonNull(store, "store");
    this.keys = keys;
    this.layout = layout;
    this.table = store.openTable(schema(path, keys, layout, values));
  }

  /** The schema Epochal's table-backed map states give a table with this key mapping, layout and codec. */
  static TableSchema schema(String path, KeyCodec<?> keys, CellLayout<?> layout, Codec<?> values) {
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

  @Override
  public Map<List<Object>, C> multiGet(Collection<? extends List<Object>> wanted) {
    List<List<Object>> list = new ArrayList<>(wanted.size());
    List<TableKey> tableKeys = new ArrayList<>(wanted.size());
    for (List<Object> k : wanted) {
      list.add(Objects.requireNonNull(k, "key"));
      tableKeys.add(keys.toKey(table.schema(), k));
    }
    if (list.isEmpty()) {
      return Map.of();
    }
    List<Optional<Row>> rows;
    try (StoreTransaction tx = store.begin()) {
      rows = tx.lookup(table, tableKeys);
    }
    Map<List<Object>, C> out = new HashMap<>(Math.max(16, list.size() * 2));
    for (int i = 0; i < list.size(); i++) {
      if (rows.get(i).isPresent()) {
        out.put(list.get(i), decode(list.get(i), rows.get(i).get()));
      }
    }
    return Collections.unmodifiableMap(out);
  }

  @Override
  public void multiPut(Map<List<Object>, C> cells) {
    if (cells.isEmpty()) {
      return;
    }
    try (StoreTransaction tx = store.begin()) {
      for (Map.Entry<List<Object>, C> e : cells.entrySet()) {
        Row.Builder row = Row.builder(keys.toKey(table.schema(), Objects.requireNonNull(e.getKey(), "key")));
        layout.write(Objects.requireNonNull(e.getValue(), "cell"), row);
        tx.upsert(table, row.build());
      }
      tx.commit();
    }
  }

  private C decode(List<Object> key, Row row) {
    try {
      return layout.read(row);
    } catch (RuntimeException e) {
      String txid = layout.txidColumn().map(c -> {
        try {
          return String.valueOf(row.get(c));
        } catch (RuntimeException unreadable) {
          return "unreadable";
        }
      }).orElse("none");
      throw new StateCorruptedException(table.path(), key, txid, e);
    }
  }

  @Override
  public String describe() {
    return "table " + table.path() + " (" + layout.id() + ") on " + store.describe();
  }

  @Override
  public String toString() {
    return "TableCellMap[" + describe() + "]";
  }
}
