package io.epochal.trident;

import io.epochal.state.Epoch;
import io.epochal.state.MapState;
import io.epochal.state.StateContext;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;
import io.epochal.state.ValueUpdater;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Map states whose txids are those of the pipeline plus a fixed offset: how an Epochal pipeline (whose txids start at
 * 1) takes over cells that Trident wrote with txids up to the offset. Batch {@code t} reads and writes the cells as
 * batch {@code offset + t}, so Trident's last batches are not mistaken for batches ahead of the pipeline. The offset
 * must stay the same for the life of the state. Thread-safety is the wrapped state's.
 */
final class ShiftedStates {
  private ShiftedStates() {
  }

  static <K, V> StateFactory<MapState<K, V>> shift(StateFactory<? extends MapState<K, V>> factory, long offset) {
    Objects.requireNonNull(factory, "factory");
    if (offset < 0) {
      throw new IllegalArgumentException("the last Trident txid must be >= 0, was " + offset);
    }
    return new Factory<>(factory, offset);
  }

  private static final class Factory<K, V> implements StateFactory<MapState<K, V>> {
    final StateFactory<? extends MapState<K, V>> inner;
    final long offset;

    Factory(StateFactory<? extends MapState<K, V>> inner, long offset) {
      this.inner = inner;
      this.offset = offset;
    }

    @Override
    @SuppressWarnings("unchecked")
    public MapState<K, V> makeState(StateContext context) {
      MapState<K, V> state = inner.makeState(context);
      if (state instanceof TridentNullCells.Removable removable) {
        return (MapState<K, V>) (MapState<?, ?>) new RemovableShifted(removable, offset);
      }
      return new Shifted<>(state, offset);
    }

    @Override
    public StateKind kind() {
      return inner.kind();
    }

    /** Delegated: the states stage where the inner ones do (the epoch protocol still covers a table-backed one). */
    @Override
    public java.util.Optional<Class<? extends io.epochal.state.Staging>> staging() {
      return inner.staging();
    }

    @Override
    public boolean takesEveryBatch() {
      return inner.takesEveryBatch();
    }

    @Override
    public String describe() {
      return inner.describe() + ", continuing after Trident txid " + offset;
    }
  }

  /** A shifted map over Trident's store that keeps Trident's removals (see {@link TridentNullCells}). */
  private static final class RemovableShifted extends Shifted<List<Object>, Object>
      implements TridentNullCells.Removable {
    private final TridentNullCells.Removable removable;

    RemovableShifted(TridentNullCells.Removable inner, long offset) {
      super(inner, offset);
      this.removable = inner;
    }

    @Override
    public void multiRemove(Collection<? extends List<Object>> keys) {
      removable.multiRemove(keys);
    }
  }

  private static class Shifted<K, V> implements MapState<K, V> {
    private final MapState<K, V> inner;
    private final long offset;

    Shifted(MapState<K, V> inner, long offset) {
      this.inner = Objects.requireNonNull(inner, "the state factory returned null");
      this.offset = offset;
    }

    @Override
    public void begin(Epoch epoch) {
      inner.begin(new ShiftedEpoch(epoch, offset));
    }

    @Override
    public void end() {
      inner.end();
    }

    @Override
    public void abort() {
      inner.abort();
    }

    @Override
    public Map<K, V> multiGet(Collection<? extends K> keys) {
      return inner.multiGet(keys);
    }

    @Override
    public Map<K, V> multiUpdate(Map<K, ? extends ValueUpdater<V>> updaters) {
      return inner.multiUpdate(updaters);
    }

    @Override
    public void multiPut(Map<K, V> values) {
      inner.multiPut(values);
    }

    @Override
    public String toString() {
      return inner + " (txids shifted by " + offset + ")";
    }
  }

  /**
   * The epoch of batch {@code t} as the shifted state sees it: batch {@code offset + t}, same attempt, pipeline,
   * read-only flag and staging.
   */
  private record ShiftedEpoch(Epoch pipelineEpoch, long offset) implements Epoch {
    @Override
    public String pipeline() {
      return pipelineEpoch.pipeline();
    }

    @Override
    public io.epochal.spout.BatchAttempt attempt() {
      io.epochal.spout.BatchAttempt a = pipelineEpoch.attempt();
      long t = a.txid();
      // a read-only epoch of "the latest" (Long.MAX_VALUE) stays the latest
      long shifted = pipelineEpoch.readOnly() && t > Long.MAX_VALUE - offset ? Long.MAX_VALUE
          : Math.addExact(t, offset);
      return new io.epochal.spout.BatchAttempt(shifted, a.attempt());
    }

    @Override
    public boolean readOnly() {
      return pipelineEpoch.readOnly();
    }

    @Override
    public <T> java.util.Optional<T> staging(Class<T> type) {
      return pipelineEpoch.staging(type);
    }

    @Override
    public String toString() {
      return pipelineEpoch + " (as Trident txid " + attempt().txid() + ")";
    }
  }
}
