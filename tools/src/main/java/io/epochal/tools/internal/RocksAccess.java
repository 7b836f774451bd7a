package io.epochal.tools.internal;

import io.epochal.store.rocksdb.RocksDbTableStore;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableStore;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * A RocksDB state directory opened with {@link RocksDbTableStore.Builder#readOnly}: nothing is written (no lock file,
 * no upgrade), so it works on a copy without write permission and beside the pipeline that writes the directory; rows
 * are read with {@link RocksDbTableStore#inspect}, which reports each unreadable row and goes on. Thread-safe.
 */
public final class RocksAccess implements StoreAccess {
  private final RocksDbTableStore store;

  /**
   * Opens the state directory read-only.
   *
   * @param dir the RocksDB state directory
   */
  public RocksAccess(Path dir) {
    this.store = RocksDbTableStore.builder(dir).readOnly(true).build();
  }

  @Override
  public TableStore store() {
    return store;
  }

  @Override
  public List<String> tablePaths() {
    return store.tablePaths().stream().sorted().toList();
  }

  @Override
  public void inspect(Table table, Consumer<Cell> sink) {
    store.inspect(table, r -> sink.accept(r.row().isPresent() ? Cell.of(r.row().get())
        : Cell.failed(r.key(), Errors.oneLine(r.error().orElseThrow()))));
  }

  @Override
  public void close() {
    store.close();
  }
}
