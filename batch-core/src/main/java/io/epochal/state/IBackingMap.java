package io.epochal.state;

import io.epochal.api.Stable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Bulk get and put of stored cells: the one integration point for any key-value store. Map states
 * ({@code TransactionalMap}, {@code OpaqueMap}, {@link NonTransactionalMap}) layer their rules over it; the cell
 * type {@code C} is whatever they store ({@code TransactionalValue<V>}, {@code OpaqueValue<V>} or a plain value).
 *
 * <p>Atomicity is per call at best: a failing {@link #multiPut} may have written some of its keys. The txid rules
 * of the map states make that harmless.
 *
 * <p>Lifecycle: the map state over this map forwards its own {@code begin(epoch)}, {@code end} and {@code abort} to
 * {@link #begin}, {@link #end} and {@link #abort}, so a layer that keeps something per attempt (a cache, a
 * buffer) can drop what a failed attempt put in it. The defaults do nothing; a wrapper must forward all three (extend
 * {@link ForwardingBackingMap}).
 *
 * @param <K> the key type
 * @param <C> the stored cell type
 *
 * @since 0.1.0
 */
@Stable
public interface IBackingMap<K, C> {

  /**
   * Reads the stored cells of the given keys.
   *
   * @param keys the keys to read, not null
   * @return an unmodifiable map of the given keys that have a stored cell; missing keys are absent
   * @throws NullPointerException if {@code keys} or one of its elements is null
   * @throws io.epochal.errors.StoreException if the store cannot be read
   */
  Map<K, C> multiGet(Collection<? extends K> keys);

  /**
   * Reads the stored cells of the given keys by position: element {@code i} of the result is the cell of the
   * {@code i}-th key of {@code keys}, or {@code null} if that key has none (the convention of Trident's
   * {@code IBackingMap.multiGet}). The same read as {@link #multiGet}, with the same errors; the map states read
   * through this method, so a store that reads positionally anyway spares each call a hash map of its results. The
   * default builds the list from {@link #multiGet}: a wrapper that changes what {@code multiGet} returns (a cache, a
   * fault injector) is read through its own {@code multiGet} without overriding this method, and
   * {@link ForwardingBackingMap} deliberately does not forward it.
   *
   * @param keys the keys to read, not null
   * @return an unmodifiable list, one element per key in order: its stored cell, or {@code null}
   * @throws NullPointerException if {@code keys} or one of its elements is null
   * @throws io.epochal.errors.StoreException if the store cannot be read
   * @since 0.8.0
   */
  default List<C> multiGetOrdered(List<? extends K> keys) {
    Map<K, C> found = multiGet(keys);
    List<C> cells = new ArrayList<>(keys.size());
    for (K key : keys) {
      cells.add(found.get(key));
    }
    return Collections.unmodifiableList(cells);
  }

  /**
   * Stores the given cells.
   *
   * @param cells the cell to store for each key, replacing any stored cell of that key
   * @throws NullPointerException if {@code cells}, a key or a cell is null
   * @throws io.epochal.errors.StoreException if the store cannot be written; some cells may have been written
   */
  void multiPut(Map<K, C> cells);

  /**
   * The state over this map starts applying the batch of {@code epoch} (every earlier batch is durably committed,
   * unless the epoch is {@linkplain Epoch#readOnly read-only}).
   *
   * @param epoch the epoch of the batch attempt being applied (or a read-only epoch)
   * @since 0.5.0
   */
  default void begin(Epoch epoch) {
  }

  /**
   * The state over this map ended applying its epoch's batch; the batch becomes durable only with the engine's
   * commit of the epoch that follows, and may still be aborted.
   *
   * @since 0.5.0
   */
  default void end() {
  }

  /**
   * The current attempt failed (possibly after {@link #end}): drop whatever it put in a cache or buffer of this
   * layer; what it wrote to the store under the epoch protocol was never committed. A no-op when no epoch is open.
   *
   * @since 0.5.0
   */
  default void abort() {
  }

  /**
   * A short description of the store used in error messages; the default is the class name.
   *
   * @return a description naming the store and, where it has one, its table
   */
  default String describe() {
    return getClass().getSimpleName();
  }
}
