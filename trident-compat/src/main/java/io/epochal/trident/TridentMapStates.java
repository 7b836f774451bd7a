package io.epochal.trident;

import io.epochal.state.IBackingMap;
import io.epochal.state.MapState;
import io.epochal.state.NonTransactionalMap;
import io.epochal.state.StateContext;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;
import io.epochal.state.opaque.OpaqueMap;
import io.epochal.state.transactional.TransactionalMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The Epochal state factories behind {@link EpochalTrident}'s states on the Epochal engine: Epochal's maps over a
 * Trident {@code IBackingMap} ({@link TridentBackingMap}, with Trident's removal cells hidden by
 * {@link TridentNullCells}) and a whole Trident {@code StateFactory} ({@link TridentStateFactoryAdapter}). Stateless;
 * the factories are immutable and thread-safe.
 */
@SuppressWarnings({"rawtypes", "unchecked"})
final class TridentMapStates {
  private TridentMapStates() {
  }

  static <V> StateFactory<MapState<List<Object>, V>> opaque(
      org.apache.storm.trident.state.map.IBackingMap<org.apache.storm.trident.state.OpaqueValue> backing) {
    Objects.requireNonNull(backing, "backing");
    return opaque(context -> backing);
  }

  static <V> StateFactory<MapState<List<Object>, V>> opaque(Function<? super StateContext, ? extends
      org.apache.storm.trident.state.map.IBackingMap<org.apache.storm.trident.state.OpaqueValue>> backingPerPartition) {
    Objects.requireNonNull(backingPerPartition, "backingPerPartition");
    Object factory = TridentNullCells.hiding(OpaqueMap.<List<Object>, Object>factory(
        context -> new TridentBackingMap<>(
            (org.apache.storm.trident.state.map.IBackingMap) backingPerPartition.apply(context),
            TridentBackingMap.OPAQUE, context.stateName())));
    return (StateFactory<MapState<List<Object>, V>>) factory;
  }

  static <V> StateFactory<MapState<List<Object>, V>> transactional(
      org.apache.storm.trident.state.map.IBackingMap<org.apache.storm.trident.state.TransactionalValue> backing) {
    Objects.requireNonNull(backing, "backing");
    Object factory = TridentNullCells.hiding(TransactionalMap.<List<Object>, Object>factory(
        context -> new TridentBackingMap<>((org.apache.storm.trident.state.map.IBackingMap) backing,
            TridentBackingMap.TRANSACTIONAL, context.stateName())));
    return (StateFactory<MapState<List<Object>, V>>) factory;
  }

  static <V> StateFactory<MapState<List<Object>, V>> nonTransactional(
      org.apache.storm.trident.state.map.IBackingMap<?> backing) {
    Objects.requireNonNull(backing, "backing");
    IBackingMap<List<Object>, V> adapted = (IBackingMap) new TridentBackingMap<>(
        (org.apache.storm.trident.state.map.IBackingMap) backing, TridentBackingMap.PLAIN, "non-transactional");
    return NonTransactionalMap.factory(adapted);
  }

  static <V> StateFactory<MapState<List<Object>, V>> trident(org.apache.storm.trident.state.StateFactory factory,
      StateKind kind, Map<String, Object> conf) {
    Object adapter = new TridentStateFactoryAdapter(factory, kind, conf);
    return (StateFactory<MapState<List<Object>, V>>) adapter;
  }
}
