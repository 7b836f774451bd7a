package io.epochal.testkit;

import io.epochal.state.ForwardingBackingMap;
import io.epochal.state.IBackingMap;
import io.epochal.state.RemovableBackingMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The backing-map wrapper of {@link FaultInjector#wrap(IBackingMap)}: fires {@link FaultPoint#BEFORE_STATE_WRITE} at
 * its first {@code multiGet} of a batch and {@link FaultPoint#INSIDE_MULTIPUT} (after writing a prefix of the cells),
 * records every read and every cell written, with its read-back, in the injector's timeline, and forwards the whole
 * lifecycle. Removals ({@link #multiRemove}, over a {@link RemovableBackingMap}) fire
 * {@link FaultPoint#INSIDE_MULTIPUT} too, after deleting a prefix of the keys. Thread-safe if the wrapped map is.
 *
 * @param <K> the key type
 * @param <C> the cell type
 */
final class FaultInjectingBackingMap<K, C> extends ForwardingBackingMap<K, C> implements RemovableBackingMap<K, C> {
  private final FaultInjector injector;
  private final IBackingMap<K, C> backing;

  FaultInjectingBackingMap(FaultInjector injector, IBackingMap<K, C> backing) {
    super(backing);
    this.injector = injector;
    this.backing = backing;
  }

  @Override
  public Map<K, C> multiGet(Collection<? extends K> keys) {
    Fault f = injector.take(FaultPoint.BEFORE_STATE_WRITE);
    if (f != null) {
      throw injector.raise(f, f.txid());
    }
    long txid = injector.head();
    Map<K, C> result = backing.multiGet(keys);
    injector.timeline().read(txid, keys, result);
    return result;
  }

  @Override
  public void multiPut(Map<K, C> cells) {
    long txid = injector.head();
    Fault f = cells.size() > 1 ? injector.take(FaultPoint.INSIDE_MULTIPUT) : null;
    Map<K, C> written = f == null ? cells : prefix(cells, Math.min(f.prefix(), cells.size() - 1));
    backing.multiPut(written);
    // read back what the map holds now (straight from it: no fault fires, nothing is recorded as a read)
    injector.timeline().wrote(txid, written, backing.multiGet(written.keySet()));
    if (f != null) {
      throw injector.raise(f, txid);
    }
  }

  /** @throws UnsupportedOperationException if the wrapped map is not a {@link RemovableBackingMap} */
  @Override
  public void multiRemove(Collection<? extends K> keys) {
    if (!(backing instanceof RemovableBackingMap<K, C> removable)) {
      throw new UnsupportedOperationException(backing.describe() + " cannot remove keys");
    }
    long txid = injector.head();
    Fault f = keys.size() > 1 ? injector.take(FaultPoint.INSIDE_MULTIPUT) : null;
    List<K> removed = new ArrayList<>(keys);
    if (f != null) {
      removed = removed.subList(0, Math.min(f.prefix(), removed.size() - 1));
    }
    removable.multiRemove(removed);
    if (f != null) {
      throw injector.raise(f, txid);
    }
  }

  @Override
  public String describe() {
    return backing.describe();
  }

  @Override
  public String toString() {
    return "FaultInjecting(" + backing + ")";
  }

  /** The first {@code written} entries of {@code cells}, in their order (what a write failing midway applied). */
  static <K, C> Map<K, C> prefix(Map<K, C> cells, int written) {
    Map<K, C> prefix = new LinkedHashMap<>();
    for (Map.Entry<K, C> e : cells.entrySet()) {
      if (prefix.size() == written) {
        break;
      }
      prefix.put(e.getKey(), e.getValue());
    }
    return prefix;
  }
}
