package io.epochal.flow.internal;

import io.epochal.cache.CacheRegion;
import io.epochal.flow.JoinSpec;
import io.epochal.flow.JoinedStateAccessor;
import io.epochal.flow.JoinedStateClient;
import io.epochal.store.table.Row;
import io.epochal.store.table.StoreTransaction;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import io.epochal.store.table.TableStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A joiner of one partition: read-only, reads committed rows (its own read transaction, never the epoch buffer, so
 * that nothing uncommitted enters the TTL cache), caches them with the joiner's TTL. Used by one thread at a time.
 * Internal.
 *
 * @param <K> the key type
 * @param <S> the state type
 */
final class JoinedClient<K, S> extends PartitionClient<K, S> implements JoinedStateClient<K, S> {
  private final JoinSpec<K, S> spec;
  private final TableStore store;

  JoinedClient(JoinSpec<K, S> spec, String computation, String path, TableStore store, Table table,
      CacheRegion<TableKey, S> region, Supplier<Epoch> currentEpoch) {
    super(spec.name(), "Joiner", spec.keys(), computation, path, table, region, currentEpoch);
    this.spec = spec;
    this.store = store;
  }

  JoinSpec<K, S> spec() {
    return spec;
  }

  /** Loads {@code keys}: from the cache while their TTL lasts, the rest in ONE lookup of committed rows. */
  void load(Collection<? extends K> keys) {
    Epoch e = requireEpoch();
    LinkedHashSet<TableKey> wanted = notLoaded(keys);
    if (wanted.isEmpty()) {
      return;
    }
    Map<TableKey, Optional<S>> hits = region.getAllPresent(wanted);
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
    try (StoreTransaction tx = store.begin()) {
      found = tx.lookup(table, misses);
    }
    for (int i = 0; i < misses.size(); i++) {
      TableKey tk = misses.get(i);
      Optional<S> value = found.get(i).map(r -> MutableClient.decode(spec.layout(), table, tk, r, e));
      loaded.put(tk, value);
      if (value.isPresent()) {
        region.put(tk, value.get());
      } else {
        region.putMissing(tk);
      }
    }
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
  }

  /** One key's read-only view in one epoch. */
  private final class Accessor extends ReadAccessor implements JoinedStateAccessor<S> {
    Accessor(Epoch owner, K key, Optional<S> value) {
      super("JoinedStateAccessor", owner, key, value);
    }
  }
}
