package io.epochal.testkit;

import static io.epochal.testkit.FaultInjectingBackingMap.prefix;

import io.epochal.state.Epoch;
import io.epochal.state.MapState;
import io.epochal.state.RemovableMapState;
import java.util.ArrayList;
import java.util.List;
import io.epochal.state.ValueUpdater;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One state of a {@link FaultInjectingStateFactory}: fires {@link FaultPoint#BEFORE_STATE_WRITE} at the state's first
 * read or update of a batch and {@link FaultPoint#INSIDE_MULTIPUT} after applying the updates of a prefix of the keys,
 * (removals too: a prefix of the keys is deleted, over a {@link RemovableMapState}) and records what each read returned
 * and every value written in the injector's timeline. Confined to the partition that uses it, like the state it wraps.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
final class FaultInjectingMapState<K, V> implements RemovableMapState<K, V> {
  private final FaultInjector injector;
  private final MapState<K, V> state;
  /** The txid of the epoch this partition was begun with, for the timeline and the faults. */
  private long txid;

  FaultInjectingMapState(FaultInjector injector, MapState<K, V> state) {
    this.injector = injector;
    this.state = Objects.requireNonNull(state, "state factory returned null");
  }

  private void beforeWrite() {
    Fault f = injector.take(FaultPoint.BEFORE_STATE_WRITE);
    if (f != null) {
      throw injector.raise(f, f.txid());
    }
  }

  @Override
  public void begin(Epoch epoch) {
    txid = epoch.txid();
    state.begin(epoch);
  }

  @Override
  public void end() {
    state.end();
  }

  @Override
  public void abort() {
    state.abort();
  }

  @Override
  public Map<K, V> multiGet(Collection<? extends K> keys) {
    beforeWrite();
    Map<K, V> result = state.multiGet(keys);
    injector.timeline().read(txid, keys, result);
    return result;
  }

  @Override
  public Map<K, V> multiUpdate(Map<K, ? extends ValueUpdater<V>> updaters) {
    beforeWrite();
    Fault f = updaters.size() > 1 ? injector.take(FaultPoint.INSIDE_MULTIPUT) : null;
    if (f == null) {
      Map<K, V> result = state.multiUpdate(updaters);
      injector.timeline().wrote(txid, result);
      return result;
    }
    Map<K, ValueUpdater<V>> prefix = new LinkedHashMap<>(prefix(updaters, Math.min(f.prefix(),
        updaters.size() - 1)));
    injector.timeline().wrote(txid, state.multiUpdate(prefix));
    throw injector.raise(f, txid);
  }

  @Override
  public void multiPut(Map<K, V> values) {
    beforeWrite();
    Fault f = values.size() > 1 ? injector.take(FaultPoint.INSIDE_MULTIPUT) : null;
    if (f == null) {
      state.multiPut(values);
      injector.timeline().wrote(txid, values);
      return;
    }
    Map<K, V> prefix = prefix(values, Math.min(f.prefix(), values.size() - 1));
    state.multiPut(prefix);
    injector.timeline().wrote(txid, prefix);
    throw injector.raise(f, txid);
  }

  @Override
  public boolean canRemove() {
    return state instanceof RemovableMapState<K, V> r && r.canRemove();
  }

  /** @throws UnsupportedOperationException if the wrapped state is not a {@link RemovableMapState} */
  @Override
  public void multiRemove(Collection<? extends K> keys) {
    if (!(state instanceof RemovableMapState<K, V> removable)) {
      throw new UnsupportedOperationException(state + " cannot remove keys");
    }
    beforeWrite();
    Fault f = keys.size() > 1 ? injector.take(FaultPoint.INSIDE_MULTIPUT) : null;
    if (f == null) {
      removable.multiRemove(keys);
      return;
    }
    List<K> prefix = new ArrayList<K>(keys).subList(0, Math.min(f.prefix(), keys.size() - 1));
    removable.multiRemove(prefix);
    throw injector.raise(f, txid);
  }

  @Override
  public String toString() {
    return "FaultInjecting(" + state + ")";
  }
}
