package io.epochal.examples;

import io.epochal.state.InMemoryBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import io.epochal.state.opaque.OpaqueMap;
import io.epochal.state.opaque.OpaqueValue;
import io.epochal.state.transactional.TransactionalMap;
import io.epochal.state.transactional.TransactionalValue;
import io.epochal.store.Checkpoint;
import io.epochal.store.CheckpointStore;
import io.epochal.store.InMemoryCheckpointStore;
import java.util.HashMap;
import java.util.Map;

/** Where an example keeps its states and checkpoint; the CLI picks one with {@code --store}. */
interface ExampleStore extends AutoCloseable {

  /** The checkpoint store (wrapped with the run's random faults). */
  CheckpointStore checkpoints(RandomFaults faults);

  /** A map state named {@code name} with the txid rule of {@code kind} ("transactional" or "opaque"). */
  StateFactory<MapState<String, Long>> counts(String name, String kind, RandomFaults faults);

  /** A map state of strings (e.g. show id → banner id). */
  StateFactory<MapState<String, String>> strings(String name, String kind, RandomFaults faults);

  /** The checkpoint of pipeline {@code pipeline} as committed (read past the run's faults). */
  Checkpoint checkpoint(String pipeline);

  /** The committed values of state {@code name}. */
  Map<String, Object> read(String name);

  /** A description for the run header. */
  String describe();

  @Override
  default void close() {
  }

  /** In-memory maps on the per-key (Trident) protocol. */
  static ExampleStore inMemory() {
    return new ExampleStore() {
      private final InMemoryCheckpointStore checkpoints = new InMemoryCheckpointStore();
      private final Map<String, InMemoryBackingMap<String, ?>> maps = new HashMap<>();

      @Override
      public CheckpointStore checkpoints(RandomFaults faults) {
        return faults.wrap(checkpoints);
      }

      @Override
      public StateFactory<MapState<String, Long>> counts(String name, String kind, RandomFaults faults) {
        return factory(name, kind, faults);
      }

      @Override
      public StateFactory<MapState<String, String>> strings(String name, String kind, RandomFaults faults) {
        return factory(name, kind, faults);
      }

      private <V> StateFactory<MapState<String, V>> factory(String name, String kind, RandomFaults faults) {
        if (kind.equals("opaque")) {
          InMemoryBackingMap<String, OpaqueValue<V>> backing = new InMemoryBackingMap<>(name);
          maps.put(name, backing);
          return OpaqueMap.factory(faults.wrap(backing));
        }
        InMemoryBackingMap<String, TransactionalValue<V>> backing = new InMemoryBackingMap<>(name);
        maps.put(name, backing);
        return TransactionalMap.factory(faults.wrap(backing));
      }

      @Override
      public Checkpoint checkpoint(String pipeline) {
        return checkpoints.load(pipeline);
      }

      @Override
      public Map<String, Object> read(String name) {
        Map<String, Object> out = new HashMap<>();
        maps.get(name).snapshot().forEach((k, cell) -> out.put(k,
            cell instanceof OpaqueValue<?> o ? o.curr() : ((TransactionalValue<?>) cell).value()));
        return out;
      }

      @Override
      public String describe() {
        return "in-memory maps, per-key (Trident) protocol";
      }
    };
  }
}
