package io.epochal.testkit;

import io.epochal.state.MapState;
import io.epochal.state.StateContext;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;

/**
 * The map-state factory wrapper of {@link FaultInjector#wrapStates(StateFactory)}: makes each state of the wrapped
 * factory a {@link FaultInjectingMapState}, and keeps the factory's {@link StateKind}, staging and batch needs (so the
 * epoch protocol still covers a table-backed factory). Thread-safe if the wrapped factory is.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
final class FaultInjectingStateFactory<K, V> implements StateFactory<MapState<K, V>> {
  final FaultInjector injector;
  final StateFactory<MapState<K, V>> factory;

  FaultInjectingStateFactory(FaultInjector injector, StateFactory<MapState<K, V>> factory) {
    this.injector = injector;
    this.factory = factory;
  }

  @Override
  public MapState<K, V> makeState(StateContext context) {
    return new FaultInjectingMapState<>(injector, factory.makeState(context));
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
