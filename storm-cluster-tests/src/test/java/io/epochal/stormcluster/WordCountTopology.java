package io.epochal.stormcluster;

import io.epochal.store.table.TableStore;
import io.epochal.trident.EpochalTrident;
import io.epochal.trident.StormStateBuilder;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.trident.TridentTopology;
import org.apache.storm.trident.spout.IOpaquePartitionedTridentSpout;
import org.apache.storm.trident.spout.ISpoutPartition;
import org.apache.storm.trident.operation.BaseFunction;
import org.apache.storm.trident.operation.TridentCollector;
import org.apache.storm.trident.operation.builtin.Count;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Values;

/**
 * The word count the cluster runs: sentences (through the STORM-1557 guard), split, grouped, counted into Epochal
 * opaque state on a shared store (PostgreSQL, or the YTsaurus protocol double).
 */
final class WordCountTopology {
  static final String TABLE = "word_counts";

  private WordCountTopology() {
  }

  /** Splits a sentence into words. Stateless. */
  static final class Split extends BaseFunction {
    private static final long serialVersionUID = 1L;

    @Override
    public void execute(TridentTuple tuple, TridentCollector collector) {
      for (String w : tuple.getString(0).split(" ")) {
        collector.emit(new Values(w));
      }
    }
  }

  /**
   * The word count over any partitioned opaque spout whose field {@code sentenceField} holds a sentence (e.g.
   * storm-kafka-client's {@code KafkaTridentSpoutOpaque}, field {@code value}), its state and the guard's ledger in
   * the store {@code store} opens in each worker.
   */
  static StormTopology build(IOpaquePartitionedTridentSpout<?, ?, ?> spout, String sentenceField,
      EpochalTrident.SerializableSupplier<? extends TableStore> store, int stateParallelism) {
    TridentTopology t = new TridentTopology();
    StormStateBuilder state = EpochalTrident.stormState("cluster", store, TABLE);
    // The spout's ranges are recorded beside the state (STORM-1557 guard), in the same store.
    t.newStream("sentences", guarded(state, spout)).parallelismHint(2)
        .each(new Fields(sentenceField), new Split(), new Fields("word"))
        .groupBy(new Fields("word"))
        .persistentAggregate(state.opaque(), new Count(), new Fields("count"))
        .parallelismHint(stateParallelism);
    return t.build();
  }

  private static <P, Q extends ISpoutPartition, M> IOpaquePartitionedTridentSpout<P, Q, M> guarded(
      StormStateBuilder state, IOpaquePartitionedTridentSpout<P, Q, M> spout) {
    return state.guard("sentences", spout);
  }
}
