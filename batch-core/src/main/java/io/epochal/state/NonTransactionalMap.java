package io.epochal.state;

import io.epochal.api.Stable;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.InvalidRecordException;
import io.epochal.state.internal.OpenEpoch;
import io.epochal.state.internal.ValueKeys;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link MapState} that applies every update it is given: a replayed batch is applied again. It stores plain
 * values. Use it only where at-least-once is acceptable; an {@code EXACTLY_ONCE} pipeline refuses it.
 *
 * <p>Calls act for the epoch given to {@link #begin}; outside {@code begin..end}, and writes in a
 * {@linkplain Epoch#readOnly read-only} epoch, throw {@link IllegalStateException}. Not thread-safe: one instance per
 * partition, driven by one thread at a time.
 *
 * <p>Removal ({@link #multiRemove}) deletes from the store when it is a {@link RemovableBackingMap}; over another store
 * {@link #canRemove()} is false. The factories are {@link RemovableStateFactory}s whose bucket states are
 * non-transactional maps over the same store (the bucket entries are keys of their own type in it).
 *
 * @param <K> the key type
 * @param <V> the value type
 *
 * @since 0.1.0
 */
@Stable
public final class NonTransactionalMap<K, V> implements RemovableMapState<K, V> {
  private final IBackingMap<K, V> backing;
  private final OpenEpoch open;

  private NonTransactionalMap(IBackingMap<K, V> backing) {
    this.backing = Objects.requireNonNull(backing, "backing");
    this.open = new OpenEpoch("NonTransactionalMap over " + backing.describe());
  }

  /**
   * Layers the non-transactional rule over a store.
   *
   * @param backing the store of the plain values, not null
   * @param <K> the key type
   * @param <V> the value type
   * @return a new map over {@code backing}, with no epoch open
   */
  public static <K, V> NonTransactionalMap<K, V> over(IBackingMap<K, V> backing) {
    return new NonTransactionalMap<>(backing);
  }

  /**
   * A factory making one map per partition over the same store.
   *
   * @param backing the store every partition's map reads and writes, not null
   * @param <K> the key type
   * @param <V> the value type
   * @return a factory of kind {@code NON_TRANSACTIONAL}, needing no staging
   */
  public static <K, V> StateFactory<MapState<K, V>> factory(IBackingMap<K, V> backing) {
    Objects.requireNonNull(backing, "backing");
    return new RemovableStateFactory<>() {
      @Override
      public RemovableMapState<K, V> makeState(StateContext context) {
        return over(backing);
      }

      @Override
      @SuppressWarnings({"unchecked", "rawtypes"})
      public StateFactory<RemovableMapState<BucketEntry, K>> buckets() {
        IBackingMap raw = backing;
        return new StateFactory<>() {
          @Override
          public RemovableMapState<BucketEntry, K> makeState(StateContext context) {
            return (RemovableMapState<BucketEntry, K>) NonTransactionalMap.over(raw);
          }

          @Override
          public StateKind kind() {
            return StateKind.NON_TRANSACTIONAL;
          }
        };
      }

      @Override
      public StateKind kind() {
        return StateKind.NON_TRANSACTIONAL;
      }

      @Override
      public String describe() {
        return "NonTransactionalMap over " + backing.describe();
      }
    };
  }

  @Override
  public void begin(Epoch epoch) {
    open.begin(epoch);
    backing.begin(epoch);
  }

  @Override
  public void end() {
    open.close();
    backing.end();
  }

  @Override
  public void abort() {
    open.close();
    backing.abort();
  }

  @Override
  public Map<K, V> multiGet(Collection<? extends K> keys) {
    open.require("multiGet");
    requireKeys(Objects.requireNonNull(keys, "keys"));
    return Map.copyOf(backing.multiGet(keys));
  }

  /**
   * @throws io.epochal.errors.InvalidRecordException (not retryable) if a key is null or has no value equality, or an
   *     updater returns null (naming the key and the txid)
   */
  @Override
  public Map<K, V> multiUpdate(Map<K, ? extends ValueUpdater<V>> updaters) {
    long txid = open.requireWritable("multiUpdate").txid();
    requireKeys(Objects.requireNonNull(updaters, "updaters").keySet());
    Map<K, V> stored = backing.multiGet(updaters.keySet());
    Map<K, V> updated = new HashMap<>(Math.max(16, updaters.size() * 2));
    updaters.forEach((key, updater) -> updated.put(key,
        requireValue(key, Objects.requireNonNull(updater, "updater").update(Optional.ofNullable(stored.get(key))),
            txid, "updater returned null")));
    backing.multiPut(updated);
    return java.util.Collections.unmodifiableMap(updated);
  }

  /**
   * @throws io.epochal.errors.InvalidRecordException (not retryable) if a key is null or has no value equality, or a
   *     value is null
   */
  @Override
  public void multiPut(Map<K, V> values) {
    long txid = open.requireWritable("multiPut").txid();
    requireKeys(Objects.requireNonNull(values, "values").keySet());
    values.forEach((key, value) -> requireValue(key, value, txid, "null value put"));
    backing.multiPut(values);
  }

  @Override
  public boolean canRemove() {
    return backing instanceof RemovableBackingMap;
  }

  /**
   * @throws UnsupportedOperationException if the store is not a {@link RemovableBackingMap}
   * @throws io.epochal.errors.InvalidRecordException (not retryable) if a key is null or has no value equality
   */
  @Override
  public void multiRemove(Collection<? extends K> keys) {
    open.requireWritable("multiRemove");
    requireKeys(Objects.requireNonNull(keys, "keys"));
    if (!(backing instanceof RemovableBackingMap<K, V> removable)) {
      throw new UnsupportedOperationException("NonTransactionalMap over " + backing.describe() + " cannot remove "
          + "keys: the store is not a RemovableBackingMap");
    }
    if (!keys.isEmpty()) {
      removable.multiRemove(keys);
    }
  }

  private void requireKeys(Collection<? extends K> keys) {
    ErrorContext where = ErrorContext.of(backing.describe(), null);
    for (K key : keys) {
      ValueKeys.require(key, where);
    }
  }

  private V requireValue(K key, V value, long txid, String what) {
    if (value == null) {
      throw new InvalidRecordException(what + " for key '" + key + "' of " + backing.describe() + " (txid " + txid
          + "); null values are errors, never stored or dropped", null,
          ErrorContext.of(backing.describe(), key).withTxid(txid));
    }
    return value;
  }
}
