package io.epochal.flow.internal;

import io.epochal.cache.CacheRegion;
import io.epochal.store.table.KeyCodec;
import io.epochal.store.table.Table;
import io.epochal.store.table.TableKey;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What the state clients of one partition share, the read-write {@link MutableClient} and the read-only
 * {@link JoinedClient}: the state's name, table and cache region, the current epoch and the values loaded in it, and
 * the read part of an accessor. Used by one thread at a time. Internal.
 *
 * @param <K> the key type
 * @param <S> the state type
 */
abstract class PartitionClient<K, S> {
  private final String name;
  private final String role;
  private final String computation;
  private final String path;
  private final KeyCodec<K> keys;
  final Table table;
  final CacheRegion<TableKey, S> region;
  private final Supplier<Epoch> currentEpoch;

  private Epoch epoch;
  /** The values of the keys loaded in this epoch. */
  final Map<TableKey, Optional<S>> loaded = new HashMap<>();

  /**
   * A client bound to a partition ({@code table} non-null) or a declaration stub ({@code table} null).
   *
   * @param role what the client is called in errors: {@code State} or {@code Joiner}
   */
  PartitionClient(String name, String role, KeyCodec<K> keys, String computation, String path, Table table,
      CacheRegion<TableKey, S> region, Supplier<Epoch> currentEpoch) {
    this.name = name;
    this.role = role;
    this.keys = keys;
    this.computation = computation;
    this.path = path;
    this.table = table;
    this.region = region;
    this.currentEpoch = currentEpoch;
  }

  public String name() {
    return name;
  }

  public String tablePath() {
    return path;
  }

  /** Starts epoch {@code e}: forgets what was loaded in the previous one. */
  void begin(Epoch e) {
    epoch = e;
    loaded.clear();
  }

  /** @return the table key of {@code key} */
  TableKey tableKey(K key) {
    return keys.toKey(table.schema(), key);
  }

  /** @return the table keys of {@code keys} not loaded yet in this epoch, without duplicates, in order */
  LinkedHashSet<TableKey> notLoaded(Collection<? extends K> keys) {
    LinkedHashSet<TableKey> wanted = new LinkedHashSet<>();
    for (K key : keys) {
      TableKey tk = tableKey(key);
      if (!loaded.containsKey(tk)) {
        wanted.add(tk);
      }
    }
    return wanted;
  }

  /**
   * @return the current epoch
   * @throws IllegalStateException if this client has no current epoch (a stub, or called in {@code init()} or after
   *     a batch)
   */
  Epoch requireEpoch() {
    Epoch e = currentEpoch.get();
    if (table == null || e == null || e != epoch || e.ended()) {
      throw new IllegalStateException(role + " '" + name + "' of computation '" + computation
          + "' has no current epoch: ask for accessors inside process(), never in init() or after a batch");
    }
    return e;
  }

  /** The read part of one key's view in one epoch. */
  abstract class ReadAccessor {
    private final String kind;
    final Epoch owner;
    final K key;
    Optional<S> value;

    /** @param kind the accessor interface, named by {@code toString()} */
    ReadAccessor(String kind, Epoch owner, K key, Optional<S> value) {
      this.kind = kind;
      this.owner = owner;
      this.key = key;
      this.value = value;
    }

    /** @throws IllegalStateException if the accessor's epoch has ended */
    void checkLive() {
      if (owner.ended()) {
        throw new IllegalStateException("Accessor of state '" + name + "' for key '" + key
            + "' belongs to epoch " + owner.txid + ", which has ended");
      }
    }

    public Optional<S> get() {
      checkLive();
      return value;
    }

    public S getOrDefault(S defaultValue) {
      checkLive();
      return value.isPresent() ? value.get() : defaultValue;
    }

    @Override
    public String toString() {
      return kind + "[" + name + ", key " + key + ", epoch " + owner.txid + "]";
    }
  }
}
