package io.epochal.state.internal;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.Function;

/**
 * The result of a txid-carrying map's {@code multiUpdate}: every key to its value after the update, as an unmodifiable
 * view over the cells the call wrote (their values read through the rule) and the keys it skipped (their stored
 * values). A view, not a copy: most callers ignore the result, and building it was a hash insertion per key.
 *
 * <p>Internal: not an API. Immutable as long as the two maps are not changed (the owning map hands them over and
 * never changes them); safe to read from any thread once published.
 *
 * @param <K> the key type
 * @param <V> the value type
 * @param <C> the stored cell type
 * @since 0.7.0
 */
public final class UpdatedValues<K, V, C> extends AbstractMap<K, V> {
  private final Map<K, C> written;
  private final Map<K, V> skipped;
  private final Function<? super C, ? extends V> value;
  private Set<Entry<K, V>> entries;

  /**
   * @param written the new cell of every key the call wrote
   * @param skipped the stored value of every key the call skipped; no key of {@code written}
   * @param value the value a written cell holds (the rule's {@code value})
   */
  public UpdatedValues(Map<K, C> written, Map<K, V> skipped, Function<? super C, ? extends V> value) {
    this.written = written;
    this.skipped = skipped;
    this.value = value;
  }

  @Override
  public int size() {
    return written.size() + skipped.size();
  }

  @Override
  public boolean isEmpty() {
    return written.isEmpty() && skipped.isEmpty();
  }

  @Override
  public boolean containsKey(Object key) {
    return written.containsKey(key) || skipped.containsKey(key);
  }

  @Override
  public V get(Object key) {
    C cell = written.get(key);
    return cell != null ? value.apply(cell) : skipped.get(key);
  }

  @Override
  public Set<Entry<K, V>> entrySet() {
    Set<Entry<K, V>> e = entries;
    if (e == null) {
      e = new AbstractSet<>() {
        @Override
        public Iterator<Entry<K, V>> iterator() {
          return new Iterator<>() {
            private final Iterator<Entry<K, C>> w = written.entrySet().iterator();
            private final Iterator<Entry<K, V>> s = skipped.entrySet().iterator();

            @Override
            public boolean hasNext() {
              return w.hasNext() || s.hasNext();
            }

            @Override
            public Entry<K, V> next() {
              if (w.hasNext()) {
                Entry<K, C> next = w.next();
                return new SimpleImmutableEntry<>(next.getKey(), value.apply(next.getValue()));
              }
              if (s.hasNext()) {
                Entry<K, V> next = s.next();
                return new SimpleImmutableEntry<>(next.getKey(), next.getValue());
              }
              throw new NoSuchElementException();
            }
          };
        }

        @Override
        public int size() {
          return UpdatedValues.this.size();
        }
      };
      entries = e;
    }
    return e;
  }
}
