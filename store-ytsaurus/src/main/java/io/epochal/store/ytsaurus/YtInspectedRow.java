package io.epochal.store.ytsaurus;

import io.epochal.api.Evolving;
import io.epochal.errors.StateCorruptedException;
import io.epochal.store.table.Row;
import java.util.Objects;
import java.util.Optional;

/**
 * One answered row as {@link YtInspection#inspect} read it: the decoded row, or the error that says why it cannot be
 * read (exactly one of the two is present). Immutable and thread-safe.
 *
 * @param key the row's key as text ({@code [word]}), or {@code (undecodable, answered as ...)} if the key columns
 *     themselves do not decode
 * @param row the row, if it was decoded and fits the table's schema
 * @param error why the row cannot be read: a {@link StateCorruptedException} naming the table and the key
 * @since 0.5.0
 */
@Evolving
public record YtInspectedRow(String key, Optional<Row> row, Optional<StateCorruptedException> error) {

  /**
   * Validates the fields.
   *
   * @param key the row's key as text
   * @param row the row, if it was decoded
   * @param error why the row cannot be read, otherwise
   * @throws IllegalArgumentException unless exactly one of {@code row} and {@code error} is present
   */
  public YtInspectedRow {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(row, "row");
    Objects.requireNonNull(error, "error");
    if (row.isPresent() == error.isPresent()) {
      throw new IllegalArgumentException("exactly one of row and error must be present");
    }
  }
}
