package io.epochal.trident;

import io.epochal.codec.Codec;
import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.SourceChangedException;
import io.epochal.spout.BatchAttempt;
import io.epochal.spout.Collector;
import io.epochal.spout.OpaqueSpout;
import io.epochal.spout.PartitionedMetadata;
import io.epochal.spout.TransactionalSpout;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.storm.trident.spout.IOpaquePartitionedTridentSpout;
import org.apache.storm.trident.spout.IPartitionedTridentSpout;
import org.apache.storm.trident.spout.ISpoutPartition;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.tuple.Fields;

/**
 * Trident partitioned spouts (the batch-wide emitter shape of Storm 2.7+) on the Epochal engine. Batch metadata is a
 * {@link PartitionedMetadata} keyed by {@link ISpoutPartition#getId()}: every partition's latest metadata (JSON, as
 * Trident keeps it in ZooKeeper per partition) and the partitions new in the batch. The engine emits on one thread, so
 * the adapters act as task 0 of 1: {@code getPartitionsForTask(0, 1, ordered)} (all partitions), and
 * {@code refreshPartitions} whenever that list changes.
 *
 * <p>Both adapters call {@code emitBatchNew(attempt, collector, partitions, last metadata per partition)} once ahead of
 * time to learn whether the batch has tuples (an empty batch means "no new data now"; the txid is not used and
 * {@code runUntilIdle} returns), and keep the tuples for the first attempt.
 *
 * <p><b>Transactional</b> ({@link IPartitionedTridentSpout}): the metadata returned by {@code emitBatchNew} is fixed as
 * the batch's and recorded in the checkpoint before the batch is processed; every replay calls
 * {@code reEmitPartitionBatch(attempt, collector, partition, metadata)} for each partition of the batch, as Trident
 * does for a txid whose metadata is stored. <b>Opaque</b> ({@link IOpaquePartitionedTridentSpout}): every attempt is a
 * new {@code emitBatchNew} from the metadata after the previous batch (the committed one on a replay), and the metadata
 * it returns is committed with the batch, as Trident commits it in {@code ICommitterTridentSpout.commit}.
 *
 * <p>A partition that had metadata in an earlier batch but is no longer listed makes the adapters throw
 * {@link SourceChangedException}. Metadata objects must be JSON values to survive a restart (in a running pipeline
 * the emitter gets back the very objects it returned).
 */
final class PartitionedSpoutAdapters {
  private PartitionedSpoutAdapters() {
  }

  /** See {@code EpochalTrident.spout(String, IPartitionedTridentSpout)}. */
  static TransactionalSpout<TridentTuple, ?> transactional(String name, IPartitionedTridentSpout<?, ?, ?> spout) {
    return new Transactional(SpoutSupport.of(name, spout.getOutputFields(), spout.getComponentConfiguration()),
        spout);
  }

  /** See {@code EpochalTrident.spout(String, IOpaquePartitionedTridentSpout)}. */
  static OpaqueSpout<TridentTuple, ?> opaque(String name, IOpaquePartitionedTridentSpout<?, ?, ?> spout) {
    return new Opaque(SpoutSupport.of(name, spout.getOutputFields(), spout.getComponentConfiguration()), spout);
  }

  /** The partitions as the emitter orders them, by id, with refresh tracking. */
  private static final class Partitions {
    private final String spout;
    private List<ISpoutPartition> lastRefreshed;
    LinkedHashMap<String, ISpoutPartition> byId = new LinkedHashMap<>();

    Partitions(String spout) {
      this.spout = spout;
    }

    void update(List<ISpoutPartition> ordered, java.util.function.Function<List<ISpoutPartition>,
        List<ISpoutPartition>> forTask, java.util.function.Consumer<List<ISpoutPartition>> refresh) {
      if (ordered == null) {
        throw broken("returned null ordered partitions");
      }
      List<ISpoutPartition> mine = forTask.apply(ordered);
      if (mine == null) {
        throw broken("returned null partitions for its task");
      }
      LinkedHashMap<String, ISpoutPartition> ids = new LinkedHashMap<>();
      for (ISpoutPartition p : mine) {
        String id = p == null ? null : p.getId();
        if (id == null) {
          throw broken("lists a null partition or partition id: " + mine);
        }
        if (ids.put(id, p) != null) {
          throw broken("lists partition id " + id + " twice: " + mine);
        }
      }
      if (!mine.equals(lastRefreshed)) {
        refresh.accept(mine);
        lastRefreshed = List.copyOf(mine);
      }
      byId = ids;
    }

    /** A spout whose partition list no replay can make usable. */
    private EpochalException broken(String what) {
      return new EpochalException("Trident spout " + spout + " " + what + "; partition ids must be unique and "
          + "not null", null, false, ErrorContext.NONE);
    }

    ISpoutPartition require(String id, long txid, PartitionedMetadata<Object> meta) {
      ISpoutPartition p = byId.get(id);
      if (p == null) {
        throw new SourceChangedException("Trident spout " + spout + ": partition " + id + " has metadata from an "
            + "earlier batch (" + meta.get(id).orElse(null) + ") but is no longer listed; cannot build txid " + txid
            + ". Current partitions: " + byId.keySet());
      }
      return p;
    }

