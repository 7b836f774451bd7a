package io.epochal.trident;

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
    public void multiRemove(long txid, Collection<? extends List<Object>> keys) {
      removable.multiRemove(shift(txid), keys);
    }
  }

  private static class Shifted<K, V> implements MapState<K, V> {
    private final MapState<K, V> inner;
    private final long offset;

    Shifted(MapState<K, V> inner, long offset) {
      this.inner = Objects.requireNonNull(inner, "the state factory returned null");
      this.offset = offset;
    }

    final long shift(long txid) {
      return txid == Long.MAX_VALUE ? txid : Math.addExact(txid, offset);
    }

    @Override
    public void beginCommit(long txid) {
      inner.beginCommit(shift(txid));
    }

    @Override
    public void commit(long txid) {
      inner.commit(shift(txid));
    }

    @Override
    public void abort(long txid) {
      inner.abort(shift(txid));
    }

    @Override
    public Map<K, V> multiGet(long txid, Collection<? extends K> keys) {
      return inner.multiGet(shift(txid), keys);
    }

    @Override
    public Map<K, V> multiUpdate(long txid, Map<K, ? extends ValueUpdater<V>> updaters) {
      return inner.multiUpdate(shift(txid), updaters);
    }

    @Override
    public void multiPut(long txid, Map<K, V> values) {
      inner.multiPut(shift(txid), values);
    }

    @Override
    public String toString() {
      return inner + " (txids shifted by " + offset + ")";
    }
  }
}
