package io.epochal.trident;

import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.StateAheadException;
import io.epochal.state.MapState;
import io.epochal.state.StateContext;
import io.epochal.state.ValueUpdater;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.storm.trident.state.State;
import org.apache.storm.trident.state.map.ReadOnlyMapState;

/**
 * An Epochal state holding one partition of a user's Trident {@link State} (made by their Trident
 * {@code StateFactory}), driven by the Epochal engine: {@code beginCommit(t)}/{@code commit(t)} are forwarded, and when
 * the Trident state is a Trident {@code MapState} the Epochal {@link MapState} calls are translated to it, so that
 * {@code persistentAggregate} and {@code lookup} work. {@code abort} does nothing: Trident states have no abort and
 * clear their per-batch caches at the next {@code beginCommit}. A Trident {@code OpaqueMap}'s "Current batch is behind
 * state's batch" error becomes {@link StateAheadException}, which stops the pipeline instead of being retried.
 *
 * <p>Values read from the Trident state, and the stored values handed to updaters, have {@code Integer},
 * {@code Short} and {@code Byte} widened to {@code Long} (a JSON-backed Trident store returns {@code Integer} on Storm
 * 2.6+). Semantics are otherwise the Trident state's own (this adapter adds none): a Trident
 * {@code TransactionalMap} still re-bases a value whose stored txid is ahead of the batch. Not thread-safe: one
 * instance per partition, as in Storm.
 */
final class TridentStateAdapter implements MapState<List<Object>, Object> {
  private static final Pattern BEHIND = Pattern.compile("Current batch \\((\\d+)\\) is behind state's batch");
  private static final Pattern STORED = Pattern.compile("currTxid=(\\d+)");

  private final State state;
  private final StateContext context;

  TridentStateAdapter(State state, StateContext context) {
    this.state = Objects.requireNonNull(state, "the Trident StateFactory returned a null state");
    this.context = context;
  }

  State tridentState() {
    return state;
  }

  StateContext context() {
    return context;
  }

  @Override
  public void beginCommit(long txid) {
    state.beginCommit(txid);
  }

  @Override
  public void commit(long txid) {
    state.commit(txid);
  }

  @Override
  public Map<List<Object>, Object> multiGet(long txid, Collection<? extends List<Object>> keys) {
    List<List<Object>> list = new ArrayList<>(keys);
    List<Object> values = translate(() -> readable().multiGet(list));
    return toMap(list, values);
  }

  @Override
  @SuppressWarnings("rawtypes")
  public Map<List<Object>, Object> multiUpdate(long txid, Map<List<Object>, ? extends ValueUpdater<Object>> updaters) {
    List<List<Object>> keys = new ArrayList<>(updaters.size());
    List<org.apache.storm.trident.state.ValueUpdater> tridentUpdaters = new ArrayList<>(updaters.size());
    updaters.forEach((key, updater) -> {
      keys.add(key);
      Objects.requireNonNull(updater, "updater");
      tridentUpdaters.add(stored -> updater.update(java.util.Optional.ofNullable(TridentJson.normalize(stored))));
    });
    List<Object> values = translate(() -> writable().multiUpdate(keys, tridentUpdaters));
    return toMap(keys, values);
  }

  @Override
  public void multiPut(long txid, Map<List<Object>, Object> values) {
    List<List<Object>> keys = new ArrayList<>(values.keySet());
    List<Object> vals = new ArrayList<>(keys.size());
    for (List<Object> key : keys) {
      vals.add(values.get(key));
    }
    translate(() -> {
      writable().multiPut(keys, vals);
      return null;
    });
  }

  private ReadOnlyMapState<Object> readable() {
    if (state instanceof ReadOnlyMapState<?> m) {
      @SuppressWarnings("unchecked")
      ReadOnlyMapState<Object> map = (ReadOnlyMapState<Object>) m;
      return map;
    }
    throw notAMap();
  }

  private org.apache.storm.trident.state.map.MapState<Object> writable() {
    if (state instanceof org.apache.storm.trident.state.map.MapState<?> m) {
      @SuppressWarnings("unchecked")
      org.apache.storm.trident.state.map.MapState<Object> map = (org.apache.storm.trident.state.map.MapState<Object>) m;
      return map;
    }
    throw notAMap();
  }

  private EpochalException notAMap() {
    return new EpochalException("state '" + context.stateName() + "' is a Trident "
        + state.getClass().getName() + ", not a Trident MapState: use it with partitionPersist and a Trident "
        + "StateUpdater (EpochalTrident.updater) or with EpochalTrident.stateQuery", null, false,
        ErrorContext.of(context.stateName(), null));
  }

  private <R> R translate(java.util.function.Supplier<R> call) {
    try {
      return call.get();
    } catch (RuntimeException e) {
      Matcher behind = e.getMessage() == null ? null : BEHIND.matcher(e.getMessage());
      if (behind != null && behind.find()) {
        Matcher stored = STORED.matcher(e.getMessage());
        long storedTxid = stored.find() ? Long.parseLong(stored.group(1)) : -1;
        StateAheadException ahead = new StateAheadException(context.stateName() + " (Trident "
            + state.getClass().getSimpleName() + ", partition " + context.partitionIndex() + ")",
            "(not reported by Trident)", storedTxid, Long.parseLong(behind.group(1)));
        ahead.addSuppressed(e);
        throw ahead;
      }
      throw e;
    }
  }

  private Map<List<Object>, Object> toMap(List<List<Object>> keys, List<Object> values) {
    if (values == null || values.size() != keys.size()) {
      throw new EpochalException("Trident state " + state.getClass().getName() + " returned "
          + (values == null ? "null" : values.size() + " values") + " for " + keys.size() + " keys: a broken Trident "
          + "MapState (one value, or null, per key, in order)", null, false, ErrorContext.of(context.stateName(), null));
    }
    Map<List<Object>, Object> out = new HashMap<>(Math.max(16, keys.size() * 2));
    for (int i = 0; i < keys.size(); i++) {
      Object v = values.get(i);
      if (v != null) {
        out.put(keys.get(i), TridentJson.normalize(v));
      }
    }
    return Collections.unmodifiableMap(out);
  }

  @Override
  public String toString() {
    return "Trident " + state.getClass().getSimpleName() + " (state '" + context.stateName() + "', partition "
        + context.partitionIndex() + " of " + context.numPartitions() + ")";
  }
}
