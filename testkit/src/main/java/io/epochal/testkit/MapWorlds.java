package io.epochal.testkit;

import static io.epochal.testkit.ReplayResources.closeIfCloseable;
import static io.epochal.testkit.ReplayResources.deleteRecursively;
import static io.epochal.testkit.ReplayResources.newRunDirectory;

import io.epochal.state.IBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.StateFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The worlds of the map targets that are not table stores: {@link ReplayCheck#forBackingMap},
 * {@link ReplayCheck#forDurableBackingMap} and {@link ReplayCheck#forMapState}. The factories throw
 * {@link NullPointerException} for a null argument. Stateless; each world belongs to one run.
 */
final class MapWorlds {
  private MapWorlds() {
  }

  /** A new backing map per run, kept across the run's simulated crashes, under {@code rule}. */
  static <K, C, V> ReplayWorld.Factory<K, V> backingMap(Supplier<? extends IBackingMap<K, C>> newStore,
      Function<? super IBackingMap<K, C>, ? extends StateFactory<? extends MapState<K, V>>> rule) {
    Objects.requireNonNull(newStore, "newStore");
    Objects.requireNonNull(rule, "rule");
    return (faults, pipeline) -> {
      IBackingMap<K, C> raw = Objects.requireNonNull(newStore.get(), "newStore returned null");
      return new ReplayWorld<K, V>() {
        @Override
        public StateFactory<? extends MapState<K, V>> states(ReplayContext context) {
          return rule.apply(context.wrap(raw));
        }

        @Override
        public StateFactory<? extends MapState<K, V>> reader() {
          return rule.apply(raw);
        }

        @Override
        public void close() {
          closeIfCloseable(raw);
        }
      };
    };
  }

  /** A backing map reopened from the run's directory on every start and restart, and for the final read. */
  static <K, C, V> ReplayWorld.Factory<K, V> durableBackingMap(ReplayCheck.BackingMapOpener<K, C> open,
      Function<? super IBackingMap<K, C>, ? extends StateFactory<? extends MapState<K, V>>> rule) {
    Objects.requireNonNull(open, "open");
    Objects.requireNonNull(rule, "rule");
    return (faults, pipeline) -> new ReplayWorld<K, V>() {
      private final Path dir = newRunDirectory();
      private final List<Object> abandoned = new ArrayList<>();
      private IBackingMap<K, C> map;

      private IBackingMap<K, C> reopen() {
        if (map != null) {
          abandoned.add(map); // dropped like a killed process's
        }
        try {
          map = Objects.requireNonNull(open.open(dir), "the map opener returned null");
        } catch (RuntimeException e) {
          throw e;
        } catch (Exception e) {
          throw new IllegalStateException("the map opener failed to open " + dir, e);
        }
        return map;
      }

      @Override
      public StateFactory<? extends MapState<K, V>> states(ReplayContext context) {
        return rule.apply(context.wrap(reopen()));
      }

      @Override
      public StateFactory<? extends MapState<K, V>> reader() {
        if (map != null) {
          IBackingMap<K, C> last = map;
          map = null;
          closeIfCloseable(last); // the run is over: a clean shutdown, then a fresh map reads the final state
        }
        return rule.apply(reopen());
      }

      @Override
      public String restartNote() {
        return "reopens the map from its durable part (the old map object is dropped)";
      }

      @Override
      public void close() {
        try {
          closeIfCloseable(map);
          for (Object dead : abandoned) {
            closeIfCloseable(dead);
          }
        } finally {
          deleteRecursively(dir);
        }
      }
    };
  }

  /** A factory over new storage per run, its states wrapped by the injector; the final state read unwrapped. */
  static <K, V> ReplayWorld.Factory<K, V> mapState(
      Supplier<? extends StateFactory<? extends MapState<K, V>>> newFactory) {
    Objects.requireNonNull(newFactory, "newFactory");
    return (faults, pipeline) -> {
      StateFactory<? extends MapState<K, V>> raw = Objects.requireNonNull(newFactory.get(),
          "newFactory returned null");
      return new ReplayWorld<K, V>() {
        @Override
        public StateFactory<? extends MapState<K, V>> states(ReplayContext context) {
          return context.wrapStates(raw);
        }

        @Override
        public StateFactory<? extends MapState<K, V>> reader() {
          return raw;
        }
      };
    };
  }
}
