package io.epochal.benchmarks.storm;

import io.epochal.benchmarks.Corpus;
import io.epochal.benchmarks.FileLines;
import io.epochal.benchmarks.Meter;
import io.epochal.benchmarks.RunContext;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.storm.Config;
import org.apache.storm.LocalCluster;
import org.apache.storm.task.IMetricsContext;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.trident.TridentTopology;
import org.apache.storm.trident.operation.BaseFunction;
import org.apache.storm.trident.operation.TridentCollector;
import org.apache.storm.trident.operation.builtin.Count;
import org.apache.storm.trident.spout.IOpaquePartitionedTridentSpout;
import org.apache.storm.trident.spout.ISpoutPartition;
import org.apache.storm.trident.spout.ITridentSpout;
import org.apache.storm.trident.state.State;
import org.apache.storm.trident.state.StateFactory;
import org.apache.storm.trident.state.TransactionalValue;
import org.apache.storm.trident.state.ValueUpdater;
import org.apache.storm.trident.state.map.IBackingMap;
import org.apache.storm.trident.state.map.MapState;
import org.apache.storm.trident.state.map.TransactionalMap;
import org.apache.storm.trident.testing.MemoryMapState;
import org.apache.storm.trident.topology.TransactionAttempt;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Values;

/**
 * The word count on Apache Storm Trident 2.8.3 in a {@link LocalCluster}: spout (1 task) → shuffle →
 * {@code each(split)} (P tasks) → {@code groupBy(word)} → {@code persistentAggregate(Count)} (P tasks), batches of
 * {@code batch} lines, {@code maxSpoutPending} 2, batch emit interval 1 ms.
 * <ul>
 *   <li>{@code transactional}: a transactional {@link ITridentSpout} over byte ranges of the file (the coordinator fixes
 *       each batch's range), into Trident's {@link TransactionalMap} over an in-memory {@link IBackingMap};</li>
 *   <li>{@code opaque}: an {@link IOpaquePartitionedTridentSpout} over the file (offset metadata), into Trident's
 *       {@link MemoryMapState} (an {@code OpaqueMap}).</li>
 * </ul>
 * The timed section runs from the first emitted batch to the commit of the batch holding the last line by every state
 * partition.
 */
public final class TridentRun {
  static volatile Meter meter;
  static final AtomicLong FINAL_TXID = new AtomicLong(-1);
  static final ConcurrentHashMap<Integer, Long> COMMITTED = new ConcurrentHashMap<>();
  static volatile int numPartitions = -1;
  static final List<MapState<Object>> STATES = new CopyOnWriteArrayList<>();
  static final ConcurrentHashMap<List<Object>, TransactionalValue<?>> TX_CELLS = new ConcurrentHashMap<>();

  private TridentRun() {
  }

  /**
   * Variant {@code storm-tx}: the transactional Trident spout into Storm's {@link TransactionalMap}.
   *
   * @param ctx the run: corpus, {@code batch=}, {@code partitions=} (split and aggregate tasks), {@code inflight=}
   *     (max spout pending) and the meter; the batch count goes to the extra property {@code batches}
   * @return the committed counts, read from the topology's states after every partition committed the last batch
   * @throws Exception if the cluster fails, or {@link IllegalStateException} if the topology does not finish within
   *     an hour
   */
  public static Map<String, Long> transactional(RunContext ctx) throws Exception {
    return run(ctx, false);
  }

  /**
   * Variant {@code storm-opaque}: the opaque partitioned Trident spout into Storm's opaque {@code MemoryMapState}.
   *
   * @param ctx the run: corpus, {@code batch=}, {@code partitions=} (split and aggregate tasks), {@code inflight=}
   *     (max spout pending) and the meter; the batch count goes to the extra property {@code batches}
   * @return the committed counts, read from the topology's states after every partition committed the last batch
   * @throws Exception if the cluster fails, or {@link IllegalStateException} if the topology does not finish within
   *     an hour
   */
  public static Map<String, Long> opaque(RunContext ctx) throws Exception {
    return run(ctx, true);
  }

