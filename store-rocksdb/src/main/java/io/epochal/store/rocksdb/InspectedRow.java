package io.epochal.store.rocksdb;

import io.epochal.api.Evolving;
import io.epochal.errors.StateCorruptedException;
import io.epochal.store.table.Row;
import java.util.Objects;
import java.util.Optional;

/**
 * One stored row as {@link RocksDbTableStore#inspect} read it: the decoded row, or the error that says why it cannot
 * be read (exactly one of the two is present). Immutable and thread-safe.
 *
 * @param key the row's key as text ({@code [word]}), hex ({@code 0x...}) if the key itself does not decode, or where
 *     reading stopped ({@code (after [word])}) if RocksDB could not read on
 * @param row the row, if it was read and passed its checks
 * @param error why the row cannot be read: a {@link StateCorruptedException} naming the table, the key and, where the
 *     damaged cell still shows it, its txid
 * @since 0.2.0
 */
@Evolving
public record InspectedRow(String key, Optional<Row> row, Optional<StateCorruptedException> error) {
  /**
   * Checks that the inspected row holds exactly one outcome.
   *
   * @param key the row's key as text, hex, or where reading stopped (see the record's comment); not null
   * @param row the decoded row, empty if it could not be read
   * @param error why the row could not be read, empty if it was read
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException unless exactly one of {@code row} and {@code error} is present
   */
  public InspectedRow {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(row, "row");
    Objects.requireNonNull(error, "error");
    if (row.isPresent() == error.isPresent()) {
      throw new IllegalArgumentException("exactly one of row and error must be present");
    }
  }
}
