package io.epochal.trident;

import io.epochal.spout.BatchAttempt;
import io.epochal.state.Epoch;
import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.state.MapState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.storm.trident.state.ValueUpdater;
import org.apache.storm.trident.state.map.RemovableMapState;
import org.apache.storm.trident.state.snapshot.Snapshottable;

/**
 * A Trident {@code MapState} (and {@code Snapshottable}, for non-grouped {@code persistentAggregate}) over an Epochal
 * {@link MapState} with {@code List<Object>} keys: how Epochal's {@code TransactionalMap} and {@code OpaqueMap} run
 * inside a Storm topology, and how a Trident {@code StateUpdater} or {@code QueryFunction} sees an Epochal map on the
 * Epochal engine.
 *
 * <p>Txids: Trident passes the batch's txid to {@link #beginCommit(Long)} and leaves it set until
 * {@link #commit(Long)}; the view begins the Epochal map with the epoch of that txid ({@code Epoch.of}) and ends it
 * at the commit. Outside a commit (Trident's {@code stateQuery}, DRPC) reads see the latest committed value
 * (Trident's {@code t = null}), through a read-only epoch begun and ended around each read; updates are refused,
 * since an Epochal cell always carries a txid (Trident's non-transactional "always apply" cannot be made
 * exactly-once). Such calls, and other misuse no retry can fix (mismatched key and value lists, null values), throw a
 * non-retryable {@link EpochalException}. With {@code drivesLifecycle} false (a view handed to a Trident operation on
 * the Epochal engine, which drives the map itself with its own epoch), {@code beginCommit}/{@code commit} only set
 * the txid.
 *
 * <p>Differences from Trident's maps, all documented in the module's README section: a stored txid ahead of the
 * batch throws {@link io.epochal.errors.StateAheadException} for the transactional map too; null values and null
 * results of updaters are refused (a map over a Trident store takes removals through {@code multiRemove}, see
 * {@link Removing}); duplicate keys within one call are applied one after the other (the second builds on the first)
 * where Trident applies both to the same stored value and keeps the last. Keys are copied, so Trident's tuple views
 * may be passed. Not thread-safe, like Trident's maps: one instance per state partition.
 */
class EpochalMapView implements org.apache.storm.trident.state.map.MapState<Object>, Snapshottable<Object> {
  /** The key of the global value of a non-grouped aggregate. */
  static final List<Object> GLOBAL_KEY = List.of("$EPOCHAL-MAP-STATE-GLOBAL$");
  /** The pipeline named in the epochs the view opens for Storm's batches. */
  static final String STORM_PIPELINE = "storm";

  private final MapState<List<Object>, Object> map;
  private final boolean drivesLifecycle;
  private Long currentTxid;

  EpochalMapView(MapState<List<Object>, Object> map, boolean drivesLifecycle) {
    this.map = Objects.requireNonNull(map, "map");
    this.drivesLifecycle = drivesLifecycle;
  }

  /**
   * A view of {@code map}; a Trident {@code RemovableMapState} too when the map can hold Trident's removal cells (an
   * Epochal map over a Trident {@code IBackingMap}, see {@link TridentNullCells}).
   */
  static EpochalMapView of(MapState<List<Object>, Object> map, boolean drivesLifecycle) {
    return TridentNullCells.removable(map).<EpochalMapView>map(r -> new Removing(r, drivesLifecycle))
        .orElseGet(() -> new EpochalMapView(map, drivesLifecycle));
  }

  /** A view for a Trident operation running inside batch {@code txid} of the Epochal engine. */
  static EpochalMapView during(MapState<List<Object>, Object> map, long txid) {
    EpochalMapView view = of(map, false);
    view.currentTxid = txid;
    return view;
  }

  /**
   * The view of a map that can hold Trident's removal cells: {@code multiRemove} writes cells without a value, as
   * Storm's {@code MemoryMapState} does (a {@code multiPut} of nulls through its {@code OpaqueMap}), so that a replay
   * of the removing batch reads the value from before it.
   */
  static final class Removing extends EpochalMapView implements RemovableMapState<Object> {
    private final TridentNullCells.Removable removable;

    Removing(TridentNullCells.Removable map, boolean drivesLifecycle) {
      super(map, drivesLifecycle);
      this.removable = map;
    }

    @Override
    public void multiRemove(List<List<Object>> keys) {
      requireTxid("multiRemove");
      removable.multiRemove(copy(keys));
    }
  }

  MapState<List<Object>, Object> epochalMap() {
    return map;
  }

  @Override
  public void beginCommit(Long txid) {
    currentTxid = txid;
    if (drivesLifecycle && txid != null) {
      map.begin(Epoch.of(STORM_PIPELINE, new BatchAttempt(txid, 1)));
    }
  }

  @Override
  public void commit(Long txid) {
    if (drivesLifecycle && txid != null) {
      map.end();
    }
    currentTxid = null;
  }

