package io.epochal.state.transactional;

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
 * The table layout of {@link TransactionalValue} cells: rows {@code (hash, key…, value, txid)}, where {@code value}
 * (bytes, required) is the value encoded by the state's codec and {@code txid} (int64, required) the batch that wrote
 * it; and the factory of {@link TransactionalMap}s over such a table.
 *
 * <pre>{@code
 * StateFactory<MapState<String, Long>> counts = TransactionalTableLayout.factory(
 *     TableStates.builder(KeyCodec.strings(), Codecs.longs()).emptyValue(0L));
 * }</pre>
 *
 * <p>Under the epoch protocol ({@link io.epochal.store.table.CommitProtocol#EPOCH}) the rows of a batch are committed
 * with the checkpoint in one store transaction, so a failed attempt leaves nothing and such a map is exactly-once even
 * with an opaque spout; under the per-key protocol it is Trident's {@code TransactionalMap} (exactly-once with a
 * transactional spout only). A row that cannot be decoded raises {@link io.epochal.errors.StateCorruptedException}
 * naming table, key and txid.
 *
 * <p>Immutable and thread-safe.
 *
 * @param <V> the value type
 * @since 0.1.0
 */
@Stable
public final class TransactionalTableLayout<V> implements CellLayout<TransactionalValue<V>> {
  /** The value column. */
  public static final String VALUE = "value";
  /** The txid column. */
  public static final String TXID = "txid";
  private static final List<Column> COLUMNS =
      List.of(Column.required(VALUE, ColumnType.BYTES), Column.required(TXID, ColumnType.INT64));

  private final Codec<V> codec;
  private final Predicate<? super V> isEmpty;

  /**
   * Makes the layout.
   *
   * @param codec the value codec
   * @param isEmpty which values are empty (their rows are deleted, see {@link TableStates})
   */
  public TransactionalTableLayout(Codec<V> codec, Predicate<? super V> isEmpty) {
    this.codec = Objects.requireNonNull(codec, "codec");
    this.isEmpty = Objects.requireNonNull(isEmpty, "isEmpty");
  }

  /**
   * A factory of {@link TransactionalMap}s over the tables the builder describes.
   *
   * @param <K> the key type
   * @param <V> the value type
   * @param builder the key and value codecs, emptiness, commit protocol and table options of the state; its value
   *     codec and emptiness make the layout
   * @return a factory of {@link StateKind#TRANSACTIONAL} map states stored in this layout
   * @throws NullPointerException if {@code builder} is null
   */
  public static <K, V> TableBackedStateFactory<MapState<K, V>> factory(TableStates.Builder<K, V> builder) {
    Objects.requireNonNull(builder, "builder");
    return builder.build(StateKind.TRANSACTIONAL,
        new TransactionalTableLayout<>(builder.valueCodec(), builder.emptiness()),
        (backing, table) -> TransactionalMap.over(backing, table), "TransactionalMap");
  }

  /**
   * Shorthand for {@code factory(TableStates.builder(keys, values))}.
   *
   * @param <K> the key type
   * @param <V> the value type
   * @param keys encodes the keys into the table's key columns
   * @param values encodes the values into the {@code value} column
   * @return a factory of {@link StateKind#TRANSACTIONAL} map states with the builder's defaults
   * @throws NullPointerException if an argument is null
   */
  public static <K, V> TableBackedStateFactory<MapState<K, V>> factory(KeyCodec<K> keys,
      Codec<V> values) {
    return factory(TableStates.builder(keys, values));
  }

  @Override
  public String id() {
    return "transactional:v1";
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
  public void write(TransactionalValue<V> cell, Row.Builder row) {
    row.set(VALUE, codec.encode(cell.value())).set(TXID, cell.txid());
  }

  @Override
  public TransactionalValue<V> read(Row row) {
    return new TransactionalValue<>(codec.decode(row.getBytes(VALUE)), row.getLong(TXID));
  }

  @Override
  public boolean isEmpty(TransactionalValue<V> cell) {
    return isEmpty.test(cell.value());
  }

  @Override
  public String toString() {
    return "TransactionalTableLayout[" + codec.id() + "]";
  }
}
