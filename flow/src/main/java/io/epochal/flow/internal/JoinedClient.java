package io.epochal.flow.internal;

import io.epochal.cache.CacheRegion;
import io.epochal.errors.StateCorruptedException;
import io.epochal.flow.JoinSpec;
import io.epochal.flow.JoinedStateAccessor;
import io.epochal.flow.JoinedStateClient;
import io.epochal.flow.TimeDomain;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A joiner of one partition: read-only, reads committed rows (its own read transaction, never the epoch buffer, so
 * that nothing uncommitted enters the TTL cache), caches them with the joiner's TTL. A joined state with a TTL (its
 * table has a deadlines table beside it) is read with the writer's rule: a row whose committed deadline is at or
 * before the joiner's read time (its clock at the epoch, or the writer's committed watermark) reads as absent, even
 * while the row lingers; the deadlines are read in the same transaction and lookup pass as the rows and cached
 * beside the values, and a cached value whose deadline has passed is not served (the key is read again). Used by one
 * thread at a time. Internal.
 *
 * @param <K> the key type
 * @param <S> the state type
 */
final class JoinedClient<K, S> extends PartitionClient<K, S> implements JoinedStateClient<K, S> {
  /**
   * How a joiner judges the expiry of a joined state with a TTL.
   *
   * @param deadlines the writer's deadlines table (the state's key columns → {@code deadline})
   * @param domain the TTL's time domain, from the deadlines table's {@code epochal.ttl.domain} attribute
   * @param watermark the writer computation's watermark table (event time), null for processing time
   * @param cached the joiner's cache of deadlines beside its cache of values (same TTL); missing: no deadline
   */
  record JoinTtl(Table deadlines, TimeDomain domain, Table watermark, CacheRegion<TableKey, Long> cached) {
  }

  private final JoinSpec<K, S> spec;
  private final TableStore store;
  /** Finds the joined state's TTL; asked when bound and, if none then, once more at the first epoch. */
  private final Supplier<Optional<JoinTtl>> ttlSource;
  private boolean askedAtBegin;
  /** Null while the joined state is not known to have a TTL. */
  private JoinTtl ttl;
  private LongSupplier processingTime = () -> Long.MIN_VALUE;
  /** The epoch's read time, once read. */
  private OptionalLong now = OptionalLong.empty();

  /** A joiner without TTL lookup (a stub, or a table known to have no TTL). */
  JoinedClient(JoinSpec<K, S> spec, String computation, String path, TableStore store, Table table,
      CacheRegion<TableKey, S> region, Supplier<Epoch> currentEpoch) {
    this(spec, computation, path, store, table, region, currentEpoch, Optional::empty);
  }

  /** Like the other constructor; {@code ttlSource} finds the joined state's TTL (asked now, and at the first epoch). */
  JoinedClient(JoinSpec<K, S> spec, String computation, String path, TableStore store, Table table,
      CacheRegion<TableKey, S> region, Supplier<Epoch> currentEpoch, Supplier<Optional<JoinTtl>> ttlSource) {
    super(spec.name(), "Joiner", spec.keys(), computation, path, table, region, currentEpoch);
    this.spec = spec;
    this.store = store;
    this.ttlSource = ttlSource;
    this.ttl = table == null ? null : ttlSource.get().orElse(null);
  }

  JoinSpec<K, S> spec() {
    return spec;
  }

  /** @return the joined state's TTL as this joiner applies it, empty if it has none (or none is known yet) */
  Optional<JoinTtl> ttl() {
    return Optional.ofNullable(ttl);
  }

  /**
   * Starts epoch {@code e}. At the first epoch, when every partition of the pipeline has been made (so a writer in
   * the same pipeline has created its TTL tables), looks once more for the joined state's TTL.
   *
   * @param processingTime the joiner's processing time of the epoch's attempt (read only for a processing-time TTL)
   */
  void begin(Epoch e, LongSupplier processingTime) {
    super.begin(e);
    if (ttl == null && !askedAtBegin) {
      askedAtBegin = true;
      ttl = ttlSource.get().orElse(null);
    }
    this.processingTime = processingTime;
    this.now = OptionalLong.empty();
  }

  /** @return the time this epoch's reads are judged at: the processing time, or the writer's committed watermark */
  private long now(Epoch e) {
    if (now.isEmpty()) {
      now = OptionalLong.of(ttl.domain() == TimeDomain.PROCESSING_TIME ? processingTime.getAsLong()
          : committedWatermark(e));
    }
    return now.getAsLong();
  }

