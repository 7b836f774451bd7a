package io.epochal.store.ytsaurus;

import io.epochal.api.Evolving;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.ytsaurus.internal.AbstractYtTransaction;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Reads a table of a {@link YtTableStore} for inspection tools (the {@code epochal state} commands), reporting each
 * row that does not fit the table's schema instead of failing the whole read as {@link StoreTransaction#scan} does.
 * Stateless and thread-safe (as the store is).
 *
 * @since 0.5.0
 */
@Evolving
public final class YtInspection {
  private YtInspection() {
  }

  /**
   * Reads every committed row of {@code table}: one {@code select_rows} in one read transaction, as a scan, then each
   * answered row is decoded on its own and reaches {@code sink} as a {@link YtInspectedRow}: the decoded row, or the
   * {@link io.epochal.errors.StateCorruptedException} naming its key (the readable rows first, in key order, then the
   * unreadable ones). Takes no lease and writes nothing. An answer that cannot be parsed at all (cut short, an error
   * in the body) still fails the read.
   *
   * @param store the store
   * @param table a table of {@code store}
   * @param sink gets one {@link YtInspectedRow} per row of {@code table}
   * @throws io.epochal.errors.StoreException if the table cannot be read (unreachable, refused, an answer cut short)
   * @throws IllegalArgumentException if {@code table} is not a table of {@code store}
   */
  public static void inspect(YtTableStore store, Table table, Consumer<YtInspectedRow> sink) {
    Objects.requireNonNull(sink, "sink");
    try (StoreTransaction tx = store.begin()) {
      ((AbstractYtTransaction) tx).inspect(table, sink);
      tx.abort();
    }
  }
}
