package io.epochal.store.ytsaurus;

import io.epochal.api.Evolving;
import java.util.Objects;

/**
 * Turns a queue row into what a queue spout emits. Called on the engine's coordinator thread, once per row per
 * emission (a replay decodes again), so it should be deterministic and cheap. If it throws, or returns {@code null},
 * the spout stops with {@link YtQueueRowDecodeException} naming queue, partition and offset (never skipping the row).
 *
 * @param <T> what the spout emits
 * @since 0.4.0
 */
@FunctionalInterface
@Evolving
public interface YtRowDecoder<T> {

  /**
   * Turns one queue row into the record the spout emits.
   *
   * @param row the row, with its partition, offset, timestamp (if the queue has a {@code $timestamp} column) and
   *     columns
   * @return the record to emit, never {@code null}
   * @throws Exception if the row cannot be decoded
   */
  T decode(YtQueueRow row) throws Exception;

  /**
   * The decoder that emits each row as it is.
   *
   * @return the decoder that emits the rows themselves
   */
  static YtRowDecoder<YtQueueRow> rows() {
    return row -> row;
  }

  /**
   * A decoder of one string column as UTF-8 text.
   *
   * @param column a string column
   * @return a decoder emitting that column's value as UTF-8 text; a null, missing or non-UTF-8 value fails the row
   */
  static YtRowDecoder<String> utf8(String column) {
    Objects.requireNonNull(column, "column");
    return row -> row.string(column).orElseThrow(() -> new IllegalArgumentException(
        "column '" + column + "' is null or missing"));
  }
}