    /** Checks that every partition known to {@code previous} is still listed; the last metadata per partition. */
    Map<ISpoutPartition, Object> lastMetas(PartitionedMetadata<Object> previous, long txid) {
      for (String known : previous.partitions().keySet()) {
        require(known, txid, previous);
      }
      Map<ISpoutPartition, Object> last = new HashMap<>();
      byId.forEach((id, p) -> last.put(p, previous.get(id).orElse(null)));
      return last;
    }

    /** The next metadata: {@code previous} with the returned entries (non-null ones) new in the batch. */
    Optional<PartitionedMetadata<Object>> next(PartitionedMetadata<Object> previous, Map<?, ?> returned) {
      TreeMap<String, Object> all = new TreeMap<>(previous.partitions());
      TreeSet<String> inBatch = new TreeSet<>();
      if (returned != null) {
        for (Map.Entry<?, ?> e : returned.entrySet()) {
          if (e.getValue() != null) {
            String id = ((ISpoutPartition) e.getKey()).getId();
            all.put(id, e.getValue());
            inBatch.add(id);
          }
        }
      }
      return inBatch.isEmpty() ? Optional.empty() : Optional.of(new PartitionedMetadata<>(all, inBatch));
    }
  }

  /** The tuples and metadata emitted ahead of time for one txid. */
  private record Ahead(long txid, PartitionedMetadata<Object> previous, List<TridentTuple> tuples,
      PartitionedMetadata<Object> next) {
  }

  static final class Transactional implements TransactionalSpout<TridentTuple, PartitionedMetadata<Object>>,
      SpoutSupport.Adapter {
    private final SpoutSupport support;
    private final IPartitionedTridentSpout<Object, ISpoutPartition, Object> spout;
    private final Partitions partitions;
    private final Codec<PartitionedMetadata<Object>> codec;
    private IPartitionedTridentSpout.Coordinator<Object> coordinator;
    private IPartitionedTridentSpout.Emitter<Object, ISpoutPartition, Object> emitter;
    private Ahead ahead;

    @SuppressWarnings("unchecked")
    Transactional(SpoutSupport support, IPartitionedTridentSpout<?, ?, ?> spout) {
      this.support = support;
      this.spout = (IPartitionedTridentSpout<Object, ISpoutPartition, Object>) Objects.requireNonNull(spout, "spout");
      this.partitions = new Partitions(support.name);
      this.codec = PartitionedMetadata.codec(SpoutSupport.metadataCodec("partition metadata of " + support.name));
    }

    private IPartitionedTridentSpout.Emitter<Object, ISpoutPartition, Object> emitter() {
      if (emitter == null) {
        coordinator = spout.getCoordinator(support.conf, support.coordinatorContext());
        emitter = spout.getEmitter(support.conf, support.emitterContext());
      }
      return emitter;
    }

    private void refreshPartitions() {
      IPartitionedTridentSpout.Emitter<Object, ISpoutPartition, Object> e = emitter();
      partitions.update(e.getOrderedPartitions(coordinator.getPartitionsForBatch()),
          ordered -> e.getPartitionsForTask(0, 1, ordered), e::refreshPartitions);
    }

    @Override
    public Fields outputFields() {
      return support.fields;
    }

    @Override
    public String name() {
      return support.name;
    }

    @Override
    public Codec<PartitionedMetadata<Object>> metadataCodec() {
      return codec;
    }

    @Override
    public Optional<PartitionedMetadata<Object>> nextBatch(long txid, Optional<PartitionedMetadata<Object>> previous) {
      emitter();
      if (!coordinator.isReady(txid)) {
        return Optional.empty();
      }
      refreshPartitions();
      PartitionedMetadata<Object> prev = previous.orElseGet(PartitionedMetadata::empty);
      Map<ISpoutPartition, Object> last = partitions.lastMetas(prev, txid);
      Collectors.Buffer buffer = new Collectors.Buffer("IPartitionedTridentSpout " + support.name, support.fields);
      Map<ISpoutPartition, Object> returned = emitter.emitBatchNew(SpoutSupport.attempt(txid, 1), buffer,
          new LinkedHashSet<>(partitions.byId.values()), last);
      if (buffer.tuples.isEmpty()) {
        return Optional.empty();
      }
      PartitionedMetadata<Object> next = partitions.next(prev, returned).orElseThrow(() -> new IllegalStateException(
          "Trident spout " + support.name + " emitted " + buffer.tuples.size() + " tuples for txid " + txid
              + " but returned no partition metadata, so the batch could not be re-emitted"));
      ahead = new Ahead(txid, prev, buffer.tuples, next);
      return Optional.of(next);
    }

    @Override
    public void emit(BatchAttempt attempt, PartitionedMetadata<Object> metadata, Collector<TridentTuple> out) {
      Ahead a = ahead;
      ahead = null;
      if (a != null && a.txid() == attempt.txid() && attempt.attempt() == 1 && a.next().equals(metadata)) {
        a.tuples().forEach(out::emit);
        return;
      }
      refreshPartitions();
      Collectors.Forward forward = new Collectors.Forward("IPartitionedTridentSpout " + support.name, support.fields,
          out);
      for (Map.Entry<String, Object> e : metadata.batchPartitions().entrySet()) {
        emitter.reEmitPartitionBatch(SpoutSupport.attempt(attempt.txid(), attempt.attempt()), forward,
            partitions.require(e.getKey(), attempt.txid(), metadata), e.getValue());
      }
    }

    @Override
    public void close() {
      if (emitter != null) {
        emitter.close();
        coordinator.close();
      }
    }

    @Override
    public String toString() {
      return "IPartitionedTridentSpout " + support.name + " (" + spout.getClass().getName() + ")";
    }
  }

