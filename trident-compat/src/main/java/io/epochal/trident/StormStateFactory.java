package io.epochal.trident;

import io.epochal.codec.Codec;
import io.epochal.state.CachedMap;
import io.epochal.state.IBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.opaque.OpaqueMap;
import io.epochal.state.opaque.OpaqueTableLayout;
import io.epochal.state.opaque.OpaqueValue;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.store.table.TableStore;
import io.epochal.trident.EpochalTrident.SerializableSupplier;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.storm.task.IMetricsContext;
import org.apache.storm.trident.state.State;
import org.apache.storm.trident.state.StateFactory;

/**
 * A Trident {@link StateFactory} making Epochal {@code OpaqueMap}s or {@code TransactionalMap}s (over an optional
 * {@link CachedMap}, over a backing map) wrapped as Trident map states ({@link EpochalMapView}), one per state
 * partition of a Storm topology. Serializable, as Storm requires: the backing map is obtained in the worker from a
 * serializable source.
 */
final class StormStateFactory implements StateFactory {
  private static final long serialVersionUID = 1L;

  enum Kind { OPAQUE, TRANSACTIONAL }

  /** Where the cells of a partition live. */
  interface Source extends Serializable {
    IBackingMap<List<Object>, OpaqueValue<Object>> opaque(int partition, int partitions);

    IBackingMap<List<Object>, TransactionalValue<Object>> transactional(int partition, int partitions);

    String describe();
  }

  private final Kind kind;
  private final Source source;
  private final int cacheSize;
  private final String stateName;

  StormStateFactory(Kind kind, Source source, int cacheSize, String stateName) {
    this.kind = Objects.requireNonNull(kind, "kind");
    this.source = Objects.requireNonNull(source, "source");
    this.cacheSize = cacheSize;
    this.stateName = Objects.requireNonNull(stateName, "stateName");
  }

  @Override
  @SuppressWarnings("rawtypes")
  public State makeState(Map conf, IMetricsContext metrics, int partitionIndex, int numPartitions) {
    MapState<List<Object>, Object> map;
    if (kind == Kind.OPAQUE) {
      map = OpaqueMap.over(cached(source.opaque(partitionIndex, numPartitions)), stateName);
    } else {
      map = TransactionalMap.over(cached(source.transactional(partitionIndex, numPartitions)), stateName);
    }
    return new EpochalMapView(map, true);
  }

  private <C> IBackingMap<List<Object>, C> cached(IBackingMap<List<Object>, C> backing) {
    return cacheSize > 0 ? new CachedMap<>(backing, cacheSize) : backing;
  }

  @Override
  public String toString() {
    return "Epochal " + (kind == Kind.OPAQUE ? "OpaqueMap" : "TransactionalMap") + " '" + stateName + "' over "
        + source.describe() + (cacheSize > 0 ? " (local cache of " + cacheSize + " cells)" : "");
  }

  /** A table of an Epochal table store, shared by every partition of the state in a worker. */
  static final class TableSource implements Source {
    private static final long serialVersionUID = 1L;
    /** One store instance per name and worker JVM: Storm states have no close, so stores stay open. */
    private static final ConcurrentHashMap<String, TableStore> STORES = new ConcurrentHashMap<>();

    private final String storeName;
    private final SerializableSupplier<? extends TableStore> store;
    private final String table;
    private final SerializableSupplier<? extends Codec<Object>> values;

    TableSource(String storeName, SerializableSupplier<? extends TableStore> store, String table,
        SerializableSupplier<? extends Codec<Object>> values) {
      this.storeName = storeName;
      this.store = store;
      this.table = table;
      this.values = values;
    }

    private TableStore store() {
      return STORES.computeIfAbsent(storeName, n -> Objects.requireNonNull(store.get(),
          () -> "the supplier of table store '" + n + "' returned null"));
    }

    private Codec<Object> codec() {
      return Objects.requireNonNull(values.get(), "the value codec supplier returned null");
    }

    @Override
    public IBackingMap<List<Object>, OpaqueValue<Object>> opaque(int partition, int partitions) {
      Codec<Object> codec = codec();
      return new TableCellMap<>(store(), table, JsonKeyCodec.INSTANCE, new OpaqueTableLayout<>(codec, v -> false),
          codec);
    }

    @Override
    public IBackingMap<List<Object>, TransactionalValue<Object>> transactional(int partition, int partitions) {
      Codec<Object> codec = codec();
      return new TableCellMap<>(store(), table, JsonKeyCodec.INSTANCE,
          new TransactionalTableLayout<>(codec, v -> false), codec);
    }

    @Override
    public String describe() {
      return "table " + table + " of store '" + storeName + "'";
    }
  }

  /** A backing map from a user's supplier, called once per partition. */
  static final class SupplierSource implements Source {
    private static final long serialVersionUID = 1L;
    private final SerializableSupplier<? extends IBackingMap<List<Object>, ?>> supplier;

    SupplierSource(SerializableSupplier<? extends IBackingMap<List<Object>, ?>> supplier) {
      this.supplier = Objects.requireNonNull(supplier, "supplier");
    }

    @SuppressWarnings("unchecked")
    private <C> IBackingMap<List<Object>, C> get() {
      return (IBackingMap<List<Object>, C>) Objects.requireNonNull(supplier.get(),
          "the backing map supplier returned null");
    }

    @Override
    public IBackingMap<List<Object>, OpaqueValue<Object>> opaque(int partition, int partitions) {
      return get();
    }

    @Override
    public IBackingMap<List<Object>, TransactionalValue<Object>> transactional(int partition, int partitions) {
      return get();
    }

    @Override
    public String describe() {
      return "a supplied backing map";
    }
  }
}