  private long committedWatermark(Epoch e) {
    Table t = ttl.watermark();
    Optional<Row> row = store.lookup(t, List.of(t.schema().key(0L))).get(0);
    if (row.isEmpty()) {
      return Long.MIN_VALUE;
    }
    Long w = row.get().getLong("watermark");
    if (w == null) {
      throw new StateCorruptedException(t.path(), row.get().key().describeParts(), "a watermark row without "
          + "watermark (read by joiner '" + spec.name() + "' in epoch " + e.txid + ")", OptionalLong.of(e.txid), null);
    }
    return w;
  }

  /** Loads {@code keys}: from the cache while their TTL lasts, the rest in ONE lookup of committed rows. */
  void load(Collection<? extends K> keys) {
    Epoch e = requireEpoch();
    LinkedHashSet<TableKey> wanted = notLoaded(keys);
    if (wanted.isEmpty()) {
      return;
    }
    Map<TableKey, Optional<S>> hits = region.getAllPresent(wanted);
    if (ttl != null && !hits.isEmpty()) {
      hits = live(e, hits);
    }
    loaded.putAll(hits);
    List<TableKey> misses = new ArrayList<>(wanted.size());
    for (TableKey tk : wanted) {
      if (!hits.containsKey(tk)) {
        misses.add(tk);
      }
    }
    if (misses.isEmpty()) {
      return;
    }
    List<Optional<Row>> found;
    List<Optional<Row>> deadlines = null;
    try (StoreTransaction tx = store.begin()) {
      found = tx.lookup(table, misses);
      if (ttl != null) {
        List<TableKey> dks = new ArrayList<>(misses.size());
        for (TableKey tk : misses) {
          dks.add(TableKey.of(ttl.deadlines().schema(), tk.parts()));
        }
        deadlines = tx.lookup(ttl.deadlines(), dks);
      }
    }
    for (int i = 0; i < misses.size(); i++) {
      TableKey tk = misses.get(i);
      Optional<S> value = found.get(i).map(r -> MutableClient.decode(spec.layout(), table, tk, r, e));
      Long deadline = null;
      if (ttl != null && value.isPresent()) {
        deadline = deadline(e, deadlines.get(i));
        if (deadline != null && deadline <= now(e)) {
          value = Optional.empty(); // expired: absent to the writer, though its row lingers until it expires
        }
      }
      loaded.put(tk, value);
      if (value.isPresent()) {
        region.put(tk, value.get());
        if (ttl != null) {
          if (deadline != null) {
            ttl.cached().put(tk, deadline);
          } else {
            ttl.cached().putMissing(tk);
          }
        }
      } else {
        region.putMissing(tk);
      }
    }
  }

  /**
   * @return the cache hits that may be served: absences, and values whose cached deadline is known and after the
   *     epoch's read time (a value past its deadline, or whose deadline was evicted, is read again)
   */
  private Map<TableKey, Optional<S>> live(Epoch e, Map<TableKey, Optional<S>> hits) {
    List<TableKey> present = new ArrayList<>(hits.size());
    hits.forEach((tk, v) -> {
      if (v.isPresent()) {
        present.add(tk);
      }
    });
    if (present.isEmpty()) {
      return hits;
    }
    Map<TableKey, Optional<Long>> cachedDeadlines = ttl.cached().getAllPresent(present);
    Map<TableKey, Optional<S>> out = new HashMap<>(hits);
    for (TableKey tk : present) {
      Optional<Long> d = cachedDeadlines.get(tk);
      if (d == null || (d.isPresent() && d.get() <= now(e))) {
        out.remove(tk);
      }
    }
    return out;
  }

  private Long deadline(Epoch e, Optional<Row> row) {
    if (row.isEmpty()) {
      return null;
    }
    Long deadline = row.get().getLong("deadline");
    if (deadline == null || deadline < 0) {
      throw new StateCorruptedException(ttl.deadlines().path(), row.get().key().describeParts(),
          "a TTL deadline of " + deadline + " (read by joiner '" + spec.name() + "' in epoch " + e.txid + ")",
          OptionalLong.of(e.txid), null);
    }
    return deadline;
  }

  @Override
  public JoinedStateAccessor<S> accessor(K key) {
    Objects.requireNonNull(key, "key");
    Epoch e = requireEpoch();
    TableKey tk = tableKey(key);
    if (!loaded.containsKey(tk)) {
      load(List.of(key));
    }
    return new Accessor(e, key, loaded.get(tk));
  }

  void abort() {
    loaded.clear();
    now = OptionalLong.empty();
  }

  /** One key's read-only view in one epoch. */
  private final class Accessor extends ReadAccessor implements JoinedStateAccessor<S> {
    Accessor(Epoch owner, K key, Optional<S> value) {
      super("JoinedStateAccessor", owner, key, value);
    }
  }
}
