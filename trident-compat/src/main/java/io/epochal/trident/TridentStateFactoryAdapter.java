package io.epochal.trident;

import io.epochal.state.MapState;
import io.epochal.state.StateContext;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An Epochal {@link StateFactory} over a user's Trident {@code StateFactory}: each partition gets its own copy of the
 * factory (as each Storm task deserializes its own) and {@code makeState(conf, metrics, partitionIndex,
 * numPartitions)} with a synthetic metrics context (again after an attempt in which the state failed: see
 * {@link TridentStateAdapter}). The kind is declared by the caller, since Trident states do not
 * declare it. Immutable and thread-safe.
 */
final class TridentStateFactoryAdapter implements StateFactory<MapState<List<Object>, Object>> {
  private final org.apache.storm.trident.state.StateFactory factory;
  private final StateKind kind;
  private final Map<String, Object> conf;

  TridentStateFactoryAdapter(org.apache.storm.trident.state.StateFactory factory, StateKind kind,
      Map<String, Object> conf) {
    this.factory = Objects.requireNonNull(factory, "factory");
    StormContexts.copy(factory); // fails now, not when the pipeline starts, if Storm could not copy it either
    this.kind = Objects.requireNonNull(kind, "kind");
    this.conf = Map.copyOf(Objects.requireNonNull(conf, "conf"));
  }

  @Override
  public MapState<List<Object>, Object> makeState(StateContext context) {
    org.apache.storm.trident.state.StateFactory copy = StormContexts.copy(factory);
    return new TridentStateAdapter(() -> copy.makeState(conf,
        StormContexts.topologyContext(context.stateName(), conf, null, context.partitionIndex(),
            context.numPartitions()),
        context.partitionIndex(), context.numPartitions()), context);
  }

  @Override
  public StateKind kind() {
    return kind;
  }

  @Override
  public boolean takesEveryBatch() {
    return true; // Storm gives every partition of a Trident state every batch; its states may rely on it
  }

  @Override
  public String describe() {
    return "Trident " + factory.getClass().getName() + " (" + kind + ")";
  }

  @Override
  public String toString() {
    return describe();
  }
}
