package io.epochal.testkit;

import io.epochal.state.BucketEntry;
import io.epochal.state.MapState;
import io.epochal.state.RemovableMapState;
import io.epochal.state.RemovableStateFactory;
import io.epochal.state.StateContext;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;

/**
 * The map-state factory wrapper of {@link FaultInjector#wrapStates(StateFactory)}: makes each state of the wrapped
 * factory a {@link FaultInjectingMapState}, and keeps the factory's {@link StateKind}, staging and batch needs (so the
 * epoch protocol still covers a table-backed factory). A {@link RemovableStateFactory} is wrapped by {@link #of} as one
 * ({@link Removable}), whose bucket states are wrapped too. Thread-safe if the wrapped factory is.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
class FaultInjectingStateFactory<K, V> implements StateFactory<MapState<K, V>> {
  final FaultInjector injector;
  final StateFactory<MapState<K, V>> factory;

  FaultInjectingStateFactory(FaultInjector injector, StateFactory<MapState<K, V>> factory) {
    this.injector = injector;
    this.factory = factory;
  }

  /** The wrapper of {@code factory}: a {@link Removable} for a {@link RemovableStateFactory}. */
  @SuppressWarnings("unchecked")
  static <K, V> FaultInjectingStateFactory<K, V> of(FaultInjector injector, StateFactory<MapState<K, V>> factory) {
    return factory instanceof RemovableStateFactory<?, ?> r
        ? new Removable<>(injector, (RemovableStateFactory<K, V>) r)
        : new FaultInjectingStateFactory<>(injector, factory);
  }

  @Override
  public MapState<K, V> makeState(StateContext context) {
    return new FaultInjectingMapState<>(injector, factory.makeState(context));
  }

  /** The wrapper of a {@link RemovableStateFactory}: its states and bucket states inject faults. */
  static final class Removable<K, V> extends FaultInjectingStateFactory<K, V> implements RemovableStateFactory<K, V> {
    private final RemovableStateFactory<K, V> removable;

    Removable(FaultInjector injector, RemovableStateFactory<K, V> factory) {
      super(injector, factory);
      this.removable = factory;
    }

    @Override
    public RemovableMapState<K, V> makeState(StateContext context) {
      return new FaultInjectingMapState<>(injector, removable.makeState(context));
    }

    @Override
    public StateFactory<RemovableMapState<BucketEntry, K>> buckets() {
      StateFactory<RemovableMapState<BucketEntry, K>> buckets = removable.buckets();
      return new StateFactory<>() {
        @Override
        public RemovableMapState<BucketEntry, K> makeState(StateContext context) {
          return new FaultInjectingMapState<>(injector, buckets.makeState(context));
        }

        @Override
        public StateKind kind() {
          return buckets.kind();
        }

        @Override
        public java.util.Optional<Class<? extends io.epochal.state.Staging>> staging() {
          return buckets.staging();
        }
      };
    }
  }

  @Override
  public StateKind kind() {
    return factory.kind();
  }

  /** Delegated: the wrapper stages nothing itself. */
  @Override
  public java.util.Optional<Class<? extends io.epochal.state.Staging>> staging() {
    return factory.staging();
  }

  @Override
  public boolean takesEveryBatch() {
    return factory.takesEveryBatch();
  }

  @Override
  public String describe() {
    return factory.describe();
  }
}
