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
import java.util.HashMap;
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

  /**
   * The TTL machinery of a state with a TTL: the deadline of every key with a row, by key, and the hidden timers, by
   * (deadline, key), that expire them in deadline order.
   */
  record TtlIndex<K>(Table deadlines, PartitionTimers<K, Void> timers) {
  }

  /** Null for a state without TTL (and for a stub). */
  private final TtlIndex<K> ttl;
  /** The deadlines of the keys loaded in this epoch that have one (removed when the key expires in the epoch). */
  private final Map<TableKey, Long> deadlines = new HashMap<>();
  /** Keys expired by a fired expiration timer in this epoch: their deadline rows are deleted at flush. */
  private final Set<TableKey> expired = new HashSet<>();
  /** The time reads are judged at in this epoch: a key whose deadline is at or before it reads as absent. */
  private long readNow = Long.MIN_VALUE;

  /** A client bound to a partition ({@code table} non-null) or a declaration stub ({@code table} null). */
  MutableClient(StateSpec<K, S> spec, String computation, String path, Table table, CacheRegion<TableKey, S> region,
      Supplier<Epoch> currentEpoch) {
    this(spec, computation, path, table, region, currentEpoch, null);
  }

  /** Like the other constructor, with the TTL machinery of a state with a TTL (null without one). */
  MutableClient(StateSpec<K, S> spec, String computation, String path, Table table, CacheRegion<TableKey, S> region,
      Supplier<Epoch> currentEpoch, TtlIndex<K> ttl) {
    super(spec.name(), "State", spec.keys(), computation, path, table, region, currentEpoch);
    this.spec = spec;
    this.ttl = ttl;
  }

  /** @return whether this client expires keys (a bound state with a TTL) */
  boolean expires() {
    return ttl != null;
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
    deadlines.clear();
    expired.clear();
    readNow = Long.MIN_VALUE;
    if (ttl != null) {
      ttl.timers().begin(e);
    }
  }

  /**
   * Sets the time this epoch's reads are judged at (before any load): the processing time of the attempt, or the
   * watermark in force at the batch's start, as the TTL's domain says.
   */
  void ttlReadTime(long processingTime, long watermark) {
    if (ttl != null) {
      readNow = spec.ttl().orElseThrow().domain() == io.epochal.flow.TimeDomain.PROCESSING_TIME ? processingTime
          : watermark;
    }
  }

  private TableKey deadlineKey(TableKey tk) {
    return TableKey.of(ttl.deadlines().schema(), tk.parts());
  }

  /** Loads {@code keys} not loaded yet in this epoch: cache hits first, the rest in ONE lookup. */
  void load(Collection<? extends K> keys) {
    Epoch e = requireEpoch();
    LinkedHashSet<TableKey> wanted = notLoaded(keys);
    if (wanted.isEmpty()) {
      return;
    }
    loadValues(e, wanted);
    if (ttl != null) {
      loadDeadlines(e, wanted);
    }
  }

  /**
   * Reads the deadlines of {@code wanted} in ONE lookup (cached values need it too: the cache holds values, not
   * deadlines); a key whose deadline is at or before the epoch's read time reads as absent (its row stays until its
   * expiration fires).
   */
  private void loadDeadlines(Epoch e, Collection<TableKey> wanted) {
    List<TableKey> dks = new ArrayList<>(wanted.size());
    for (TableKey tk : wanted) {
      dks.add(deadlineKey(tk));
    }
    List<Optional<Row>> found = e.buffer.lookup(ttl.deadlines(), dks);
    int i = 0;
    for (TableKey tk : wanted) {
      Optional<Row> row = found.get(i++);
      if (row.isEmpty()) {
        continue;
      }
      Long deadline = row.get().getLong("deadline");
      if (deadline == null || deadline < 0) {
        throw new StateCorruptedException(ttl.deadlines().path(), row.get().key().describeParts(),
            "a TTL deadline of " + deadline + " (read in epoch " + e.txid + ")", java.util.OptionalLong.of(e.txid),
            null);
      }
      deadlines.put(tk, deadline);
      if (deadline <= readNow) {
        loaded.put(tk, Optional.empty());
      }
    }
  }

  private void loadValues(Epoch e, LinkedHashSet<TableKey> wanted) {
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
    flush(Long.MIN_VALUE);
  }

  /**
   * Like {@link #flush()}; a state with a TTL also touches the deadline of every key written in the epoch (value
   * present: {@code touchTime + ttl}; cleared or expired: none), moving its expiration timer, and writes the timers.
   *
   * @param touchTime the time writes are made at: the attempt's processing time, or the watermark after the batch's
   *     records ({@link Long#MIN_VALUE} before any: the key then has no deadline until its next write)
   */
  void flush(long touchTime) {
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
    if (ttl != null) {
      flushDeadlines(e, touchTime);
    }
    if (region != null && !written.isEmpty()) {
      cachedUncommitted = true;
      region.putAll(written);
    }
  }

  private void flushDeadlines(Epoch e, long touchTime) {
    long millis = spec.ttl().orElseThrow().millis();
    long deadline = touchTime == Long.MIN_VALUE ? Long.MAX_VALUE
        : Math.max(0, touchTime > Long.MAX_VALUE - millis ? Long.MAX_VALUE : touchTime + millis);
    List<Row> upserts = new ArrayList<>();
    List<TableKey> deletes = new ArrayList<>();
    List<PartitionTimers.Move<K>> moves = new ArrayList<>();
    for (Map.Entry<TableKey, Accessor> entry : accessors.entrySet()) {
      Accessor a = entry.getValue();
      if (!a.dirty) {
        continue;
      }
      TableKey tk = entry.getKey();
      Long old = deadlines.get(tk);
      if (a.value.isPresent()) {
        if (old == null || old.longValue() != deadline) {
          moves.add(new PartitionTimers.Move<>(a.key, old == null ? -1 : old, deadline));
          upserts.add(Row.builder(deadlineKey(tk)).set("deadline", deadline).build());
        }
      } else if (old != null || expired.contains(tk)) {
        if (old != null) {
          moves.add(new PartitionTimers.Move<>(a.key, old, -1));
        }
        deletes.add(deadlineKey(tk));
      }
    }
    if (!upserts.isEmpty() || !deletes.isEmpty()) {
      e.buffer.write(ttl.deadlines(), upserts, deletes);
    }
    ttl.timers().moveAll(moves); // the batch's timer moves: one lookup per timer table, not one per written key
    ttl.timers().flush();
  }

  /**
   * Fires the due expiration timers (deadline {@code <= now}), at most the TTL's bound, in deadline order: each
   * expired key not written in this epoch is cleared (its row and deadline deleted at flush).
   *
   * @return how many expiration timers fired
   */
  int expire(long now) {
    requireEpoch();
    return ttl.timers().fire(now, new PartitionTimers.Handler<>() {
      @Override
      public void load(List<K> keys) {
        MutableClient.this.load(keys);
      }

      @Override
      public void fire(K key, io.epochal.flow.Timer timer) {
        expireKey(key, timer.trigger());
      }
    });
  }

  private void expireKey(K key, long trigger) {
    Epoch e = requireEpoch();
    TableKey tk = tableKey(key);
    Accessor a = accessors.get(tk);
    if (a != null && a.dirty) {
      return; // written in this epoch: the write's deadline replaces this one at flush
    }
    Long deadline = deadlines.get(tk);
    if (deadline == null || deadline.longValue() != trigger) {
      throw new StateCorruptedException(ttl.deadlines().path(), deadlineKey(tk).describeParts(),
          "an expiration timer at " + trigger + " for a key whose deadline is " + (deadline == null ? "absent"
              : deadline) + " (epoch " + e.txid + ")", java.util.OptionalLong.of(e.txid), null);
    }
    deadlines.remove(tk);
    expired.add(tk);
    if (a == null) {
      a = new Accessor(e, key, Optional.empty());
      accessors.put(tk, a);
    }
    a.value = Optional.empty();
    a.dirty = true;
  }

  /**
   * The epoch's attempt failed (possibly after {@link #flush}, when the epoch commit itself failed): drop the region
   * if it holds values of the attempt. Values loaded from the store are committed and stay.
   */
  void abort() {
    accessors.clear();
    loaded.clear();
    rows.clear();
    deadlines.clear();
    expired.clear();
    if (ttl != null) {
      ttl.timers().abort();
    }
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
