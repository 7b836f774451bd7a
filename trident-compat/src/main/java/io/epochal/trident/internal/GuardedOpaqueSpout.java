package io.epochal.trident.internal;

import io.epochal.store.table.TableStore;
import io.epochal.trident.RangeEmittedTwiceException;
import io.epochal.trident.RangeGapException;
import io.epochal.trident.StaleBatchException;
import io.epochal.trident.EpochalTrident.SerializableSupplier;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.storm.Config;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.FailedException;
import org.apache.storm.trident.operation.TridentCollector;
import org.apache.storm.trident.spout.IOpaquePartitionedTridentSpout;
import org.apache.storm.trident.spout.ISpoutPartition;
import org.apache.storm.trident.topology.TransactionAttempt;
import org.apache.storm.tuple.Fields;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A partitioned opaque Trident spout whose emitter records every range it emits in a {@link RangeLedger} and fails
 * (Storm's {@link FailedException} around the ledger's refusal) a batch that emits a range another live txid already
 * emitted (STORM-1557, {@link RangeEmittedTwiceException}), a stale coordinator's txid ({@link StaleBatchException})
 * or a range that does not continue the previous txid's ({@link RangeGapException}). The coordinator and the partition calls are the
 * wrapped spout's. Serializable (with the wrapped spout and the store supplier); each emitter is used by its
 * executor thread only.
 *
 * @param <P> the wrapped spout's partitions-info type
 * @param <Q> its partition type
 * @param <M> its metadata type
 */
