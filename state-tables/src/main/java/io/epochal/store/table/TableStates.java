package io.epochal.store.table;

import io.epochal.api.Evolving;
import io.epochal.codec.Codec;
import io.epochal.codec.Codecs;
import io.epochal.state.IBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.NonTransactionalMap;
import io.epochal.state.StateKind;
import io.epochal.store.table.internal.TableMapFactory;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Predicate;

/**
 * Map states stored in the tables of the pipeline's table store: the entry point of table-backed state. The factory
 * is not bound to a store: each state opens and claims its table on the store of the pipeline's
 * {@link TableCheckpointStore}, found through the staging it offers ({@link EpochBuffer}); a pipeline whose checkpoint
 * store offers none is refused when built, with {@link io.epochal.errors.StagingUnavailableException}.
 *
 * <pre>{@code
 * TableStore store = TableStores.inMemory();
 * TableCheckpointStore checkpoints = TableCheckpointStore.on(store);
 * var counts = TransactionalTableLayout.factory(
 *     TableStates.builder(KeyCodec.strings(), Codecs.longs()).emptyValue(0L));
 * Pipeline p = Pipeline.newBuilder("wc").checkpointStore(checkpoints)...
 *     .persistentAggregate("counts", counts, Aggregators.count())...
 * }</pre>
 *
 * <p>Each state gets its own table, {@code <prefix><pipeline>/<state>} unless {@link Builder#table} names one, with
 * the key columns of the {@link KeyCodec} and the value columns of the layout; the table's attributes record the
 * layout, key mapping and codec ids, so reopening it with another one fails with
 * {@link io.epochal.errors.SchemaMismatchException}. A table is written by exactly one state: a second claimant is
 * refused with {@link io.epochal.errors.TableClaimedTwiceException}. Values go through the {@link Codec} (Kryo by
 * default) at exactly this layer; undecodable bytes raise {@link io.epochal.errors.StateCorruptedException} naming
 * table, key and txid, which stops the pipeline before anything is overwritten.
 *
 * <p>Reads and writes go through the pipeline's {@link EpochBuffer}: buffered and committed with the checkpoint under
 * {@link CommitProtocol#EPOCH}, written per call under {@link CommitProtocol#PER_KEY}.
 *
 * <p><b>Empty states.</b> A cell whose value is empty ({@link Builder#emptyWhen}, {@link Builder#emptyValue}; nothing
 * is empty by default) deletes its row, so an absent row reads as "no value": the value's updater must treat
 * "no value" like the empty value (as an aggregator's {@code zero()} does). Under the per-key protocol the rows of
 * txid-carrying layouts are kept even when empty, since their txid is what makes a replay idempotent.
 *
 * <p>Stateless and thread-safe: static methods only.
 *
 * @since 0.1.0
 */
@Evolving
public final class TableStates {
  private TableStates() {
  }

  /**
   * Starts a table-backed map state with values encoded by {@code values}.
   *
   * @param <K> the key type
   * @param <V> the value type
   * @param keys maps the keys to the table's key columns
   * @param values encodes the values into the layout's value column(s)
   * @return a builder with no option set
   * @throws NullPointerException if an argument is null
   */
  public static <K, V> Builder<K, V> builder(KeyCodec<K> keys, Codec<V> values) {
    return new Builder<>(keys, values);
  }

  /**
   * Starts a table-backed map state with values encoded by Kryo ({@link Codecs#kryo(Class...)} with the common JDK
   * types pre-registered; pass a codec to register your own classes).
   *
   * @param <K> the key type
   * @param <V> the value type
   * @param keys maps the keys to the table's key columns
   * @return a builder with no option set
   * @throws NullPointerException if {@code keys} is null
   */
  public static <K, V> Builder<K, V> builder(KeyCodec<K> keys) {
    return new Builder<>(keys, Codecs.kryo());
  }

  /**
   * A non-transactional map over rows {@code (hash, key…, value)}: a replayed batch is applied again under the per-key
   * protocol. Shorthand for {@code builder(keys, values).nonTransactional()}.
   *
   * @param <K> the key type
   * @param <V> the value type
   * @param keys maps the keys to the table's key columns
   * @param values encodes the values into the {@code value} column
   * @return a factory of non-transactional map states, with no value empty
   * @throws NullPointerException if an argument is null
   */
  public static <K, V> TableBackedStateFactory<MapState<K, V>> nonTransactional(KeyCodec<K> keys, Codec<V> values) {
    return builder(keys, values).nonTransactional();
  }

  private static <K, C> IBackingMap<K, C> unlayered(IBackingMap<K, C> inner) {
    return inner;
  }

