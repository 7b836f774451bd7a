package io.epochal.tools.internal;

import io.epochal.errors.StateCorruptedException;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableStore;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A table store opened read-only for inspection, with what the {@link TableStore} SPI lacks for a tool: the list of
 * its tables and a row-by-row read that reports an unreadable row and goes on. Implementations:
 * {@link RocksAccess}, {@link PostgresAccess}, {@link YtAccess}. Thread-safe as the store is.
 */
public interface StoreAccess extends AutoCloseable {

  /**
   * One row as read: the row, or the error that made it unreadable.
   *
   * @param key the row's key as text (for messages)
   * @param row the row, when it could be read
   * @param error why it could not, otherwise
   */
  record Cell(String key, Optional<Row> row, Optional<String> error) {
    static Cell of(Row row) {
      return new Cell(row.key().toString(), Optional.of(row), Optional.empty());
    }

    static Cell failed(String key, String error) {
      return new Cell(key, Optional.empty(), Optional.of(error));
    }
  }

  /** @return the store, opened read-only */
  TableStore store();

  /**
   * @return the paths of every table of the store, sorted
   * @throws UnsupportedOperationException if the store cannot list its tables (the message says what to pass)
   */
  List<String> tablePaths();

  /**
   * Reads every row of {@code table} in key order; an unreadable row reaches {@code sink} as a failed cell.
   *
   * @param table a table of {@link #store()}
   * @param sink gets each row, or each unreadable one as a failed cell
   */
  void inspect(Table table, Consumer<Cell> sink);

  /**
   * @param table a table of {@link #store()}
   * @param key a key of {@code table}
   * @return the row of {@code key}, or empty
   * @throws StateCorruptedException if it cannot be decoded
   */
  default Optional<Row> get(Table table, TableKey key) {
    return store().lookup(table, List.of(key)).get(0);
  }

  @Override
  void close();

  /**
   * The generic read: one scan in one read transaction; if the scan meets an unreadable row, {@code fallback} reads
   * the table key by key, else the table's failure is reported as one failed cell.
   *
   * @param store the store, opened read-only
   * @param table a table of {@code store}
   * @param sink gets each row, or each unreadable one as a failed cell
   * @param fallback the key-by-key read, where the store can list a table's keys
   */
  static void scan(TableStore store, Table table, Consumer<Cell> sink, Optional<Runnable> fallback) {
    List<Row> rows;
    try (StoreTransaction tx = store.begin()) {
      rows = tx.scan(table);
      tx.abort();
    } catch (StateCorruptedException e) {
      if (fallback.isPresent()) {
        fallback.get().run();
      } else {
        sink.accept(Cell.failed("(scan of the whole table)", Errors.oneLine(e)
            + "; the store cannot read the table row by row, so its other rows are not shown either"));
      }
      return;
    }
    rows.forEach(r -> sink.accept(Cell.of(r)));
  }
}
