package io.epochal.store.table.internal;

import io.epochal.errors.StagingUnavailableException;
import io.epochal.state.IBackingMap;
import io.epochal.state.BucketEntry;
import io.epochal.state.MapState;
import io.epochal.state.NonTransactionalMap;
import io.epochal.state.RemovableMapState;
import io.epochal.state.RemovableStateFactory;
import io.epochal.state.StateFactory;
import io.epochal.store.table.BackingMapLayer;
import io.epochal.store.table.ColumnType;
import io.epochal.store.table.KeyPartsCodec;
import io.epochal.store.table.TableKey;
import java.util.List;
import io.epochal.state.StateContext;
import io.epochal.state.StateKind;
import io.epochal.store.table.CellLayout;
import io.epochal.store.table.Column;
import io.epochal.store.table.EpochBuffer;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableBackedStateFactory;
import io.epochal.store.table.TableSchema;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * Makes one map state per partition over a table: opens (creating or validating) the table, claims it for the state,
 * and layers the txid rule over a {@link TableBackingMap}. A {@link RemovableStateFactory}: its states delete rows, and
 * its {@link #buckets()} are non-transactional maps over a second table per state, {@code <state's table>.buckets},
 * keyed {@code (partition, bucket, index)} with the key's column values as the value (written and committed like the
 * state's own rows; the builder's layer wraps them too). Immutable and thread-safe. Internal: built by
 * {@code TableStates}.
 *
 * @param <K> the key type
 * @param <V> the value type
 * @param <C> the stored cell type
 */
