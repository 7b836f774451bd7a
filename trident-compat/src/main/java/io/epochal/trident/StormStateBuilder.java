package io.epochal.trident;

import io.epochal.api.Evolving;
import io.epochal.codec.Codec;
import io.epochal.pipeline.Guarantee;
import io.epochal.store.table.TableStore;
import io.epochal.trident.EpochalTrident.SerializableSupplier;
import io.epochal.trident.internal.GuardedOpaqueSpout;
import java.util.Objects;
import org.apache.storm.trident.spout.IOpaquePartitionedTridentSpout;
import org.apache.storm.trident.spout.ISpoutPartition;
import org.apache.storm.trident.state.StateSpec;

/**
 * Options of a table-backed Epochal state on Storm; the terminal methods build serializable Trident state
 * factories. Each option may be set once ({@link IllegalStateException} otherwise); building never changes the
 * builder. Not thread-safe.
 *
 * <p>The states run the per-partition epoch protocol: each state partition commits its rows of a batch, a marker
 * row (the txid) and an undo record (the rows its keys held before the batch) in one store transaction fenced by a
 * lease per partition, and a replay of a committed batch first undoes it. So an opaque spout into either map is
 * exactly-once, including a replay re-cut without some keys (which Trident's per-key protocol miscounts), and a
 * frozen task whose partition Storm moved cannot commit. The table has the layout of Epochal's table-backed states
 * ({@code (hash, key, value, txid)} or {@code (hash, key, value, prev_value, txid)}), keys mapped by
 * {@link EpochalTrident#keyCodec()}, values encoded by the value codec (JSON by default); the markers live in table
 * {@code <table>__epochal_partitions}. A store only its own process reaches is refused in a multi-worker topology
 * unless {@link #allowWorkerLocalStore()}.
 *
 * @since 0.1.0
 */
@Evolving
public final class StormStateBuilder {
  private final String storeName;
  private final SerializableSupplier<? extends TableStore> store;
  private final String table;
  private SerializableSupplier<? extends Codec<Object>> values;
  private Integer cacheSize;
  private boolean workerLocal;
  private Guarantee guarantee;

  StormStateBuilder(String storeName, SerializableSupplier<? extends TableStore> store, String table) {
    this.storeName = Objects.requireNonNull(storeName, "storeName");
    this.store = Objects.requireNonNull(store, "store");
    this.table = Objects.requireNonNull(table, "table");
    if (table.isBlank() || storeName.isBlank()) {
      throw new IllegalArgumentException("store name and table must not be blank");
    }
  }

  /**
   * The value codec, made in the worker (default {@link EpochalTrident#jsonValueCodec()}; for non-JSON values
   * {@link EpochalTrident#kryoValues()}).
   *
   * @param codec makes, in each worker, the codec of the values stored in the table's value columns; must capture
   *     only serializable values
   * @return this builder
   * @throws NullPointerException if {@code codec} is null
   * @throws IllegalStateException if already set
   */
  public StormStateBuilder valueCodec(SerializableSupplier<? extends Codec<Object>> codec) {
    if (values != null) {
      throw new IllegalStateException("valueCodec was already set");
    }
    this.values = Objects.requireNonNull(codec, "codec");
    return this;
  }

  /**
   * Keeps up to {@code cells} cells per partition in an LRU cache under the txid rule (Trident's
   * {@code localCacheSize}; default none).
   *
   * @param cells the most cells one state partition keeps in memory, at least 1
   * @return this builder
   * @throws IllegalArgumentException if {@code cells < 1}
   * @throws IllegalStateException if already set
   */
  public StormStateBuilder localCacheSize(int cells) {
    if (cacheSize != null) {
      throw new IllegalStateException("localCacheSize was already set to " + cacheSize);
    }
    if (cells < 1) {
      throw new IllegalArgumentException("localCacheSize must be >= 1, was " + cells);
    }
    this.cacheSize = cells;
    return this;
  }

  /**
   * Accepts a store that only its own process can reach (RocksDB, in-memory) in a topology of several workers. By
   * default such a state is refused when Storm prepares it in a multi-worker topology, since a partition Storm moves
   * to another worker would start from that worker's empty copy. Opt in only when every worker reaches the same
   * store (e.g. one supervisor host whose workers share a directory through the supplier).
   *
   * @return this builder
   * @throws IllegalStateException if already called
   */
  public StormStateBuilder allowWorkerLocalStore() {
    if (workerLocal) {
      throw new IllegalStateException("allowWorkerLocalStore was already set");
    }
    this.workerLocal = true;
    return this;
  }

