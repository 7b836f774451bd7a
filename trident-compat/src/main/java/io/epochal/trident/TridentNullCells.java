package io.epochal.trident;

import io.epochal.state.Epoch;
import io.epochal.state.MapState;
import io.epochal.state.StateContext;
import io.epochal.state.StateFactory;
import io.epochal.state.StateKind;
import io.epochal.state.ValueUpdater;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Trident cells without a value ({@code [txid, null, prev]}, {@code [txid, null]}: what Storm's
 * {@code MemoryMapState.multiRemove} writes through its {@code OpaqueMap}) under Epochal's {@code OpaqueMap} and
 * {@code TransactionalMap}, which hold no null values. Such a cell is still a cell: it carries the txid of the batch
 * that removed the key and, for the opaque layout, the value before that batch. {@link TridentBackingMap} reads the
 * missing value as the marker {@link #REMOVED} (keeping txid and prev) and writes the marker back as null, so the
 * Epochal maps apply their txid rules to it unchanged: a replay of the removing batch reads {@code prev}, a removal
 * cell of a later batch is {@link io.epochal.errors.StateAheadException}, a later batch reads "absent". The
 * {@link Removable} map over them hides the marker (reads report the key absent, updaters see
 * {@code Optional.empty()}) and offers Trident's removal ({@link Removable#multiRemove}). Immutable factories;
 * the maps are as thread-safe as the wrapped map (one instance per partition).
 */
final class TridentNullCells {
  /** The value of a Trident cell without a value, as stored under Epochal's maps; never seen outside this package. */
  static final Object REMOVED = new Object() {
    @Override
    public String toString() {
      return "<no value: removed by batch>";
    }
  };

  private TridentNullCells() {
  }

  /** A map that can hold Trident's removal cells. */
  interface Removable extends MapState<List<Object>, Object> {
    /**
     * Trident's {@code RemovableMapState.multiRemove} in the open epoch's batch: each key gets a cell without a value
     * ({@code MemoryMapState}'s {@code multiPut} of nulls), under the map's txid rules.
     */
    void multiRemove(Collection<? extends List<Object>> keys);
  }

  /** @return the map as {@link Removable}, if it can hold Trident's removal cells */
  static Optional<Removable> removable(MapState<List<Object>, Object> map) {
    return map instanceof Removable r ? Optional.of(r) : Optional.empty();
  }

  /** Wraps a factory of Epochal maps over {@link TridentBackingMap}s so that the maps hide {@link #REMOVED}. */
  static StateFactory<MapState<List<Object>, Object>> hiding(StateFactory<MapState<List<Object>, Object>> inner) {
    return new HidingFactory(Objects.requireNonNull(inner, "inner"));
  }

  private static final class HidingFactory implements StateFactory<MapState<List<Object>, Object>> {
    private final StateFactory<MapState<List<Object>, Object>> inner;

    HidingFactory(StateFactory<MapState<List<Object>, Object>> inner) {
      this.inner = inner;
    }

    @Override
    public MapState<List<Object>, Object> makeState(StateContext context) {
      return new Hiding(inner.makeState(context));
    }

    @Override
    public StateKind kind() {
      return inner.kind();
    }

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
      return inner.describe();
    }

    @Override
    public String toString() {
      return inner.toString();
    }
  }

  /** An Epochal map whose cells may hold {@link #REMOVED}, seen as "no value". */
  private static final class Hiding implements Removable {
    private final MapState<List<Object>, Object> inner;

    Hiding(MapState<List<Object>, Object> inner) {
      this.inner = Objects.requireNonNull(inner, "the state factory returned null");
    }

    @Override
    public void begin(Epoch epoch) {
      inner.begin(epoch);
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
    public Map<List<Object>, Object> multiGet(Collection<? extends List<Object>> keys) {
      return present(inner.multiGet(keys));
    }

    @Override
    public Map<List<Object>, Object> multiUpdate(Map<List<Object>, ? extends ValueUpdater<Object>> updaters) {
      return present(inner.multiUpdate(new HidingUpdaters(Objects.requireNonNull(updaters, "updaters"))));
    }

    @Override
    public void multiPut(Map<List<Object>, Object> values) {
      inner.multiPut(values);
    }

    @Override
    public void multiRemove(Collection<? extends List<Object>> keys) {
      Map<List<Object>, Object> removals = new LinkedHashMap<>();
      for (List<Object> key : Objects.requireNonNull(keys, "keys")) {
        removals.put(Objects.requireNonNull(key, "key"), REMOVED);
      }
      if (!removals.isEmpty()) {
        inner.multiPut(removals);
      }
    }

    private static Map<List<Object>, Object> present(Map<List<Object>, Object> values) {
      if (!values.containsValue(REMOVED)) {
        return values;
      }
      Map<List<Object>, Object> out = new HashMap<>(values);
      out.values().removeIf(v -> v == REMOVED);
      return Collections.unmodifiableMap(out);
    }

    @Override
    public String toString() {
      return inner.toString();
    }
  }

  /** A view of the updaters in which a stored {@link #REMOVED} is handed on as {@code Optional.empty()}. */
  private static final class HidingUpdaters extends AbstractMap<List<Object>, ValueUpdater<Object>> {
    private final Map<List<Object>, ? extends ValueUpdater<Object>> updaters;

    HidingUpdaters(Map<List<Object>, ? extends ValueUpdater<Object>> updaters) {
      this.updaters = updaters;
    }

    private static ValueUpdater<Object> hiding(ValueUpdater<Object> updater) {
      if (updater == null) {
        return null;
      }
      return stored -> updater.update(stored.isPresent() && stored.get() == REMOVED ? Optional.empty() : stored);
    }

    @Override
    public int size() {
      return updaters.size();
    }

    @Override
    public boolean containsKey(Object key) {
      return updaters.containsKey(key);
    }

    @Override
    public ValueUpdater<Object> get(Object key) {
      return hiding(updaters.get(key));
    }

    @Override
    public Set<List<Object>> keySet() {
      return Collections.unmodifiableSet(updaters.keySet());
    }

    @Override
    public Set<Map.Entry<List<Object>, ValueUpdater<Object>>> entrySet() {
      return new AbstractSet<>() {
        @Override
        public int size() {
          return updaters.size();
        }

        @Override
        public Iterator<Map.Entry<List<Object>, ValueUpdater<Object>>> iterator() {
          Iterator<? extends Map.Entry<List<Object>, ? extends ValueUpdater<Object>>> it =
              updaters.entrySet().iterator();
          return new Iterator<>() {
            @Override
            public boolean hasNext() {
              return it.hasNext();
            }

            @Override
            public Map.Entry<List<Object>, ValueUpdater<Object>> next() {
              Map.Entry<List<Object>, ? extends ValueUpdater<Object>> e = it.next();
              return new AbstractMap.SimpleImmutableEntry<>(e.getKey(), hiding(e.getValue()));
            }
          };
        }
      };
    }
  }
}
