package io.epochal.trident;

import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.StateAheadException;
import io.epochal.state.Epoch;
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
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.storm.trident.state.State;
import org.apache.storm.trident.state.map.ReadOnlyMapState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An Epochal state holding one partition of a user's Trident {@link State} (made by their Trident
 * {@code StateFactory}), driven by the Epochal engine: {@code begin(epoch)}/{@code end()} become Trident's
 * {@code beginCommit(t)}/{@code commit(t)} with the epoch's txid (not for a read-only epoch, which only reads), and when
 * the Trident state is a Trident {@code MapState} the Epochal {@link MapState} calls are translated to it, so that
 * {@code persistentAggregate} and {@code lookup} work. A Trident {@code OpaqueMap}'s "Current batch is behind state's
 * batch" error becomes {@link StateAheadException}, which stops the pipeline instead of being retried.
 *
 * <p>Trident states have no abort. After an attempt in which a call into the Trident state threw, {@code abort}
 * replaces it with a fresh state from the partition's factory, as a restarted Storm worker would have: a Trident
 * {@code CachedMap} (which storm-redis, storm-hbase and others put under their maps) caches the cells of a
 * {@code multiPut} before the store write that failed, and Trident's {@code TransactionalMap} would then take the
 * cached cell of the failed batch for one already written, and never write it again. A state whose calls all
 * succeeded is kept (its caches agree with its store), so an attempt failing elsewhere costs no reload.
 *
 * <p>Values read from the Trident state, and the stored values handed to updaters, have {@code Integer},
 * {@code Short} and {@code Byte} widened to {@code Long} (a JSON-backed Trident store returns {@code Integer} on Storm
 * 2.6+). Semantics are otherwise the Trident state's own (this adapter adds none): a Trident
 * {@code TransactionalMap} still re-bases a value whose stored txid is ahead of the batch. Not thread-safe: one
 * instance per partition, as in Storm.
 */
final class TridentStateAdapter implements MapState<List<Object>, Object> {
  private static final Logger LOG = LoggerFactory.getLogger(TridentStateAdapter.class);
  private static final Pattern BEHIND = Pattern.compile("Current batch \\((\\d+)\\) is behind state's batch");
  private static final Pattern STORED = Pattern.compile("currTxid=(\\d+)");

  private final Supplier<State> factory;
  private final StateContext context;
  private volatile State state;
  /** A call into {@link #state} threw during the current attempt: its caches may disagree with its store. */
  private volatile boolean failed;
  /** The epoch this partition was begun with, null outside begin..end. */
  private volatile Epoch epoch;
  /** The txid of the last epoch begun, for logs. */
  private volatile long lastTxid;

  /** @param factory makes this partition's Trident state: once now, again after an attempt it failed in */
  TridentStateAdapter(Supplier<State> factory, StateContext context) {
    this.factory = Objects.requireNonNull(factory, "factory");
    this.context = context;
    this.state = make();
  }

  private State make() {
    return Objects.requireNonNull(factory.get(), "the Trident StateFactory returned a null state");
  }

  State tridentState() {
    return state;
  }

  /** Records that a call into the Trident state (by this adapter or by a Trident updater or query) threw. */
  void failed() {
    failed = true;
  }

  @Override
  public void abort() {
    epoch = null;
    if (failed) {
      LOG.debug("{}: a call failed in an attempt of batch {}; replacing the Trident state with a fresh one", this,
          lastTxid);
      state = make();
      failed = false;
    }
  }

  StateContext context() {
    return context;
  }

  @Override
  public void begin(Epoch epoch) {
    Objects.requireNonNull(epoch, "epoch");
    this.epoch = epoch;
    lastTxid = epoch.txid();
    if (!epoch.readOnly()) {
      translate(() -> {
        state.beginCommit(epoch.txid());
        return null;
      });
    }
  }

  @Override
  public void end() {
    Epoch e = requireEpoch("end");
    epoch = null;
    if (!e.readOnly()) {
      translate(() -> {
        state.commit(e.txid());
        return null;
      });
    }
  }

  /** @return the open epoch, else an {@link IllegalStateException} naming the call */
  private Epoch requireEpoch(String call) {
    Epoch e = epoch;
    if (e == null) {
      throw new IllegalStateException(call + " of " + this + " outside begin(epoch)..end()");
    }
    return e;
  }

  private Epoch requireWritable(String call) {
    Epoch e = requireEpoch(call);
    if (e.readOnly()) {
      throw new IllegalStateException(call + " of " + this + " in " + e + ": a read-only epoch never writes");
    }
    return e;
  }

  @Override
  public Map<List<Object>, Object> multiGet(Collection<? extends List<Object>> keys) {
    requireEpoch("multiGet");
    List<List<Object>> list = new ArrayList<>(keys);
    List<Object> values = translate(() -> readable().multiGet(list));
    return toMap(list, values);
  }

  @Override
  @SuppressWarnings("rawtypes")
  public Map<List<Object>, Object> multiUpdate(Map<List<Object>, ? extends ValueUpdater<Object>> updaters) {
    requireWritable("multiUpdate");
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
  public void multiPut(Map<List<Object>, Object> values) {
    requireWritable("multiPut");
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
      failed = true;
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