  @Override
  public List<Object> multiGet(List<List<Object>> keys) {
    List<List<Object>> copies = copy(keys);
    Map<List<Object>, Object> found;
    if (currentTxid != null || !drivesLifecycle) {
      found = map.multiGet(copies);
    } else {
      map.begin(Epoch.readAfter(STORM_PIPELINE, Long.MAX_VALUE - 1)); // the latest committed values
      try {
        found = map.multiGet(copies);
      } finally {
        map.end();
      }
    }
    List<Object> out = new ArrayList<>(copies.size());
    for (List<Object> key : copies) {
      out.add(found.get(key));
    }
    return out;
  }

  @Override
  @SuppressWarnings({"rawtypes", "unchecked"})
  public List<Object> multiUpdate(List<List<Object>> keys, List<ValueUpdater> updaters) {
    requireTxid("multiUpdate");
    if (keys.size() != updaters.size()) {
      throw misuse("multiUpdate of " + map + " with " + keys.size() + " keys but " + updaters.size() + " updaters");
    }
    List<List<Object>> copies = copy(keys);
    Object[] out = new Object[copies.size()];
    for (Map<Integer, List<Object>> round : rounds(copies)) {
      Map<List<Object>, io.epochal.state.ValueUpdater<Object>> batch = new LinkedHashMap<>();
      for (Map.Entry<Integer, List<Object>> e : round.entrySet()) {
        ValueUpdater updater = updaters.get(e.getKey());
        if (updater == null) {
          throw misuse("multiUpdate of " + map + " with a null updater for key " + e.getValue());
        }
        batch.put(e.getValue(), (Optional<Object> stored) -> updater.update(stored.orElse(null)));
      }
      Map<List<Object>, Object> updated = map.multiUpdate(batch);
      round.forEach((i, key) -> out[i] = updated.get(key));
    }
    return java.util.Arrays.asList(out);
  }

  @Override
  public void multiPut(List<List<Object>> keys, List<Object> vals) {
    requireTxid("multiPut");
    if (keys.size() != vals.size()) {
      throw misuse("multiPut of " + map + " with " + keys.size() + " keys but " + vals.size() + " values");
    }
    List<List<Object>> copies = copy(keys);
    for (Map<Integer, List<Object>> round : rounds(copies)) {
      Map<List<Object>, Object> batch = new LinkedHashMap<>();
      round.forEach((i, key) -> {
        Object value = vals.get(i);
        if (value == null) {
          throw misuse("multiPut of null for key " + key + " of " + map + ": Epochal states hold no null values"
              + (this instanceof RemovableMapState ? "; remove the key with RemovableMapState.multiRemove" : ""));
        }
        batch.put(key, value);
      });
      map.multiPut(batch);
    }
  }

  @Override
  public Object get() {
    return multiGet(List.of(GLOBAL_KEY)).get(0);
  }

  @Override
  @SuppressWarnings("rawtypes")
  public Object update(ValueUpdater updater) {
    return multiUpdate(List.of(GLOBAL_KEY), List.of(updater)).get(0);
  }

  @Override
  public void set(Object o) {
    multiPut(List.of(GLOBAL_KEY), java.util.Collections.singletonList(o));
  }

  final long requireTxid(String call) {
    if (currentTxid == null) {
      throw misuse(call + " outside a transactional batch: Epochal's " + map
          + " stores a txid with every value and cannot be updated by a non-transactional stream (DRPC, or a call "
          + "outside beginCommit/commit). Trident's maps apply such updates blindly; Epochal refuses them.");
    }
    return currentTxid;
  }

  /** A call no retry can make valid: the Trident code using the view is wired wrongly. */
  final EpochalException misuse(String message) {
    return new EpochalException(message, null, false, ErrorContext.NONE);
  }

  final List<List<Object>> copy(List<List<Object>> keys) {
    if (keys == null) {
      throw misuse("null key list for " + map);
    }
    List<List<Object>> out = new ArrayList<>(keys.size());
    for (List<Object> key : keys) {
      if (key == null) {
        throw misuse("null key for " + map + ": Trident keys are the lists of the grouping fields' values");
      }
      out.add(new ArrayList<>(key));
    }
    return out;
  }

  /** Splits the key positions into rounds in which every key occurs once, keeping the call order of duplicates. */
  private static List<Map<Integer, List<Object>>> rounds(List<List<Object>> keys) {
    List<Map<Integer, List<Object>>> rounds = new ArrayList<>();
    Map<List<Object>, Integer> seen = new HashMap<>();
    for (int i = 0; i < keys.size(); i++) {
      int r = seen.merge(keys.get(i), 1, Integer::sum) - 1;
      if (r == rounds.size()) {
        rounds.add(new LinkedHashMap<>());
      }
      rounds.get(r).put(i, keys.get(i));
    }
    return rounds;
  }

  @Override
  public String toString() {
    return "EpochalMapView[" + map + "]";
  }
}
