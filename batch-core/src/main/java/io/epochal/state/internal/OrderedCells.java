package io.epochal.state.internal;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * The cells one map-state call wrote, as an unmodifiable map over two arrays in the order they were added: filling
 * it costs no hashing, and iterating it ({@code forEach}, the store's {@code multiPut}) visits the keys in the
 * caller's order. Lookups ({@code get}, {@code containsKey}), which only a second write of the same attempt needs,
 * build a hash index on first use.
 *
 * <p>Internal: not an API. Filled by one thread ({@link #add}, then never again); once handed on, safe to read from
 * any thread (the lazy index is published through a volatile field).
 *
 * @param <K> the key type
 * @param <C> the stored cell type
 * @since 0.8.0
 */
public final class OrderedCells<K, C> extends AbstractMap<K, C> {
  private final Object[] keys;
  private final Object[] cells;
  private int size;
  private volatile HashMap<K, C> index;
  private Set<Entry<K, C>> entries;

  /** @param capacity the most cells that will be added, {@code >= 0} */
  public OrderedCells(int capacity) {
    keys = new Object[capacity];
    cells = new Object[capacity];
  }

  /**
   * Appends a cell (the filling thread only, before the map is handed on).
   *
   * @param key a key not added before, not null
   * @param cell its cell, not null
   * @throws IndexOutOfBoundsException beyond the capacity
   */
  public void add(K key, C cell) {
    keys[size] = Objects.requireNonNull(key, "key");
    cells[size] = Objects.requireNonNull(cell, "cell");
    size++;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public boolean isEmpty() {
    return size == 0;
  }

  @Override
  public C get(Object key) {
    return index().get(key);
  }

  @Override
  public boolean containsKey(Object key) {
    return index().containsKey(key);
  }

  @SuppressWarnings("unchecked")
  private HashMap<K, C> index() {
    HashMap<K, C> m = index;
    if (m == null) {
      m = new HashMap<>(TxidMapCore.capacity(size));
      for (int i = 0; i < size; i++) {
        m.put((K) keys[i], (C) cells[i]);
      }
      index = m;
    }
    return m;
  }

  @Override
  @SuppressWarnings("unchecked")
  public void forEach(BiConsumer<? super K, ? super C> action) {
    for (int i = 0; i < size; i++) {
      action.accept((K) keys[i], (C) cells[i]);
    }
  }

  @Override
  public Set<Entry<K, C>> entrySet() {
    Set<Entry<K, C>> e = entries;
    if (e == null) {
      e = new AbstractSet<>() {
        @Override
        public Iterator<Entry<K, C>> iterator() {
          return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
              return next < size;
            }

            @Override
            @SuppressWarnings("unchecked")
            public Entry<K, C> next() {
              if (next >= size) {
                throw new NoSuchElementException();
              }
              int i = next++;
              return new SimpleImmutableEntry<>((K) keys[i], (C) cells[i]);
            }
          };
        }

        @Override
        public int size() {
          return size;
        }
      };
      entries = e;
    }
    return e;
  }
}