public final class TableMapFactory<K, V, C> implements TableBackedStateFactory<MapState<K, V>>,
    RemovableStateFactory<K, V> {
  private final StateKind kind;
  private final KeyCodec<K> keys;
  private final String codecId;
  private final CellLayout<C> layout;
  private final BiFunction<? super IBackingMap<K, C>, String, ? extends MapState<K, V>> rule;
  private final String ruleName;
  private final Optional<String> explicitPath;
  private final BackingMapLayer layer;
  private final String suffix;

  /**
   * Makes the factory; {@code TableStates.Builder} is the public way to it.
   *
   * @param kind the replay behaviour of {@code rule}
   * @param keys maps the state's keys to the table's user key columns
   * @param codecId the value codec's id, recorded as the table attribute {@code epochal.codec}
   * @param layout lays the cells out in the table's value columns
   * @param rule makes the map state from the table-backed map and the table path
   * @param ruleName the rule's name for descriptions, e.g. {@code "TransactionalMap"}
   * @param explicitPath the table path set with {@code TableStates.Builder.table}, or empty for the default
   * @param layer the builder's layer, already applied in {@code rule}; applied to the bucket tables' maps too
   * @throws NullPointerException if an argument is null
   */
  public TableMapFactory(StateKind kind, KeyCodec<K> keys, String codecId, CellLayout<C> layout,
      BiFunction<? super IBackingMap<K, C>, String, ? extends MapState<K, V>> rule, String ruleName,
      Optional<String> explicitPath, BackingMapLayer layer) {
    this(kind, keys, codecId, layout, rule, ruleName, explicitPath, layer, "");
  }

  private TableMapFactory(StateKind kind, KeyCodec<K> keys, String codecId, CellLayout<C> layout,
      BiFunction<? super IBackingMap<K, C>, String, ? extends MapState<K, V>> rule, String ruleName,
      Optional<String> explicitPath, BackingMapLayer layer, String suffix) {
    this.layer = Objects.requireNonNull(layer, "layer");
    this.suffix = suffix;
    this.kind = Objects.requireNonNull(kind, "kind");
    this.keys = Objects.requireNonNull(keys, "keys");
    this.codecId = Objects.requireNonNull(codecId, "codecId");
    this.layout = Objects.requireNonNull(layout, "layout");
    this.rule = Objects.requireNonNull(rule, "rule");
    this.ruleName = Objects.requireNonNull(ruleName, "ruleName");
    this.explicitPath = Objects.requireNonNull(explicitPath, "explicitPath");
  }

  /**
   * The table path of state {@code stateName} of {@code pipeline}, whose tables are named with {@code prefix}.
   *
   * @param prefix the checkpoint store's table prefix
   * @param pipeline the pipeline name
   * @param stateName the state's name in the pipeline
   * @return the explicit path if one was set, else {@code <prefix><pipeline>/<stateName>}
   */
  public String tablePath(String prefix, String pipeline, String stateName) {
    return explicitPath.orElseGet(() -> prefix + pipeline + "/" + stateName) + suffix;
  }

  /**
   * The schema of the state's table.
   *
   * @param path the table's path, normally from {@link #tablePath}
   * @return the key codec's columns, the layout's value columns, and the layout, key and codec ids as attributes
   */
  public TableSchema schema(String path) {
    TableSchema.Builder b = TableSchema.builder(path);
    for (Column c : keys.columns()) {
      b.key(c);
    }
    for (Column c : layout.valueColumns()) {
      b.value(c);
    }
    return b.attribute("epochal.layout", layout.id()).attribute("epochal.key", keys.id())
        .attribute("epochal.codec", codecId).build();
  }

  /**
   * @throws io.epochal.errors.SchemaMismatchException if the table exists with another schema, key mapping, layout or
   *     codec
   * @throws io.epochal.errors.TableClaimedTwiceException if another state claims the same table
   * @throws StagingUnavailableException if the pipeline's checkpoint store offers no {@link EpochBuffer} (it is not a
   *     table checkpoint store)
   */
  @Override
  public RemovableMapState<K, V> makeState(StateContext context) {
    Objects.requireNonNull(context, "context");
    EpochBuffer staging = context.staging(EpochBuffer.class).orElseThrow(() -> new StagingUnavailableException(
        context.pipeline(), explicitPath.orElse(context.stateName()), EpochBuffer.class.getSimpleName(),
        "not a table checkpoint store, or no pipeline's"));
    String path = tablePath(staging.tablePrefix(), context.pipeline(), context.stateName());
    staging.claim(path, "state '" + context.stateName() + "' of pipeline '" + context.pipeline() + "'");
    Table table = staging.store().openTable(schema(path));
    TableBackingMap<K, C> backing = new TableBackingMap<>(staging.store(), staging.protocol(), context, table, keys,
        layout);
    MapState<K, V> state = Objects.requireNonNull(rule.apply(backing, path), "the state rule returned null");
    if (state instanceof RemovableMapState<K, V> removable) {
      return removable;
    }
    // a custom rule's state without removal: forwarded as is, and it cannot remove (canRemove() is false)
    return new io.epochal.state.ForwardingMapState<>(state) {
      @Override
      public String toString() {
        return state.toString();
      }
    };
  }

  /**
   * The bucket states: non-transactional maps over table {@code <state's table>.buckets}, keys
   * {@code (partition int64, bucket int64, index int64)}, value the key's column values ({@code plain:v1} layout).
   */
  @Override
  public StateFactory<RemovableMapState<BucketEntry, K>> buckets() {
    KeyCodec<BucketEntry> entries = KeyCodec.of("bucket-entry:v1",
        List.of(Column.required("partition", ColumnType.INT64), Column.required("bucket", ColumnType.INT64),
            Column.required("entry", ColumnType.INT64)),
        e -> List.of((long) e.partition(), e.bucket(), (long) e.index()),
        (TableKey k) -> new BucketEntry(Math.toIntExact((Long) k.get(0)), (Long) k.get(1),
            Math.toIntExact((Long) k.get(2))));
    TableSchema.Builder keySchema = TableSchema.builder("keys of " + ruleName);
    keys.columns().forEach(keySchema::key);
    KeyPartsCodec<K> values = new KeyPartsCodec<>(keys, keySchema.build());
    BackingMapLayer l = layer;
    TableMapFactory<BucketEntry, K, K> tables = new TableMapFactory<>(StateKind.NON_TRANSACTIONAL, entries,
        values.id(), CellLayout.plain(values, v -> false), (backing, path) -> NonTransactionalMap.over(l.wrap(backing)),
        "NonTransactionalMap (buckets of " + ruleName + ")", explicitPath, l, suffix + ".buckets");
    return new StateFactory<>() {
      @Override
      public RemovableMapState<BucketEntry, K> makeState(StateContext context) {
        return tables.makeState(context);
      }

      @Override
      public StateKind kind() {
        return tables.kind();
      }

      @Override
      public Optional<Class<? extends io.epochal.state.Staging>> staging() {
        return tables.staging();
      }

      @Override
      public String describe() {
        return tables.describe();
      }
    };
  }

  @Override
  public StateKind kind() {
    return kind;
  }

  @Override
  public String describe() {
 return ruleName + " over table " + explicitPath.orElse("<prefix><pipeline>/<state>") + suffix + " (" + layout.id()
        + ", key " + keys.id() + ", codec " + codecId + ") of the pipeline's table store";
  }

  @Override
  public String toString() {
    return describe();
  }
}