  static final class Opaque implements OpaqueSpout<TridentTuple, PartitionedMetadata<Object>>, SpoutSupport.Adapter {
    private final SpoutSupport support;
    private final IOpaquePartitionedTridentSpout<Object, ISpoutPartition, Object> spout;
    private final Partitions partitions;
    private final Codec<PartitionedMetadata<Object>> codec;
    private IOpaquePartitionedTridentSpout.Coordinator<Object> coordinator;
    private IOpaquePartitionedTridentSpout.Emitter<Object, ISpoutPartition, Object> emitter;
    private Ahead ahead;

    @SuppressWarnings("unchecked")
    Opaque(SpoutSupport support, IOpaquePartitionedTridentSpout<?, ?, ?> spout) {
      this.support = support;
      this.spout = (IOpaquePartitionedTridentSpout<Object, ISpoutPartition, Object>) Objects.requireNonNull(spout,
          "spout");
      this.partitions = new Partitions(support.name);
      this.codec = PartitionedMetadata.codec(SpoutSupport.metadataCodec("partition metadata of " + support.name));
    }

    private IOpaquePartitionedTridentSpout.Emitter<Object, ISpoutPartition, Object> emitter() {
      if (emitter == null) {
        coordinator = spout.getCoordinator(support.conf, support.coordinatorContext());
        emitter = spout.getEmitter(support.conf, support.emitterContext());
      }
      return emitter;
    }

    private void refreshPartitions() {
      IOpaquePartitionedTridentSpout.Emitter<Object, ISpoutPartition, Object> e = emitter();
      partitions.update(e.getOrderedPartitions(coordinator.getPartitionsForBatch()),
          ordered -> e.getPartitionsForTask(0, 1, ordered), e::refreshPartitions);
    }

    private Ahead emitNew(long txid, int attempt, PartitionedMetadata<Object> prev, Collectors.Base collector,
        Collectors.Buffer buffer) {
      refreshPartitions();
      Map<ISpoutPartition, Object> last = partitions.lastMetas(prev, txid);
      Map<ISpoutPartition, Object> returned = emitter.emitBatchNew(SpoutSupport.attempt(txid, attempt), collector,
          new LinkedHashSet<>(partitions.byId.values()), last);
      return new Ahead(txid, prev, buffer == null ? List.of() : buffer.tuples,
          partitions.next(prev, returned).orElse(prev));
    }

    @Override
    public Fields outputFields() {
      return support.fields;
    }

    @Override
    public String name() {
      return support.name;
    }

    @Override
    public Codec<PartitionedMetadata<Object>> metadataCodec() {
      return codec;
    }

    @Override
    public boolean isReady(long txid, Optional<PartitionedMetadata<Object>> previous) {
      emitter();
      if (!coordinator.isReady(txid)) {
        return false;
      }
      Collectors.Buffer buffer = new Collectors.Buffer("IOpaquePartitionedTridentSpout " + support.name,
          support.fields);
      Ahead a = emitNew(txid, 1, previous.orElseGet(PartitionedMetadata::empty), buffer, buffer);
      if (a.tuples().isEmpty()) {
        ahead = null;
        return false;
      }
      ahead = a;
      return true;
    }

    @Override
    public PartitionedMetadata<Object> emit(BatchAttempt attempt, Optional<PartitionedMetadata<Object>> previous,
        Collector<TridentTuple> out) {
      PartitionedMetadata<Object> prev = previous.orElseGet(PartitionedMetadata::empty);
      Ahead a = ahead;
      ahead = null;
      if (a != null && a.txid() == attempt.txid() && attempt.attempt() == 1 && a.previous().equals(prev)) {
        a.tuples().forEach(out::emit);
        return a.next();
      }
      Collectors.Forward forward = new Collectors.Forward("IOpaquePartitionedTridentSpout " + support.name,
          support.fields, out);
      return emitNew(attempt.txid(), attempt.attempt(), prev, forward, null).next();
    }

    @Override
    public void close() {
      if (emitter != null) {
        emitter.close();
        coordinator.close();
      }
    }

    @Override
    public String toString() {
      return "IOpaquePartitionedTridentSpout " + support.name + " (" + spout.getClass().getName() + ")";
    }
  }
}
