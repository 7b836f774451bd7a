package io.epochal.trident;

import io.epochal.codec.Codec;
import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.pipeline.Guarantee;
import io.epochal.state.CachedMap;
import io.epochal.state.IBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.StateKind;
import io.epochal.state.opaque.OpaqueMap;
import io.epochal.state.opaque.OpaqueTableLayout;
import io.epochal.state.opaque.OpaqueValue;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalTableLayout;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.store.table.CellLayout;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableStore;
import io.epochal.trident.EpochalTrident.SerializableSupplier;
import java.io.Serializable;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.storm.Config;
import org.apache.storm.task.IMetricsContext;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.trident.state.State;
import org.apache.storm.trident.state.StateFactory;

/**
 * A Trident {@link StateFactory} making Epochal {@code OpaqueMap}s or {@code TransactionalMap}s (over an optional
 * {@link CachedMap}, over a backing map) wrapped as Trident map states ({@link EpochalMapView}), one per state
 * partition of a Storm topology. Serializable, as Storm requires: the backing map is obtained in the worker from a
 * serializable source. Table-backed states run the per-partition epoch protocol ({@link PartitionEpoch}); states over a
 * user's backing map run Trident's per-key protocol.
 */
final class StormStateFactory implements StateFactory {
  private static final long serialVersionUID = 1L;

  enum Kind { OPAQUE, TRANSACTIONAL }

  /** Where the cells of a partition live. */
  interface Source extends Serializable {
    IBackingMap<List<Object>, OpaqueValue<Object>> opaque(Partition partition);

    IBackingMap<List<Object>, TransactionalValue<Object>> transactional(Partition partition);

    String describe();
  }

  /**
   * One state partition being made in a worker.
   *
   * @param workers the topology's worker count ({@code topology.workers}, 1 if unset)
   * @param owner who holds the partition, for leases: topology, partition, process
   */
  record Partition(int index, int count, int workers, String owner, int cacheSize) {
  }

  private final Kind kind;
  private final Source source;
  private final int cacheSize;
  private final String stateName;

  private final Guarantee guarantee;

  /** Maps of {@code kind} over the Epochal backing maps {@code backing} supplies, uncached. */
  static StormStateFactory over(Kind kind, SerializableSupplier<? extends IBackingMap<List<Object>, ?>> backing,
      String stateName) {
    return new StormStateFactory(kind, new SupplierSource(backing), 0, stateName);
  }

  StormStateFactory(Kind kind, Source source, int cacheSize, String stateName) {
    this(kind, source, cacheSize, stateName, Guarantee.EXACTLY_ONCE);
  }

  StormStateFactory(Kind kind, Source source, int cacheSize, String stateName, Guarantee guarantee) {
    this.guarantee = Objects.requireNonNull(guarantee, "guarantee");
    this.kind = Objects.requireNonNull(kind, "kind");
    this.source = Objects.requireNonNull(source, "source");
    this.cacheSize = cacheSize;
    this.stateName = Objects.requireNonNull(stateName, "stateName");
  }

  @Override
  @SuppressWarnings("rawtypes")
  public State makeState(Map conf, IMetricsContext metrics, int partitionIndex, int numPartitions) {
    Object workers = conf == null ? null : conf.get(Config.TOPOLOGY_WORKERS);
    Object topology = conf == null ? null : conf.get(Config.STORM_ID);
    Partition p = new Partition(partitionIndex, numPartitions, workers instanceof Number n ? n.intValue() : 1,
        "storm " + (topology == null ? "topology" : topology) + " partition " + partitionIndex + "/" + numPartitions
            + " in " + ManagementFactory.getRuntimeMXBean().getName(), cacheSize);
    if (metrics instanceof TopologyContext context && context.getRawTopology() != null) {
      StormPairing.check(context, conf, kind == Kind.OPAQUE ? StateKind.OPAQUE : StateKind.TRANSACTIONAL,
          source instanceof TableSource, stateName, toString(), guarantee);
    }
    IBackingMap<List<Object>, ?> backing = kind == Kind.OPAQUE ? source.opaque(p) : source.transactional(p);
    MapState<List<Object>, Object> map = kind == Kind.OPAQUE
        ? OpaqueMap.over(cached(opaqueCells(backing)), stateName)
        : TransactionalMap.over(cached(transactionalCells(backing)), stateName);
    if (backing instanceof PartitionEpoch<?> epoch) {
      return new PartitionEpochView(map, epoch);
    }
    return new EpochalMapView(map, true);
  }