  /**
   * The delivery guarantee (default {@link Guarantee#EXACTLY_ONCE}): when Storm prepares a state partition, every
   * Trident spout feeding the state is paired with it through the engine's guarantee table, and a partitioned opaque
   * spout without {@link #guard} is refused while more than one batch is in flight (STORM-1557);
   * {@code EXACTLY_ONCE} refuses such a topology with {@link io.epochal.errors.GuaranteeNotDeliverableException}, a
   * weaker guarantee is an explicit opt-in that only logs why.
   *
   * @param guarantee the guarantee the spout pairings are checked against when Storm prepares a state partition
   * @return this builder
   * @throws NullPointerException if {@code guarantee} is null
   * @throws IllegalStateException if already set
   */
  public StormStateBuilder guarantee(Guarantee guarantee) {
    if (this.guarantee != null) {
      throw new IllegalStateException("guarantee was already set to " + this.guarantee);
    }
    this.guarantee = Objects.requireNonNull(guarantee, "guarantee");
    return this;
  }

  /** @return a factory of Epochal {@code OpaqueMap}s (exactly-once with transactional and opaque Trident spouts) */
  public org.apache.storm.trident.state.StateFactory opaque() {
    return build(StormStateFactory.Kind.OPAQUE);
  }

  /** @return a factory of Epochal {@code TransactionalMap}s (exactly-once with transactional Trident spouts) */
  public org.apache.storm.trident.state.StateFactory transactional() {
    return build(StormStateFactory.Kind.TRANSACTIONAL);
  }

  /** @return {@link #opaque()} as a {@code StateSpec} */
  public StateSpec opaqueSpec() {
    return new StateSpec(opaque());
  }

  /** @return {@link #transactional()} as a {@code StateSpec} */
  public StateSpec transactionalSpec() {
    return new StateSpec(transactional());
  }

  /**
   * Guards a partitioned opaque spout against STORM-1557 (Storm 2.8.3 starting txids out of order with more than one
   * batch in flight, so that the spout emits one range of a partition under two txids and the state counts it
   * twice): its emitters record each range with records (partition, start metadata, txid) in table
   * {@code <table>__epochal_spout_ranges} of this state's store, in one store transaction per batch fenced by a lease
   * per spout task, and fail a batch that emits a range another live txid already emitted
   * ({@link RangeEmittedTwiceException} inside Storm's {@code FailedException}; Storm replays the batch and every
   * later one, and the replay emits the range once). Costs one lookup and one write of one row per partition and
   * batch. Metadata must be JSON values (as Storm keeps them in ZooKeeper). Does not change the builder.
   *
   * @param name the spout's name in the ledger (unique among the guarded spouts of this state)
   * @param spout the opaque partitioned spout to guard; its coordinator is used as is, its emitters are wrapped
   * @param <P> the spout's partitions type (what its coordinator returns)
   * @param <Q> the spout's partition type
   * @param <M> the spout's per-partition metadata type
   * @return a serializable spout to pass to {@code TridentTopology.newStream}
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code name} is blank
   */
  public <P, Q extends ISpoutPartition, M> IOpaquePartitionedTridentSpout<P, Q, M> guard(String name,
      IOpaquePartitionedTridentSpout<P, Q, M> spout) {
    Objects.requireNonNull(spout, "spout");
    if (Objects.requireNonNull(name, "name").isBlank()) {
      throw new IllegalArgumentException("the guarded spout's name must not be blank");
    }
    return new GuardedOpaqueSpout<>(spout, name, table, new SharedStore(storeName, store));
  }

  /** The worker's shared store of a name, as a serializable supplier for the guard. */
  private record SharedStore(String storeName, SerializableSupplier<? extends TableStore> store)
      implements SerializableSupplier<TableStore> {
    @Override
    public TableStore get() {
      return StormStateFactory.TableSource.shared(storeName, store);
    }
  }

  private org.apache.storm.trident.state.StateFactory build(StormStateFactory.Kind kind) {
    SerializableSupplier<? extends Codec<Object>> codec = values != null ? values : JsonValues.INSTANCE;
    return new StormStateFactory(kind, new StormStateFactory.TableSource(storeName, store, table, codec,
        workerLocal),
        cacheSize == null ? 0 : cacheSize, table, guarantee == null ? Guarantee.EXACTLY_ONCE : guarantee);
  }

  /** The default value codec supplier (a named class, so that it serializes without capturing anything). */
  private enum JsonValues implements SerializableSupplier<Codec<Object>> {
    INSTANCE;

    @Override
    public Codec<Object> get() {
      return TridentJsonCodec.value();
    }
  }
}
