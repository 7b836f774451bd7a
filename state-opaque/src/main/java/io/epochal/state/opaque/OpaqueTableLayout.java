package io.epochal.state.opaque;

import io.epochal.api.Stable;
import io.epochal.codec.Codec;
import io.epochal.state.MapState;
import io.epochal.state.StateKind;
import io.epochal.store.table.CellLayout;
import io.epochal.store.table.Column;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.Row;
import io.epochal.store.table.TableBackedStateFactory;
import io.epochal.store.table.TableStates;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The table layout of {@link OpaqueValue} cells: rows {@code (hash, key…, value, prev_value, txid)}, where
 * {@code value} (bytes, required) is {@code curr} encoded by the state's codec, {@code prev_value} (bytes, null when
 * the key had no value before batch {@code txid}) is {@code prev}, and {@code txid} (int64, required) the batch that
 * wrote {@code curr}; and the factory of {@link OpaqueMap}s over such a table.
 *
 * <pre>{@code
 * StateFactory<MapState<String, Long>> counts = OpaqueTableLayout.factory(
 *     TableStates.builder(KeyCodec.strings(), Codecs.longs()).emptyValue(0L));
 * }</pre>
 *
 * <p>A row that cannot be decoded raises {@link io.epochal.errors.StateCorruptedException} naming table, key and
 * txid. Immutable and thread-safe.
 *
 * @param <V> the value type
 * @since 0.1.0
 */
@Stable
public final class OpaqueTableLayout<V> implements CellLayout<OpaqueValue<V>> {
  /** The column of {@code curr}. */
  public static final String VALUE = "value";
  /** The column of {@code prev}. */
  public static final String PREV_VALUE = "prev_value";
  /** The txid column. */
  public static final String TXID = "txid";
  private static final List<Column> COLUMNS = List.of(Column.required(VALUE, ColumnType.BYTES),
      Column.of(PREV_VALUE, ColumnType.BYTES), Column.required(TXID, ColumnType.INT64));

  private final Codec<V> codec;
  private final Predicate<? super V> isEmpty;

  /**
   * Makes the layout.
   *
   * @param codec the value codec
   * @param isEmpty which values are empty (a cell whose {@code curr} is empty deletes its row, see
   *     {@link TableStates})
   */
  public OpaqueTableLayout(Codec<V> codec, Predicate<? super V> isEmpty) {
    this.codec = Objects.requireNonNull(codec, "codec");
    this.isEmpty = Objects.requireNonNull(isEmpty, "isEmpty");
  }

  /**
   * A factory of {@link OpaqueMap}s over the tables the builder describes.
   *
   * @param <K> the key type
   * @param <V> the value type
   * @param builder the key and value codecs, emptiness and table options of the state; its value codec and
   *     emptiness make the layout
   * @return a factory of {@link StateKind#OPAQUE} map states stored in this layout
   * @throws NullPointerException if {@code builder} is null
   */
  public static <K, V> TableBackedStateFactory<MapState<K, V>> factory(TableStates.Builder<K, V> builder) {
    Objects.requireNonNull(builder, "builder");
    return builder.build(StateKind.OPAQUE, new OpaqueTableLayout<>(builder.valueCodec(), builder.emptiness()),
        (backing, table) -> OpaqueMap.over(backing, table), "OpaqueMap");
  }

  /**
   * Shorthand for {@code factory(TableStates.builder(keys, values))}.
   *
   * @param <K> the key type
   * @param <V> the value type
   * @param keys encodes the keys into the table's key columns
   * @param values encodes {@code curr} and {@code prev} into the {@code value} and {@code prev_value} columns
   * @return a factory of {@link StateKind#OPAQUE} map states with the builder's defaults
   * @throws NullPointerException if an argument is null
   */
  public static <K, V> TableBackedStateFactory<MapState<K, V>> factory(KeyCodec<K> keys,
      Codec<V> values) {
    return factory(TableStates.builder(keys, values));
  }

  @Override
  public String id() {
    return "opaque:v1";
  }

  @Override
  public List<Column> valueColumns() {
    return COLUMNS;
  }

  @Override
  public Optional<String> txidColumn() {
    return Optional.of(TXID);
  }

  @Override
  public void write(OpaqueValue<V> cell, Row.Builder row) {
    row.set(VALUE, codec.encode(cell.curr()))
        .set(PREV_VALUE, cell.prev().map(codec::encode).orElse(null))
        .set(TXID, cell.txid());
  }

  @Override
  public OpaqueValue<V> read(Row row) {
    byte[] prev = row.getBytes(PREV_VALUE);
    return new OpaqueValue<>(codec.decode(row.getBytes(VALUE)),
        prev == null ? Optional.empty() : Optional.of(codec.decode(prev)), row.getLong(TXID));
  }

  @Override
  public boolean isEmpty(OpaqueValue<V> cell) {
    return isEmpty.test(cell.curr());
  }

  @Override
  public String toString() {
    return "OpaqueTableLayout[" + codec.id() + "]";
  }
}