  @SuppressWarnings("unchecked")
  private static IBackingMap<List<Object>, OpaqueValue<Object>> opaqueCells(IBackingMap<List<Object>, ?> backing) {
    return (IBackingMap<List<Object>, OpaqueValue<Object>>) backing;
  }

  @SuppressWarnings("unchecked")
  private static IBackingMap<List<Object>, TransactionalValue<Object>> transactionalCells(
      IBackingMap<List<Object>, ?> backing) {
    return (IBackingMap<List<Object>, TransactionalValue<Object>>) backing;
  }

  /** The Trident view of a state partition on the per-partition epoch protocol: the epoch brackets each batch. */
  static final class PartitionEpochView extends EpochalMapView {
    private final PartitionEpoch<?> epoch;

    PartitionEpochView(MapState<List<Object>, Object> map, PartitionEpoch<?> epoch) {
      super(map, true);
      this.epoch = epoch;
    }

    @Override
    public void beginCommit(Long txid) {
      if (txid != null) {
        epoch.beginBatch(txid);
      }
      super.beginCommit(txid);
    }

    @Override
    public void commit(Long txid) {
      super.commit(txid);
      if (txid != null) {
        epoch.commitBatch(txid);
      }
    }

    PartitionEpoch<?> epoch() {
      return epoch;
    }
  }

  private <C> IBackingMap<List<Object>, C> cached(IBackingMap<List<Object>, C> backing) {
    // A partition epoch caches committed rows itself; a cache above it would keep a replayed batch's cells.
    return cacheSize > 0 && !(backing instanceof PartitionEpoch<?>) ? new CachedMap<>(backing, cacheSize) : backing;
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
    private final boolean workerLocalAllowed;

    TableSource(String storeName, SerializableSupplier<? extends TableStore> store, String table,
        SerializableSupplier<? extends Codec<Object>> values, boolean workerLocalAllowed) {
      this.storeName = storeName;
      this.store = store;
      this.table = table;
      this.values = values;
      this.workerLocalAllowed = workerLocalAllowed;
    }

    private TableStore store(Partition p) {
      TableStore s = store();
      if (p.workers() > 1 && !s.capabilities().sharedAcrossHosts() && !workerLocalAllowed) {
        throw new EpochalException("state table " + table + " lives in " + s.describe() + ", which only the "
            + "process that opened it can reach, but the topology runs " + p.workers() + " workers: when Storm "
            + "moves partition " + p.index() + " to another worker, that worker would start from an empty copy "
            + "and lose the counts. Fix: use a shared store (PostgreSQL, YTsaurus), run one worker, or opt in "
            + "with StormStateBuilder.allowWorkerLocalStore() when every worker reaches the same store.", null, false,
            ErrorContext.of(table, "partition " + p.index()));
      }
      return s;
    }

    private TableStore store() {
      return shared(storeName, store);
    }

    /** The worker's one store of this name (made by {@code store} on first use). */
    static TableStore shared(String storeName, SerializableSupplier<? extends TableStore> store) {
      return STORES.computeIfAbsent(storeName, n -> Objects.requireNonNull(store.get(),
          () -> "the supplier of table store '" + n + "' returned null"));
    }

    private Codec<Object> codec() {
      return Objects.requireNonNull(values.get(), "the value codec supplier returned null");
    }

    @Override
    public IBackingMap<List<Object>, OpaqueValue<Object>> opaque(Partition p) {
      Codec<Object> codec = codec();
      return epoch(p, new OpaqueTableLayout<>(codec, v -> false), codec);
    }

    @Override
    public IBackingMap<List<Object>, TransactionalValue<Object>> transactional(Partition p) {
      Codec<Object> codec = codec();
      return epoch(p, new TransactionalTableLayout<>(codec, v -> false), codec);
    }

    private <C> PartitionEpoch<C> epoch(Partition p, CellLayout<C> layout, Codec<Object> codec) {
      TableStore s = store(p);
      Table t = s.openTable(PartitionEpoch.cellSchema(table, JsonKeyCodec.INSTANCE, layout, codec));
      return new PartitionEpoch<>(s, t, JsonKeyCodec.INSTANCE, layout, p.index(), p.count(), p.owner(),
          p.cacheSize());
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
    public IBackingMap<List<Object>, OpaqueValue<Object>> opaque(Partition p) {
      return get();
    }

    @Override
    public IBackingMap<List<Object>, TransactionalValue<Object>> transactional(Partition p) {
      return get();
    }

    @Override
    public String describe() {
      return "a supplied backing map";
    }
  }
}
