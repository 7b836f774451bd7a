package io.epochal.tools.internal;

import io.epochal.store.table.Table;
import io.epochal.store.table.TableStore;
import io.epochal.store.ytsaurus.YtInspection;
import io.epochal.store.ytsaurus.YtTableStore;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A YTsaurus store for inspection: the tool only looks rows up and scans (no lease, no write, no table created; a
 * table is found with {@link TableStore#findTable}); the tables under the store's root are listed with the Cypress
 * reads of {@link YtTableLister}. Rows are read with {@link YtInspection#inspect}: one scan whose answered rows are
 * decoded one by one, so a row that does not fit its schema is reported with its key and the others are still shown.
 * Only the pinned mode's tables are listed. Thread-safe.
 */
public final class YtAccess implements StoreAccess {
  private final YtTableStore store;
  private final YtTableLister lister;

  /**
   * Connects to the store; nothing is created or written.
   *
   * @param proxy the HTTP proxy, {@code HOST:PORT}
   * @param root the store's Cypress root, or null for the store's default
   * @param token the OAuth token, or null for {@code YT_TOKEN} or {@code ~/.yt/token}
   */
  public YtAccess(String proxy, String root, String token) {
    YtTableStore.Builder b = YtTableStore.builder(proxy);
    if (root != null) {
      b.root(root);
    }
    if (token != null) {
      b.token(token);
    }
    this.store = b.build();
    this.lister = new YtTableLister(proxy, Optional.ofNullable(token));
  }

  @Override
  public TableStore store() {
    return store;
  }

  @Override
  public List<String> tablePaths() {
    return lister.tables(store.root());
  }

  @Override
  public void inspect(Table table, Consumer<Cell> sink) {
    YtInspection.inspect(store, table, r -> sink.accept(r.row().isPresent() ? Cell.of(r.row().get())
        : Cell.failed(r.key(), Errors.oneLine(r.error().orElseThrow()))));
  }

  @Override
  public void close() {
    store.close();
  }
}
