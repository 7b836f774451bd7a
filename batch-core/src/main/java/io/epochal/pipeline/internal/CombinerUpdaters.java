package io.epochal.pipeline.internal;

import io.epochal.errors.ErrorContext;
import io.epochal.state.ValueUpdater;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Collections;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * The updaters of a combiner aggregate, {@code stored -> stored.isEmpty() ? partial : combine(stored, partial)} per
 * key, as a read-only view over the pre-aggregated partials: no second hash map per batch and partition. Iterates in
 * the partials' order; updaters are made on access and refuse a null (or overflowing) combine naming the key.
 */
final class CombinerUpdaters extends AbstractMap<Object, ValueUpdater<Object>> {
  private final Map<Object, Object> partials;
  private final AggregateNode aggregate;
  private final ErrorContext where;

  CombinerUpdaters(Map<Object, Object> partials, AggregateNode aggregate, ErrorContext where) {
    this.partials = partials;
    this.aggregate = aggregate;
    this.where = where;
  }

  private ValueUpdater<Object> updater(Object key, Object partial) {
    return stored -> stored.isEmpty() ? partial : aggregate.combined(key, stored.get(), partial, where);
  }

  @Override
  public int size() {
    return partials.size();
  }

  @Override
  public boolean containsKey(Object key) {
    return partials.containsKey(key);
  }

  @Override
  public ValueUpdater<Object> get(Object key) {
    Object partial = partials.get(key);
    return partial == null ? null : updater(key, partial);
  }

  @Override
  public Set<Object> keySet() {
    return Collections.unmodifiableSet(partials.keySet());
  }

  @Override
  public Set<Map.Entry<Object, ValueUpdater<Object>>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public int size() {
        return partials.size();
      }

      @Override
      public Iterator<Map.Entry<Object, ValueUpdater<Object>>> iterator() {
        Iterator<Map.Entry<Object, Object>> it = partials.entrySet().iterator();
        return new Iterator<>() {
          @Override
          public boolean hasNext() {
            return it.hasNext();
          }

          @Override
          public Map.Entry<Object, ValueUpdater<Object>> next() {
            Map.Entry<Object, Object> e = it.next();
            return new AbstractMap.SimpleImmutableEntry<>(e.getKey(), updater(e.getKey(), e.getValue()));
          }
        };
      }
    };
  }
}
