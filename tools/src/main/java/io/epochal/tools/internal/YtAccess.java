package io.epochal.tools.internal;

import io.epochal.store.table.Table;
import io.epochal.store.table.TableStore;
import io.epochal.store.ytsaurus.YtTableStore;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A YTsaurus store for inspection: the tool only looks rows up and scans (no lease, no write, no table created; a
 * table is found with {@link TableStore#findTable}). The store cannot list its tables, so {@code --table} must name
 * one; a table whose scan meets an unreadable row is reported as one failed cell (YTsaurus cannot be read around it
 * row by row without its key list). Thread-safe.
 */
public final class YtAccess implements StoreAccess {
  private final YtTableStore store;

  public YtAccess(String proxy, String root, String token) {
    YtTableStore.Builder b = YtTableStore.builder(proxy);
    if (root != null) {
      b.root(root);
    }
    if (token != null) {
      b.token(token);
    }
    this.store = b.build();
  }

  @Override
  public TableStore store() {
    return store;
  }

  @Override
  public List<String> tablePaths() {
    throw new UnsupportedOperationException("a YTsaurus store cannot list its tables: name one with --table PATH "
        + "(state tables are <pipeline>/<state> under the root " + store.root() + ")");
  }

  @Override
  public void inspect(Table table, Consumer<Cell> sink) {
    StoreAccess.scan(store, table, sink, Optional.empty());
  }

  @Override
  public void close() {
    store.close();
  }
}