  /** One cluster per JVM (the smoke test runs both variants in one JVM). */
  private static LocalCluster cluster;

  private static synchronized LocalCluster cluster() throws Exception {
    if (cluster == null) {
      cluster = new LocalCluster();
    }
    return cluster;
  }

  private static Map<String, Long> run(RunContext ctx, boolean opaque) throws Exception {
    meter = ctx.meter();
    FINAL_TXID.set(-1);
    COMMITTED.clear();
    numPartitions = -1;
    STATES.clear();
    TX_CELLS.clear();
    String name = opaque ? "wordcount-opaque" : "wordcount-tx";
    String file = ctx.corpus().toString();
    int p = ctx.partitions();
    TridentTopology topology = new TridentTopology();
    var stream = opaque
        ? topology.newStream("corpus", new FileOpaqueTridentSpout(file, ctx.batch()))
        : topology.newStream("corpus", new FileTransactionalTridentSpout(file, ctx.batch()));
    stream.parallelismHint(1).shuffle()
        .each(new Fields("line"), new Split(), new Fields("word")).parallelismHint(p)
        .groupBy(new Fields("word"))
        .persistentAggregate(new TrackingFactory(opaque), new Count(), new Fields("count")).parallelismHint(p);
    Config conf = new Config();
    conf.setNumWorkers(1);
    conf.setMaxSpoutPending(ctx.inFlight());
    conf.setMessageTimeoutSecs(600);
    conf.put(Config.TOPOLOGY_TRIDENT_BATCH_EMIT_INTERVAL_MILLIS, 1);
    conf.put(Config.TOPOLOGY_EVENTLOGGER_EXECUTORS, 0);
    conf.setDebug(false);
    {
      LocalCluster cluster = cluster();
      cluster.submitTopology(name, conf, topology.build());
      long deadline = System.nanoTime() + 3_600_000_000_000L;
      while (!done()) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("Storm Trident did not finish within an hour");
        }
        Thread.sleep(2);
      }
      ctx.meter().stop();
      cluster.killTopology(name);
      ctx.extra().setProperty("batches", Long.toString(FINAL_TXID.get()));
      Map<String, Long> out = new HashMap<>();
      if (opaque) {
        List<String> words = new ArrayList<>(Corpus.count(ctx.corpus()).keySet());
        List<List<Object>> keys = new ArrayList<>(words.size());
        for (String w : words) {
          keys.add(new Values(w));
        }
        for (MapState<Object> state : STATES) {
          List<Object> values = state.multiGet(keys);
          for (int i = 0; i < words.size(); i++) {
            if (values.get(i) != null) {
              out.put(words.get(i), ((Number) values.get(i)).longValue());
            }
          }
        }
      } else {
        TX_CELLS.forEach((k, cell) -> out.put((String) k.get(0), ((Number) cell.getVal()).longValue()));
      }
      return out;
    }
  }

  private static boolean done() {
    long last = FINAL_TXID.get();
    int n = numPartitions;
    if (last < 0 || n < 0 || COMMITTED.size() < n) {
      return false;
    }
    for (long c : COMMITTED.values()) {
      if (c < last) {
        return false;
      }
    }
    return true;
  }

  /** Splits a line into words. */
  public static final class Split extends BaseFunction {
    private static final long serialVersionUID = 1L;

    @Override
    public void execute(TridentTuple tuple, TridentCollector collector) {
      for (String w : tuple.getString(0).split(" ")) {
        collector.emit(new Values(w));
      }
    }
  }

  /** A transactional spout: the coordinator fixes each batch's byte range {@code [start, end)}. */
  public static final class FileTransactionalTridentSpout implements ITridentSpout<List<Long>> {
    private static final long serialVersionUID = 1L;
    /** The path of the corpus file, as a string (serializable). */
    private final String file;
    /** The most lines per batch. */
    private final int batch;

    FileTransactionalTridentSpout(String file, int batch) {
      this.file = file;
      this.batch = batch;
    }

    @Override
    public BatchCoordinator<List<Long>> getCoordinator(String txStateId, Map<String, Object> conf,
        TopologyContext context) {
      Path path = Path.of(file);
      long length = FileLines.length(path);
      return new BatchCoordinator<>() {
        long lastEnd;

        @Override
        public List<Long> initializeTransaction(long txid, List<Long> prevMetadata, List<Long> currMetadata) {
          if (currMetadata != null) {
            return currMetadata;
          }
          long start = prevMetadata == null ? 0 : ((Number) prevMetadata.get(1)).longValue();
          long end = FileLines.skip(path, start, batch);
          lastEnd = end;
          List<Long> meta = new ArrayList<>(2);
          meta.add(start);
          meta.add(end);
          return meta;
        }

        @Override
        public void success(long txid) {
        }

        @Override
        public boolean isReady(long txid) {
          return lastEnd < length;
        }

        @Override
        public void close() {
        }
      };
    }

    @Override
    public Emitter<List<Long>> getEmitter(String txStateId, Map<String, Object> conf, TopologyContext context) {
      Path path = Path.of(file);
      long length = FileLines.length(path);
      return new Emitter<>() {
        @Override
        public void emitBatch(TransactionAttempt tx, List<Long> meta, TridentCollector collector) {
          meter.start();
          long start = ((Number) meta.get(0)).longValue();
          long end = ((Number) meta.get(1)).longValue();
          FileLines.read(path, start, batch, line -> collector.emit(new Values(line)));
          if (end == length && end > start) {
            FINAL_TXID.accumulateAndGet(tx.getTransactionId(), Math::max);
          }
        }

        @Override
        public void success(TransactionAttempt tx) {
        }

        @Override
        public void close() {
        }
      };
    }

    @Override
    public Map<String, Object> getComponentConfiguration() {
      return null;
    }

    @Override
    public Fields getOutputFields() {
      return new Fields("line");
    }
  }

  /** The file as one partition. */
  public static final class FilePartition implements ISpoutPartition, Serializable {
    private static final long serialVersionUID = 1L;
    /** The path of the corpus file, also the partition's id. */
    private final String file;

    FilePartition(String file) {
      this.file = file;
    }

    @Override
    public String getId() {
      return file;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof FilePartition p && p.file.equals(file);
    }

    @Override
    public int hashCode() {
      return file.hashCode();
    }
  }

  /** An opaque partitioned spout: each partition's metadata is the byte offset after its last batch. */
  public static final class FileOpaqueTridentSpout
      implements IOpaquePartitionedTridentSpout<String, FilePartition, Long> {
    private static final long serialVersionUID = 1L;
    /** The path of the corpus file, as a string (serializable). */
    private final String file;
    /** The most lines per batch. */
    private final int batch;

    FileOpaqueTridentSpout(String file, int batch) {
      this.file = file;
      this.batch = batch;
    }

    @Override
    public Emitter<String, FilePartition, Long> getEmitter(Map<String, Object> conf, TopologyContext context) {
      Path path = Path.of(file);
      long length = FileLines.length(path);
      return new Emitter<>() {
        @Override
        public Map<FilePartition, Long> emitBatchNew(TransactionAttempt tx, TridentCollector collector,
            Set<FilePartition> partitions, Map<FilePartition, Long> lastPartitionMetaMap) {
          Map<FilePartition, Long> out = new HashMap<>();
          for (FilePartition part : partitions) {
            meter.start();
            Object last = lastPartitionMetaMap.get(part);
            long start = last == null ? 0 : ((Number) last).longValue();
            long end = FileLines.read(path, start, batch, line -> collector.emit(new Values(line)));
            if (end == length && end > start) {
              FINAL_TXID.accumulateAndGet(tx.getTransactionId(), Math::max);
            }
            out.put(part, end);
          }
          return out;
        }

        @Override
        public void refreshPartitions(List<FilePartition> partitionResponsibilities) {
        }

        @Override
        public List<FilePartition> getOrderedPartitions(String allPartitionInfo) {
          return List.of(new FilePartition(allPartitionInfo)); // the id names a ZooKeeper node: no slashes
        }

        @Override
        public void close() {
        }
      };
    }

    @Override
    public Coordinator<String> getCoordinator(Map<String, Object> conf, TopologyContext context) {
      return new Coordinator<>() {
        @Override
        public boolean isReady(long txid) {
          return true;
        }

        @Override
        public String getPartitionsForBatch() {
          return "corpus";
        }

        @Override
        public void close() {
        }
      };
    }

    @Override
    public Map<String, Object> getComponentConfiguration() {
      return null;
    }

    @Override
    public Fields getOutputFields() {
      return new Fields("line");
    }
  }

  /** Trident's own map states, wrapped to observe commits. */
  public static final class TrackingFactory implements StateFactory {
    private static final long serialVersionUID = 1L;
    /** Whether to make Storm's opaque {@link MemoryMapState} (else a {@link TransactionalMap} over a static map). */
    private final boolean opaque;
    /** The factory of the opaque states. */
    private final MemoryMapState.Factory memory = new MemoryMapState.Factory();

    TrackingFactory(boolean opaque) {
      this.opaque = opaque;
    }

    @Override
    @SuppressWarnings("unchecked")
    public State makeState(Map<String, Object> conf, IMetricsContext metrics, int partitionIndex,
        int partitions) {
      numPartitions = partitions;
      MapState<Object> inner = opaque
          ? (MapState<Object>) memory.makeState(conf, metrics, partitionIndex, partitions)
          : TransactionalMap.build(new StaticBackingMap());
      STATES.add(inner);
      return new Tracking(inner, partitionIndex);
    }
  }

  /** Delegates to Trident's map state and records each committed txid of its partition. */
  @SuppressWarnings("rawtypes") // Trident's interfaces use raw ValueUpdater
  static final class Tracking implements MapState<Object> {
    private final MapState<Object> inner;
    private final int partition;

    Tracking(MapState<Object> inner, int partition) {
      this.inner = inner;
      this.partition = partition;
    }

    @Override
    public List<Object> multiUpdate(List<List<Object>> keys, List<ValueUpdater> updaters) {
      return inner.multiUpdate(keys, updaters);
    }

    @Override
    public void multiPut(List<List<Object>> keys, List<Object> vals) {
      inner.multiPut(keys, vals);
    }

    @Override
    public List<Object> multiGet(List<List<Object>> keys) {
      return inner.multiGet(keys);
    }

    @Override
    public void beginCommit(Long txid) {
      inner.beginCommit(txid);
    }

    @Override
    public void commit(Long txid) {
      inner.commit(txid);
      COMMITTED.merge(partition, txid, Math::max);
    }
  }

  /** An in-memory backing map of transactional cells shared by the partitions (keys are disjoint). */
  @SuppressWarnings("rawtypes") // Trident's TransactionalMap takes an IBackingMap of raw TransactionalValue
  static final class StaticBackingMap implements IBackingMap<TransactionalValue> {
    @Override
    public List<TransactionalValue> multiGet(List<List<Object>> keys) {
      List<TransactionalValue> out = new ArrayList<>(keys.size());
      for (List<Object> k : keys) {
        out.add(TX_CELLS.get(k));
      }
      return out;
    }

    @Override
    public void multiPut(List<List<Object>> keys, List<TransactionalValue> vals) {
      for (int i = 0; i < keys.size(); i++) {
        TX_CELLS.put(keys.get(i), vals.get(i));
      }
    }
  }
}