public final class GuardedOpaqueSpout<P, Q extends ISpoutPartition, M> implements
    IOpaquePartitionedTridentSpout<P, Q, M> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(GuardedOpaqueSpout.class);

  /** The wrapped spout: its coordinator is used as is, its emitters are guarded. */
  private final IOpaquePartitionedTridentSpout<P, Q, M> spout;
  /** The guard's name: the ledger's {@code spout} key column. */
  private final String name;
  /** The state table whose ledger table ({@link RangeLedger#SUFFIX}) records the ranges. */
  private final String stateTable;
  /** Makes (in each worker) the table store that holds the ledger. */
  private final SerializableSupplier<? extends TableStore> store;

  /**
   * Wraps a spout; {@code StormStateBuilder.guard} calls it.
   *
   * @param spout the partitioned opaque spout to guard
   * @param name the guard's name, unique among the guarded spouts of the state
   * @param stateTable the state table the ledger sits beside
   * @param store makes the table store of the ledger, in the worker (one lookup and one write per partition and batch)
   * @throws NullPointerException if an argument is null
   */
  public GuardedOpaqueSpout(IOpaquePartitionedTridentSpout<P, Q, M> spout, String name, String stateTable,
      SerializableSupplier<? extends TableStore> store) {
    this.spout = Objects.requireNonNull(spout, "spout");
    this.name = Objects.requireNonNull(name, "name");
    this.stateTable = Objects.requireNonNull(stateTable, "stateTable");
    this.store = Objects.requireNonNull(store, "store");
  }

  /** @return the wrapped spout */
  public IOpaquePartitionedTridentSpout<P, Q, M> wrapped() {
    return spout;
  }

  /** @return the guard's name (the ledger's spout column) */
  public String name() {
    return name;
  }

  @Override
  public Emitter<P, Q, M> getEmitter(Map<String, Object> conf, TopologyContext context) {
    Object pending = conf == null ? null : conf.get(Config.TOPOLOGY_MAX_SPOUT_PENDING);
    long inFlight = pending instanceof Number n ? Math.max(1, n.longValue()) : 1;
    int task = context == null ? 0 : context.getThisTaskIndex();
    Object topology = conf == null ? null : conf.get(Config.STORM_ID);
    String owner = "storm " + (topology == null ? "topology" : topology) + " spout " + name + " task " + task + " in "
        + ManagementFactory.getRuntimeMXBean().getName();
    TableStore s = Objects.requireNonNull(store.get(), "the table store supplier returned null");
    RangeLedger ledger = new RangeLedger(s, stateTable, name, task, owner, inFlight);
    return new GuardedEmitter<>(spout.getEmitter(conf, context), ledger, name);
  }

  @Override
  public Coordinator<P> getCoordinator(Map<String, Object> conf, TopologyContext context) {
    return spout.getCoordinator(conf, context);
  }

  @Override
  public Map<String, Object> getComponentConfiguration() {
    return spout.getComponentConfiguration();
  }

  @Override
  public Fields getOutputFields() {
    return spout.getOutputFields();
  }

  @Override
  public String toString() {
    return "guarded(" + name + ": " + spout + ")";
  }

  /** The emitter: the wrapped one's emission, then the ledger's check and record. */
  static final class GuardedEmitter<P, Q extends ISpoutPartition, M> implements Emitter<P, Q, M> {
    private final Emitter<P, Q, M> emitter;
    private final RangeLedger ledger;
    private final String name;

    GuardedEmitter(Emitter<P, Q, M> emitter, RangeLedger ledger, String name) {
      this.emitter = Objects.requireNonNull(emitter, "emitter");
      this.ledger = ledger;
      this.name = name;
    }

    @Override
    public Map<Q, M> emitBatchNew(TransactionAttempt tx, TridentCollector collector, Set<Q> partitions,
        Map<Q, M> lastPartitionMetaMap) {
      // Held until the ledger accepts the batch: a refused batch must send no tuple (Storm may still commit it).
      Holding counting = new Holding(collector);
      Map<Q, M> next = emitter.emitBatchNew(tx, counting, partitions, lastPartitionMetaMap);
      List<RangeLedger.Emission> emissions = new ArrayList<>(partitions.size());
      for (Q p : partitions) {
        M start = lastPartitionMetaMap.get(p);
        M end = next == null ? null : next.get(p);
        String startJson = RangeLedger.canonical(start, "the start metadata of partition " + p.getId());
        Optional<String> endJson = end == null ? Optional.empty()
            : Optional.of(RangeLedger.canonical(end, "the metadata of partition " + p.getId()));
        boolean moved = endJson.isPresent() && !startJson.equals(endJson.get());
        emissions.add(new RangeLedger.Emission(p.getId(), startJson, endJson, moved && counting.count > 0));
        LOG.debug("emitted {} partition {}: start {} end {} ({} tuples of the batch)", tx, p.getId(), startJson,
            endJson.orElse("none"), counting.count);
      }
      try {
        ledger.record(tx.getTransactionId(), emissions);
      } catch (RangeEmittedTwiceException | StaleBatchException e) {
        LOG.warn("failing batch {}: {}", tx, e.getMessage());
        throw new FailedException(e.getMessage(), e);
      } catch (RangeGapException e) {
        // Storm's own metadata is wrong here: loud, and the batch never reaches a state.
        LOG.error("failing batch {}: {}", tx, e.getMessage());
        throw new FailedException(e.getMessage(), e);
      }
      counting.release();
      return next;
    }

    @Override
    public void refreshPartitions(List<Q> partitionResponsibilities) {
      emitter.refreshPartitions(partitionResponsibilities);
    }

    @Override
    public List<Q> getOrderedPartitions(P allPartitionInfo) {
      return emitter.getOrderedPartitions(allPartitionInfo);
    }

    @Override
    public List<Q> getPartitionsForTask(int taskId, int numTasks, List<Q> allPartitionInfoSorted) {
      return emitter.getPartitionsForTask(taskId, numTasks, allPartitionInfoSorted);
    }

    @Override
    public void close() {
      emitter.close();
    }

    @Override
    public String toString() {
      return "guarded emitter of " + name;
    }
  }

  /** Holds the tuples an emission sends, and counts them, until {@link #release} sends them on. */
  private static final class Holding implements TridentCollector {
    private final TridentCollector delegate;
    private final List<List<Object>> held = new ArrayList<>();
    private boolean flushed;
    long count;

    Holding(TridentCollector delegate) {
      this.delegate = delegate;
    }

    @Override
    public void emit(List<Object> values) {
      count++;
      held.add(values);
    }

    @Override
    public void flush() {
      flushed = true;
    }

    @Override
    public void reportError(Throwable t) {
      delegate.reportError(t);
    }

    void release() {
      for (List<Object> values : held) {
        delegate.emit(values);
      }
      held.clear();
      if (flushed) {
        delegate.flush();
      }
    }
  }
}
