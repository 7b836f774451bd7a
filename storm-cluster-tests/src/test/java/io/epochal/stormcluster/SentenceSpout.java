package io.epochal.stormcluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.trident.operation.TridentCollector;
import org.apache.storm.trident.spout.IOpaquePartitionedTridentSpout;
import org.apache.storm.trident.spout.ISpoutPartition;
import org.apache.storm.trident.topology.TransactionAttempt;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Values;

/**
 * A deterministic opaque partitioned Trident spout: partition {@code p} holds sentences {@code 0 .. perPartition-1},
 * sentence {@code (p, o)} computed from {@code (p, o)} alone, so every worker (and the test's recount) sees the same
 * data set without a shared source. A batch of a partition is the next {@code batch} offsets after the previous
 * batch's end (the metadata, a {@code Long} end offset kept by Trident in ZooKeeper); a replay starts from the same
 * metadata. Immutable, serializable; Storm calls an emitter from one executor thread.
 */
final class SentenceSpout implements IOpaquePartitionedTridentSpout<Integer, SentenceSpout.Part, Long> {
  private static final long serialVersionUID = 1L;
  static final int WORDS_PER_SENTENCE = 5;
  static final int VOCABULARY = 40;

  private final int partitions;
  private final long perPartition;
  private final int batch;

  SentenceSpout(int partitions, long perPartition, int batch) {
    this.partitions = partitions;
    this.perPartition = perPartition;
    this.batch = batch;
  }

  /** The words of sentence {@code offset} of partition {@code partition}. */
  static List<String> words(int partition, long offset) {
    SplittableRandom r = new SplittableRandom(partition * 1_000_003L + offset * 31L + 7);
    List<String> out = new ArrayList<>(WORDS_PER_SENTENCE);
    for (int i = 0; i < WORDS_PER_SENTENCE; i++) {
      out.add("w" + r.nextInt(VOCABULARY));
    }
    return out;
  }

  /** The recount of the whole data set. */
  Map<String, Long> recount() {
    Map<String, Long> out = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      for (long o = 0; o < perPartition; o++) {
        for (String w : words(p, o)) {
          out.merge(w, 1L, Long::sum);
        }
      }
    }
    return out;
  }

  /** One partition of the data set. */
  record Part(int index) implements ISpoutPartition {
    @Override
    public String getId() {
      return "sentences-" + index;
    }
  }

  @Override
  public Emitter<Integer, Part, Long> getEmitter(Map<String, Object> conf, TopologyContext context) {
    return new Emitter<>() {
      @Override
      public Map<Part, Long> emitBatchNew(TransactionAttempt tx, TridentCollector collector, Set<Part> owned,
          Map<Part, Long> last) {
        Map<Part, Long> next = new HashMap<>();
        for (Part p : owned) {
          Object prev = last.get(p);
          long from = prev == null ? 0L : ((Number) prev).longValue();
          long to = Math.min(perPartition, from + batch);
          for (long o = from; o < to; o++) {
            collector.emit(new Values(String.join(" ", words(p.index(), o))));
          }
          next.put(p, to);
        }
        return next;
      }

      @Override
      public void refreshPartitions(List<Part> responsibilities) {
      }

      @Override
      public List<Part> getOrderedPartitions(Integer count) {
        List<Part> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
          out.add(new Part(i));
        }
        return out;
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
        return partitions;
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
