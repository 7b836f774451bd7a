package io.epochal.trident;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.trident.operation.TridentCollector;
import org.apache.storm.trident.spout.IOpaquePartitionedTridentSpout;
import org.apache.storm.trident.spout.IPartitionedTridentSpout;
import org.apache.storm.trident.spout.ISpoutPartition;
import org.apache.storm.trident.topology.TransactionAttempt;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Values;

/**
 * Partitioned Trident spouts written against storm-client 2.8.3's batch-wide emitters, in the shape of the Kafka
 * Trident spouts: partitions of sentences, transactional metadata {@code {"start", "end"}} per partition and opaque
 * metadata {@code {"next"}} (an offset). The opaque one re-cuts replays: attempt {@code a} of a batch takes
 * {@code batch + a % 3} sentences per partition. Nothing here knows about Epochal.
 */
final class TestPartitionedSpouts {
  private TestPartitionedSpouts() {
  }

  record Partition(String id, int index) implements ISpoutPartition {
    @Override
    public String getId() {
      return id;
    }
  }

  static List<List<String>> split(List<String> sentences, int partitions) {
    List<List<String>> out = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      out.add(new ArrayList<>());
    }
    for (int i = 0; i < sentences.size(); i++) {
      out.get(i % partitions).add(sentences.get(i));
    }
    return out;
  }

  private static long num(Map<String, Object> meta, String key) {
    return ((Number) meta.get(key)).longValue();
  }

  private static List<Partition> partitions(int n) {
    List<Partition> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(new Partition("sentences-" + i, i));
    }
    return out;
  }

  /** Transactional: a batch is a fixed range per partition, re-emitted exactly. */
  static final class Transactional implements IPartitionedTridentSpout<Integer, Partition, Map<String, Object>> {
    private static final long serialVersionUID = 1L;
    private final List<List<String>> data;
    private final int batch;

    Transactional(List<List<String>> data, int batch) {
      this.data = data;
      this.batch = batch;
    }

    @Override
    public Coordinator<Integer> getCoordinator(Map<String, Object> conf, TopologyContext context) {
      return new Coordinator<>() {
        @Override
        public Integer getPartitionsForBatch() {
          return data.size();
        }

        @Override
        public boolean isReady(long txid) {
          return true;
        }

        @Override
        public void close() {
        }
      };
    }

    @Override
    public Emitter<Integer, Partition, Map<String, Object>> getEmitter(Map<String, Object> conf,
        TopologyContext context) {
      return new Emitter<>() {
        @Override
        public List<Partition> getOrderedPartitions(Integer count) {
          return partitions(count);
        }

        @Override
        public Map<Partition, Map<String, Object>> emitBatchNew(TransactionAttempt tx, TridentCollector collector,
            Set<Partition> partitions, Map<Partition, Map<String, Object>> lastMetas) {
          Map<Partition, Map<String, Object>> out = new HashMap<>();
          for (Partition p : partitions) {
            Map<String, Object> last = lastMetas.get(p);
            long start = last == null ? 0 : num(last, "end");
            long end = Math.min(start + batch, data.get(p.index()).size());
            Map<String, Object> meta = new HashMap<>();
            meta.put("start", start);
            meta.put("end", end);
            emit(collector, p, meta);
            out.put(p, meta);
          }
          return out;
        }

        @Override
        public void refreshPartitions(List<Partition> partitionResponsibilities) {
        }

        @Override
        public void reEmitPartitionBatch(TransactionAttempt tx, TridentCollector collector, Partition partition,
            Map<String, Object> meta) {
          emit(collector, partition, meta);
        }

        private void emit(TridentCollector collector, Partition p, Map<String, Object> meta) {
          for (long i = num(meta, "start"); i < num(meta, "end"); i++) {
            collector.emit(new Values(data.get(p.index()).get((int) i)));
          }
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
      return new Fields("sentence");
    }
  }

  /** Opaque: a batch continues from the offset after the previous one; attempt a takes batch + a sentences. */
  static final class Opaque implements IOpaquePartitionedTridentSpout<Integer, Partition, Map<String, Object>> {
    private static final long serialVersionUID = 1L;
    private final List<List<String>> data;
    private final int batch;

    Opaque(List<List<String>> data, int batch) {
      this.data = data;
      this.batch = batch;
    }

    @Override
    public Emitter<Integer, Partition, Map<String, Object>> getEmitter(Map<String, Object> conf,
        TopologyContext context) {
      return new Emitter<>() {
        @Override
        public Map<Partition, Map<String, Object>> emitBatchNew(TransactionAttempt tx, TridentCollector collector,
            Set<Partition> partitions, Map<Partition, Map<String, Object>> lastBatchMetaMap) {
          Map<Partition, Map<String, Object>> out = new HashMap<>();
          for (Partition p : partitions) {
            Map<String, Object> last = lastBatchMetaMap.get(p);
            long next = last == null ? 0 : num(last, "next");
            long end = Math.min(next + batch + tx.getAttemptId() % 3, data.get(p.index()).size());
            for (long i = next; i < end; i++) {
              collector.emit(new Values(data.get(p.index()).get((int) i)));
            }
            Map<String, Object> meta = new HashMap<>();
            meta.put("next", end);
            out.put(p, meta);
          }
          return out;
        }

        @Override
        public void refreshPartitions(List<Partition> partitionResponsibilities) {
        }

        @Override
        public List<Partition> getOrderedPartitions(Integer count) {
          return partitions(count);
        }

        @Override
        public void close() {
        }
      };
    }

    @Override
    public Coordinator<Integer> getCoordinator(Map<String, Object> conf, TopologyContext context) {
      return new Coordinator<>() {
        @Override
        public boolean isReady(long txid) {
          return true;
        }

        @Override
        public Integer getPartitionsForBatch() {
          return data.size();
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
      return new Fields("sentence");
    }
  }
}
