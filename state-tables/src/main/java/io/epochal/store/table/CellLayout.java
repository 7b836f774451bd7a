package io.epochal.store.table;

import io.epochal.api.Evolving;
import io.epochal.codec.Codec;
import io.epochal.store.table.internal.PlainLayout;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * How a map state's stored cell {@code C} is laid out in the value columns of a table row, and decoded back. The
 * layouts: non-transactional {@code (hash, key…, value)} ({@link TableStates#nonTransactional}); transactional
 * {@code (hash, key…, value, txid)} ({@code TransactionalTableLayout} in state-transactional); opaque
 * {@code (hash, key…, value, prev_value, txid)} ({@code OpaqueTableLayout} in state-opaque). The value codec runs in
 * the layout and nowhere else.
 *
 * <p>Implementations are immutable and thread-safe.
 *
 * @param <C> the stored cell type
 * @since 0.1.0
 */
@Evolving
public interface CellLayout<C> {

  /** @return a stable identifier of the layout, e.g. {@code "transactional:v1"} (table attribute {@code epochal.layout}) */
  String id();

  /** @return the value columns, in order */
  List<Column> valueColumns();

  /**
   * @return the name of the {@code int64} column holding the txid that wrote the cell, if the layout has one. It is
   *     read even when the value cannot be decoded, to name the txid in
   *     {@link io.epochal.errors.StateCorruptedException}; and a layout with a txid keeps rows of empty cells under
   *     the per-key protocol (the txid is what makes a replay idempotent)
   */
  Optional<String> txidColumn();

  /**
   * Sets the value columns of {@code row} from {@code cell}.
   *
   * @param cell the cell to store; never an empty one ({@link #isEmpty} cells are deleted instead of written)
   * @param row the builder of the row, its key already set; this method sets every column of {@link #valueColumns()}
   * @throws io.epochal.codec.CodecException if the value cannot be encoded
   */
  void write(C cell, Row.Builder row);

  /**
   * Decodes the cell of a stored row.
   *
   * @param row a row of a table whose value columns are this layout's {@link #valueColumns()}
   * @return the cell the row holds
   * @throws RuntimeException (typically {@link io.epochal.codec.CodecException}) if the row cannot be decoded; the
   *     table-backed map reports it as {@link io.epochal.errors.StateCorruptedException} with table, key and txid
   */
  C read(Row row);

  /**
   * Tells whether a cell is empty, so that its row is deleted rather than written.
   *
   * @param cell the cell about to be stored
   * @return whether {@code cell} is empty, so that its row is deleted rather than written
   */
  boolean isEmpty(C cell);

  /**
   * The non-transactional layout {@code (hash, key…, value)}: the cell is the value, encoded by {@code codec} into a
   * required {@code value} bytes column (id {@code plain:v1}).
   *
   * @param <V> the value type
   * @param codec encodes and decodes the values to and from the {@code value} column's bytes
   * @param isEmpty which values are empty (their rows are deleted)
   * @return the layout, immutable and thread-safe if {@code codec} and {@code isEmpty} are
   * @throws NullPointerException if an argument is null
   */
  static <V> CellLayout<V> plain(Codec<V> codec, Predicate<? super V> isEmpty) {
    return new PlainLayout<>(codec, isEmpty);
  }
}
