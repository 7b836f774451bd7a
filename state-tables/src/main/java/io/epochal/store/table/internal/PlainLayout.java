package io.epochal.store.table.internal;

import io.epochal.codec.Codec;
import io.epochal.store.table.CellLayout;
import io.epochal.store.table.Column;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.Row;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The non-transactional layout {@code (hash, key…, value)}: the cell is the value, encoded by the codec into the
 * required {@code value} bytes column. Immutable and thread-safe. Internal.
 *
 * @param <V> the value type
 */
public final class PlainLayout<V> implements CellLayout<V> {
  private static final List<Column> COLUMNS = List.of(Column.required("value", ColumnType.BYTES));

  private final Codec<V> codec;
  private final Predicate<? super V> isEmpty;

  /**
   * Makes the layout; {@link CellLayout#plain} is the public way to it.
   *
   * @param codec encodes and decodes the values to and from the {@code value} column's bytes
   * @param isEmpty which values are empty (their rows are deleted)
   * @throws NullPointerException if an argument is null
   */
  public PlainLayout(Codec<V> codec, Predicate<? super V> isEmpty) {
    this.codec = Objects.requireNonNull(codec, "codec");
    this.isEmpty = Objects.requireNonNull(isEmpty, "isEmpty");
  }

  @Override
  public String id() {
    return "plain:v1";
  }

  @Override
  public List<Column> valueColumns() {
    return COLUMNS;
  }

  @Override
  public Optional<String> txidColumn() {
    return Optional.empty();
  }

  @Override
  public void write(V cell, Row.Builder row) {
    row.set("value", codec.encode(cell));
  }

  @Override
  public V read(Row row) {
    return codec.decode(row.getBytes("value"));
  }

  @Override
  public boolean isEmpty(V cell) {
    return isEmpty.test(cell);
  }
}
