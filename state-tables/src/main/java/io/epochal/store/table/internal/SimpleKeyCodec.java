package io.epochal.store.table.internal;

import io.epochal.store.table.Column;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.TableKey;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * A {@link KeyCodec} from two functions. Immutable and thread-safe if the functions are. Internal.
 *
 * @param <K> the key type
 */
public final class SimpleKeyCodec<K> implements KeyCodec<K> {
  private final String id;
  private final List<Column> columns;
  private final Function<? super K, ? extends List<?>> toParts;
  private final Function<? super TableKey, ? extends K> fromKey;

  /**
   * Makes the codec; {@link KeyCodec#of} and the other factories of {@link KeyCodec} are the public way to it.
   *
   * @param id a stable identifier of the mapping (recorded on the table)
   * @param columns the user key columns, in order (copied)
   * @param toParts the values of the columns for a key, in order
   * @param fromKey the key of a table key
   * @throws NullPointerException if an argument is null
   */
  public SimpleKeyCodec(String id, List<Column> columns, Function<? super K, ? extends List<?>> toParts,
      Function<? super TableKey, ? extends K> fromKey) {
    this.id = Objects.requireNonNull(id, "id");
    this.columns = List.copyOf(columns);
    this.toParts = Objects.requireNonNull(toParts, "toParts");
    this.fromKey = Objects.requireNonNull(fromKey, "fromKey");
  }

  @Override
  public List<Column> columns() {
    return columns;
  }

  @Override
  public List<?> toParts(K key) {
    return Objects.requireNonNull(toParts.apply(Objects.requireNonNull(key, "key")),
        () -> "key codec " + id + " mapped key " + key + " to null");
  }

  @Override
  public K fromKey(TableKey key) {
    return fromKey.apply(Objects.requireNonNull(key, "key"));
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public String toString() {
    return "KeyCodec[" + id + "]";
  }
}
