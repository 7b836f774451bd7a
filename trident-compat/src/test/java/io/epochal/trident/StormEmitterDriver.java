package io.epochal.trident;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.storm.Config;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.trident.operation.TridentCollector;
import org.apache.storm.trident.operation.builtin.Count;
import org.apache.storm.trident.spout.ICommitterTridentSpout;
import org.apache.storm.trident.spout.IOpaquePartitionedTridentSpout;
import org.apache.storm.trident.spout.OpaquePartitionedTridentSpoutExecutor;
import org.apache.storm.trident.state.CombinerValueUpdater;
import org.apache.storm.trident.state.ValueUpdater;
import org.apache.storm.trident.state.map.MapState;
import org.apache.storm.trident.topology.TransactionAttempt;
import org.apache.storm.tuple.Fields;

/** Storm's own executor emitter of one spout task, and the batches it emitted per txid (last attempt). */
final class StormEmitterDriver {
  private final ICommitterTridentSpout.Emitter emitter;
  private final Object coordinatorMeta;
  private final Map<Long, TransactionAttempt> attempts = new HashMap<>();
  final Map<Long, List<String>> emitted = new HashMap<>();
  /** Every tuple the emitter sent to the collector, of refused batches too. */
  long sent;

  @SuppressWarnings({"unchecked", "rawtypes"})
  StormEmitterDriver(IOpaquePartitionedTridentSpout<?, ?, ?> spout, Map<String, Object> conf) {
    TopologyContext context = StormContexts.topologyContext("spout", conf, new Fields("sentence"), 0, 1);
    this.emitter = new OpaquePartitionedTridentSpoutExecutor((IOpaquePartitionedTridentSpout) spout)
        .getEmitter("spout-state-" + conf.get(Config.STORM_ID), conf, context);
    this.coordinatorMeta = spout.getCoordinator(conf, context).getPartitionsForBatch();
  }

  /** Storm's {@code emitBatch} of one attempt; returns how many sentences it emitted. */
  int emit(long txid, int attempt) {
    TransactionAttempt tx = new TransactionAttempt(txid, attempt);
    List<String> sentences = new ArrayList<>();
    emitter.emitBatch(tx, coordinatorMeta, new TridentCollector() {
      @Override
      public void emit(List<Object> values) {
        sentences.add((String) values.get(0));
        sent++;
      }

      @Override
      public void flush() {
      }

      @Override
      public void reportError(Throwable t) {
        throw new AssertionError(t);
      }
    });
    attempts.put(txid, tx);
    emitted.put(txid, sentences);
    return sentences.size();
  }

  /** The commit of a batch as Trident runs it: every state partition, then the spout's commit and success. */
  @SuppressWarnings("rawtypes")
  void commit(long txid, List<MapState<Object>> states) {
    Map<String, Long> words = new TreeMap<>();
    for (String s : emitted.get(txid)) {
      for (String w : s.split(" ")) {
        words.merge(w, 1L, Long::sum);
      }
    }
    List<List<Object>> keys = new ArrayList<>();
    List<ValueUpdater> updaters = new ArrayList<>();
    words.forEach((w, n) -> {
      keys.add(List.of(w));
      updaters.add(new CombinerValueUpdater(new Count(), n));
    });
    for (MapState<Object> state : states) {
      state.beginCommit(txid);
      if (!keys.isEmpty()) {
        state.multiUpdate(keys, updaters);
      }
      state.commit(txid);
    }
    emitter.commit(attempts.get(txid));
    emitter.success(attempts.get(txid));
  }

  /** Emits and commits the following batches in order until the spout has nothing left. */
  void drain(long fromTxid, List<MapState<Object>> states) {
    for (long t = fromTxid; ; t++) {
      int n = emit(t, 0);
      commit(t, states);
      if (n == 0) {
        return;
      }
    }
  }
}
