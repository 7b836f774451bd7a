package io.epochal.testkit;

import io.epochal.pipeline.CombinerAggregator;
import io.epochal.pipeline.Stream;
import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The sessions of the check targets: a map target's aggregation over its world
 * ({@link ReplayCheck.MapTarget#aggregate}) and a user's pipeline over its own world ({@link ReplayCheck#forPipeline}).
 * The factories throw {@link NullPointerException} for a null argument. Stateless; each session belongs to one run.
 */
final class ReplaySessions {
  private ReplaySessions() {
  }

  /**
   * {@code source.<K>groupBy(keyFn).persistentAggregate(STATE_NAME, states, aggregator)} over a world of
   * {@code worlds}; the compared state is the value of every key of the input, read as the next batch would see it.
   */
  static <T, K, V> ReplaySession.Target<T, K, V> aggregate(ReplayWorld.Factory<K, V> worlds,
      Function<? super T, ? extends K> keyFn, CombinerAggregator<? super T, V> aggregator) {
    Objects.requireNonNull(keyFn, "keyFn");
    Objects.requireNonNull(aggregator, "aggregator");
    return (faults, pipeline) -> {
      ReplayWorld<K, V> world = worlds.open(faults, pipeline);
      return new ReplaySession<T, K, V>() {
        @Override
        public void declare(Stream<T> source, ReplayContext context) {
          source.<K>groupBy(keyFn).persistentAggregate(ReplayCheck.STATE_NAME, world.states(context), aggregator);
        }

        @Override
        public Map<K, V> read(List<T> input, int partitions, long lastTxid) {
          Set<K> keys = new LinkedHashSet<>();
          for (T record : input) {
            keys.add(keyFn.apply(record));
          }
          StateFactory<? extends MapState<K, V>> reader = world.reader();
          return StateReads.readMap(reader, world.readerCheckpoints(), pipeline, ReplayCheck.STATE_NAME, partitions,
              lastTxid, keys);
        }

        @Override
        public String restartNote() {
          return world.restartNote();
        }

        @Override
        public void close() {
          world.close();
        }
      };
    };
  }

  /** The user's {@code topology} over a new world per run; the compared state is what {@code reader} reads. */
  static <W, T, K, V> ReplaySession.Target<T, K, V> pipeline(Supplier<? extends W> newWorld,
      ReplayCheck.PipelineUnderTest<T, W> topology, Function<? super W, ? extends Map<K, V>> reader) {
    Objects.requireNonNull(newWorld, "newWorld");
    Objects.requireNonNull(topology, "topology");
    Objects.requireNonNull(reader, "reader");
    return (faults, pipeline) -> {
      W world = Objects.requireNonNull(newWorld.get(), "newWorld returned null");
      return new ReplaySession<T, K, V>() {
        @Override
        public void declare(Stream<T> source, ReplayContext context) {
          topology.declare(source, world, context);
        }

        @Override
        public Map<K, V> read(List<T> input, int partitions, long lastTxid) {
          return Map.copyOf(Objects.requireNonNull(reader.apply(world), "reader returned null"));
        }

        @Override
        public void close() {
          ReplayResources.closeIfCloseable(world);
        }
      };
    };
  }
}