  /**
   * Options of a table-backed map state; the terminal methods are {@link #nonTransactional()} here and the
   * {@code factory(builder)} methods of {@code TransactionalTableLayout} and {@code OpaqueTableLayout}. Each option may
   * be set once ({@link IllegalStateException} otherwise). Building never changes the builder. Not thread-safe.
   *
   * @param <K> the key type
   * @param <V> the value type
   * @since 0.1.0
   */
  public static final class Builder<K, V> {
    private final KeyCodec<K> keys;
    private final Codec<V> values;
    private String table;
    private Predicate<? super V> emptiness;
    private BackingMapLayer layer;

    private Builder(KeyCodec<K> keys, Codec<V> values) {
      this.keys = Objects.requireNonNull(keys, "keys");
      this.values = Objects.requireNonNull(values, "values");
    }

    /**
     * Stores the state in table {@code path} (used as given, without prefix) instead of
     * {@code <prefix><pipeline>/<state>}.
     *
     * @param path the table's path in the pipeline's table store
     * @return this builder
     * @throws IllegalStateException if the table was already set
     * @throws IllegalArgumentException if {@code path} is blank
     */
    public Builder<K, V> table(String path) {
      requireUnset(table, "table");
      if (Objects.requireNonNull(path, "path").isBlank()) {
        throw new IllegalArgumentException("table path must not be blank");
      }
      this.table = path;
      return this;
    }

    /**
     * Values for which {@code isEmpty} holds delete their row (see {@link TableStates}).
     *
     * @param isEmpty tells the empty values; called on every write, so it must be cheap and thread-safe
     * @return this builder
     * @throws IllegalStateException if the emptiness was already set (by this method or {@link #emptyValue})
     */
    public Builder<K, V> emptyWhen(Predicate<? super V> isEmpty) {
      requireUnset(emptiness, "emptiness");
      this.emptiness = Objects.requireNonNull(isEmpty, "isEmpty");
      return this;
    }

    /**
     * Values equal to {@code empty} (typically the aggregator's {@code zero()}) delete their row.
     *
     * @param empty the empty value, compared with {@link Object#equals}
     * @return this builder
     * @throws IllegalStateException if the emptiness was already set (by this method or {@link #emptyWhen})
     */
    public Builder<K, V> emptyValue(V empty) {
      Objects.requireNonNull(empty, "empty");
      return emptyWhen(empty::equals);
    }

    /**
     * Places {@code layer} between the txid rule and the table-backed map (metering, fault injection), e.g.
     * {@code .layer(injector::wrap)}.
     *
     * @param layer wraps the table-backed map of each state the factory makes
     * @return this builder
     * @throws IllegalStateException if a layer was already set
     */
    public Builder<K, V> layer(BackingMapLayer layer) {
      requireUnset(this.layer, "layer");
      this.layer = Objects.requireNonNull(layer, "layer");
      return this;
    }

    /** @return the key mapping */
    public KeyCodec<K> keyCodec() {
      return keys;
    }

    /** @return the value codec */
    public Codec<V> valueCodec() {
      return values;
    }

    /** @return the emptiness rule (never empty by default) */
    public Predicate<? super V> emptiness() {
      return emptiness != null ? emptiness : v -> false;
    }

    /** @return a factory of non-transactional maps over rows {@code (hash, key…, value)} */
    public TableBackedStateFactory<MapState<K, V>> nonTransactional() {
      return build(StateKind.NON_TRANSACTIONAL, CellLayout.plain(values, emptiness()),
          (backing, path) -> NonTransactionalMap.over(backing), "NonTransactionalMap");
    }

    /**
     * A factory of map states with a custom cell layout and txid rule (how the state-transactional and state-opaque
     * modules plug their cells in).
     *
     * @param kind the replay behaviour of the rule
     * @param layout the cell layout (the value codec runs in it)
     * @param rule makes the map state from the table-backed map and the table path
     * @param ruleName the rule's name for descriptions, e.g. {@code "TransactionalMap"}
     * @param <C> the stored cell type
     * @return a factory of map states over tables with {@code layout}'s value columns, with the options set
     */
    public <C> TableBackedStateFactory<MapState<K, V>> build(StateKind kind, CellLayout<C> layout,
        BiFunction<? super IBackingMap<K, C>, String, ? extends MapState<K, V>> rule, String ruleName) {
      BackingMapLayer l = layer;
      BiFunction<? super IBackingMap<K, C>, String, ? extends MapState<K, V>> layered = l == null ? rule
          : (backing, path) -> rule.apply(l.wrap(backing), path);
      return new TableMapFactory<>(kind, keys, values.id(), layout, layered, ruleName, Optional.ofNullable(table),
          l == null ? TableStates::unlayered : l);
    }

    private static void requireUnset(Object current, String option) {
      if (current != null) {
        throw new IllegalStateException(option + " was already set to " + current);
      }
    }
  }
}
