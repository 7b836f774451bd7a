package io.epochal.testkit;

import io.epochal.pipeline.Partitioner;
import io.epochal.state.ReadOnlyMapState;
import io.epochal.state.StateFactory;
import io.epochal.store.CheckpointStore;
import io.epochal.store.ManualEpochs;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Reads the final state of a run through fresh states bound to the pipeline's checkpoint store. Stateless. */
final class StateReads {
  private StateReads() {
  }

  /**
   * Reads {@code keys} from the states {@code factory} makes for a pipeline, as batch {@code lastTxid + 1} would see
   * them: each key through a fresh state of its partition ({@link io.epochal.pipeline.Partitioner}), begun with the
   * read-only epoch {@link io.epochal.state.Epoch#readAfter Epoch.readAfter(pipeline, lastTxid)}.
   *
   * @return the keys that have a value
   */
  static <K, V> Map<K, V> readMap(StateFactory<? extends ReadOnlyMapState<K, V>> factory,
      CheckpointStore checkpoints, String pipeline, String stateName, int partitions, long lastTxid,
      Collection<? extends K> keys) {
    ManualEpochs epochs = new ManualEpochs(checkpoints, pipeline); // the states bind to its staging, open no epoch
    Map<Integer, List<K>> byPartition = new HashMap<>();
    for (K key : keys) {
      byPartition.computeIfAbsent(Partitioner.partition(key, partitions), p -> new ArrayList<>()).add(key);
    }
    Map<K, V> out = new HashMap<>();
    for (Map.Entry<Integer, List<K>> part : byPartition.entrySet()) {
      ReadOnlyMapState<K, V> state = factory.makeState(epochs.context(stateName, part.getKey(), partitions));
      try {
        state.begin(io.epochal.state.Epoch.readAfter(pipeline, lastTxid));
        out.putAll(state.multiGet(part.getValue()));
        state.end();
      } finally {
        ReplayResources.closeIfCloseable(state);
      }
    }
    return out;
  }
}
