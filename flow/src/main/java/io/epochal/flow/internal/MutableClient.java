package io.epochal.flow.internal;

import io.epochal.cache.CacheRegion;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.InvalidRecordException;
import io.epochal.errors.StateCorruptedException;
import io.epochal.flow.StateAccessor;
import io.epochal.flow.StateClient;
import io.epochal.flow.StateSpec;
import io.epochal.store.table.CellLayout;
import io.epochal.store.table.Row;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * A read-write state client of one partition. Per epoch: {@link #begin}, {@link #load} of the batch's keys (cache
 * hits, then one bulk lookup through the epoch buffer for the misses), accessors, then {@link #flush} of the changed
 * keys into the epoch buffer (and the cache). On a failed attempt {@link #abort} drops the region of the cache.
 * {@code loaded} holds the committed values of the keys loaded in this epoch, normalized: an empty value is absent.
 * Used by one thread at a time. Internal.
 *
 * @param <K> the key type
 * @param <S> the state type
 */
final class MutableClient<K, S> extends PartitionClient<K, S> implements StateClient<K, S> {
  private final StateSpec<K, S> spec;
  /** Keys loaded in this epoch that have a row (a row may hold an empty value in an external table). */
  private final Set<TableKey> rows = new HashSet<>();
  private final Map<TableKey, Accessor> accessors = new LinkedHashMap<>();
  /**
   * Whether the cache holds values this client flushed in an epoch not known to be committed yet. The engine starts
   * the next epoch only after the previous one committed, and aborts before retrying, so {@link #begin} clears it.
   */
  private boolean cachedUncommitted;

  /** A client bound to a partition ({@code table} non-null) or a declaration stub ({@code table} null). */
  MutableClient(StateSpec<K, S> spec, String computation, String path, Table table, CacheRegion<TableKey, S> region,
      Supplier<Epoch> currentEpoch) {
    super(spec.name(), "State", spec.keys(), computation, path, table, region, currentEpoch);
    this.spec = spec;
  }

  StateSpec<K, S> spec() {
    return spec;
  }

  @Override
  void begin(Epoch e) {
    super.begin(e);
    cachedUncommitted = false;
    rows.clear();
    accessors.clear();
  }

  /** Loads {@code keys} not loaded yet in this epoch: cache hits first, the rest in ONE lookup. */
  void load(Collection<? extends K> keys) {
    Epoch e = requireEpoch();
    LinkedHashSet<TableKey> wanted = notLoaded(keys);
    if (wanted.isEmpty()) {
      return;
    }
    List<TableKey> misses = new ArrayList<>(wanted.size());
    if (region != null) {
      Map<TableKey, Optional<S>> hits = region.getAllPresent(wanted);
      for (TableKey tk : wanted) {
        Optional<S> hit = hits.get(tk);
        if (hit == null) {
          misses.add(tk);
        } else {
          loaded.put(tk, hit);
          if (hit.isPresent()) {
            rows.add(tk);
          }
        }
      }
    } else {
      misses.addAll(wanted);
    }
    if (misses.isEmpty()) {
      return;
    }
    List<Optional<Row>> found = e.buffer.lookup(table, misses);
    for (int i = 0; i < misses.size(); i++) {
      TableKey tk = misses.get(i);
      Optional<Row> row = found.get(i);
      Optional<S> value = row.map(r -> decode(spec.layout(), table, tk, r, e)).filter(v -> !spec.isEmpty(v));
      loaded.put(tk, value);
      if (row.isPresent()) {
        rows.add(tk);
      }
      if (region != null) {
        if (value.isPresent()) {
          region.put(tk, value.get());
        } else if (row.isEmpty()) {
          region.putMissing(tk);
        }
      }
    }
  }

  static <S> S decode(CellLayout<S> layout, Table table, TableKey key, Row row, Epoch e) {
    try {
      return Objects.requireNonNull(layout.read(row), "layout " + layout.id() + " decoded null");
    } catch (RuntimeException ex) {
      throw new StateCorruptedException(table.path(), key.describeParts(),
          "no txid: Flow state rows carry none; read in epoch " + e.txid, java.util.OptionalLong.of(e.txid), ex);
    }
  }

  @Override
  public StateAccessor<S> accessor(K key) {
    Objects.requireNonNull(key, "key");
    Epoch e = requireEpoch();
    TableKey tk = tableKey(key);
    Accessor a = accessors.get(tk);
    if (a == null) {
      if (!loaded.containsKey(tk)) {
        load(List.of(key)); // an explicit key outside the batch: its own lookup
      }
      a = new Accessor(e, key, loaded.get(tk));
      accessors.put(tk, a);
    }
    return a;
  }

  /** Writes every changed key of the epoch into the epoch buffer, then into the cache. */
  void flush() {
    Epoch e = requireEpoch();
    List<Row> upserts = new ArrayList<>();
    List<TableKey> deletes = new ArrayList<>();
    Map<TableKey, Optional<S>> written = new LinkedHashMap<>();
    for (Map.Entry<TableKey, Accessor> entry : accessors.entrySet()) {
      Accessor a = entry.getValue();
      TableKey tk = entry.getKey();
      if (!a.dirty || (a.value.equals(loaded.get(tk)) && (a.value.isPresent() || !rows.contains(tk)))) {
        continue;
      }
      if (a.value.isPresent()) {
        Row.Builder row = Row.builder(tk);
        spec.layout().write(a.value.get(), row);
        upserts.add(row.build());
      } else {
        deletes.add(tk);
      }
      written.put(tk, a.value);
    }
    if (!upserts.isEmpty() || !deletes.isEmpty()) {
      e.buffer.write(table, upserts, deletes);
    }
    if (region != null && !written.isEmpty()) {
      cachedUncommitted = true;
      region.putAll(written);
    }
  }

  /**
   * The epoch's attempt failed (possibly after {@link #flush}, when the epoch commit itself failed): drop the region
   * if it holds values of the attempt. Values loaded from the store are committed and stay.
   */
  void abort() {
    accessors.clear();
    loaded.clear();
    rows.clear();
    if (region != null && cachedUncommitted) {
      region.invalidateAll();
    }
    cachedUncommitted = false;
  }

  /** One key's read-write view in one epoch. */
  private final class Accessor extends ReadAccessor implements StateAccessor<S> {
    private boolean dirty;

    Accessor(Epoch owner, K key, Optional<S> value) {
      super("StateAccessor", owner, key, value);
    }

    @Override
    public void set(S newValue) {
      checkLive();
      value = spec.isEmpty(requireValue(newValue, "set")) ? Optional.empty() : Optional.of(newValue);
      dirty = true;
    }

    @Override
    public S update(UnaryOperator<S> fn) {
      checkLive();
      Objects.requireNonNull(fn, "fn");
      S next = requireValue(fn.apply(value.orElse(spec.defaultValue())), "update");
      set(next);
      return next;
    }

    /** A null value is a bad record: not retryable, naming the state's table, the key and the epoch. */
    private S requireValue(S newValue, String what) {
      if (newValue == null) {
        String where = table == null ? spec.name() : table.path();
        throw new InvalidRecordException(what + " of state '" + spec.name() + "' for key '" + key + "' got null (epoch "
            + owner.txid + "); null values are errors, never stored (clear() empties a state)", null,
            ErrorContext.of(where, key).withTxid(owner.txid));
      }
      return newValue;
    }

    @Override
    public void clear() {
      checkLive();
      value = Optional.empty();
      dirty = true;
    }
  }
}
