package io.epochal.trident;

import io.epochal.errors.EpochalException;
import io.epochal.errors.ErrorContext;
import io.epochal.errors.StateCorruptedException;
import io.epochal.state.IBackingMap;
import io.epochal.state.opaque.OpaqueValue;
import io.epochal.state.transactional.TransactionalValue;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * An Epochal {@link IBackingMap} over a user's Trident {@code IBackingMap}: keys are Trident's positional
 * {@code List<Object>} keys, passed through unchanged; cells are converted between Storm's {@code OpaqueValue} /
 * {@code TransactionalValue} / plain values and Epochal's cells. Values read back have {@code Integer}, {@code Short}
 * and {@code Byte} widened to {@code Long} (see {@link TridentJson#normalize}). A stored opaque or transactional cell
 * without a value (Trident wrote {@code null}, e.g. {@code MemoryMapState.multiRemove}) keeps its txid and prev, with
 * the value {@link TridentNullCells#REMOVED} (which the map states over it must hide, see {@link TridentNullCells});
 * a plain null value is absent; a stored cell with a null txid raises {@link StateCorruptedException}. As thread-safe
 * as the wrapped map.
 *
 * @param <T> the Trident cell type
 * @param <C> the Epochal cell type
 */
final class TridentBackingMap<T, C> implements IBackingMap<List<Object>, C> {

  /** Converts between a Trident cell and an Epochal cell. */
  interface Cells<T, C> {
    /**
     * @return the Epochal cell; a Trident cell without a value keeps its txid (and prev), with the value
     *     {@link TridentNullCells#REMOVED}
     */
    C fromTrident(T stored, String table, Object key);

    T toTrident(C cell);
  }

  static final Cells<org.apache.storm.trident.state.OpaqueValue<Object>, OpaqueValue<Object>> OPAQUE =
      new Cells<>() {
        @Override
        public OpaqueValue<Object> fromTrident(org.apache.storm.trident.state.OpaqueValue<Object> stored, String table,
            Object key) {
          long txid = requireTxid(stored.getCurrTxid(), table, key, "OpaqueValue " + describe(stored));
          Object curr = TridentJson.normalize(stored.getCurr());
          Object prev = TridentJson.normalize(stored.getPrev());
          return new OpaqueValue<>(curr == null ? TridentNullCells.REMOVED : curr, Optional.ofNullable(prev), txid);
        }

        @Override
        public org.apache.storm.trident.state.OpaqueValue<Object> toTrident(OpaqueValue<Object> cell) {
          return new org.apache.storm.trident.state.OpaqueValue<>(cell.txid(), tridentValue(cell.curr()),
              tridentValue(cell.prev().orElse(null)));
        }
      };

  static final Cells<org.apache.storm.trident.state.TransactionalValue<Object>, TransactionalValue<Object>>
      TRANSACTIONAL = new Cells<>() {
        @Override
        public TransactionalValue<Object> fromTrident(org.apache.storm.trident.state.TransactionalValue<Object> stored,
            String table, Object key) {
          long txid = requireTxid(stored.getTxid(), table, key,
              "TransactionalValue [" + stored.getTxid() + ", " + stored.getVal() + "]");
          Object value = TridentJson.normalize(stored.getVal());
          return new TransactionalValue<>(value == null ? TridentNullCells.REMOVED : value, txid);
        }

        @Override
        public org.apache.storm.trident.state.TransactionalValue<Object> toTrident(TransactionalValue<Object> cell) {
          return new org.apache.storm.trident.state.TransactionalValue<>(cell.txid(), tridentValue(cell.value()));
        }
      };

  static final Cells<Object, Object> PLAIN = new Cells<>() {
    @Override
    public Object fromTrident(Object stored, String table, Object key) {
      return TridentJson.normalize(stored);
    }

    @Override
    public Object toTrident(Object cell) {
      return cell;
    }
  };

  private final org.apache.storm.trident.state.map.IBackingMap<T> delegate;
  private final Cells<T, C> cells;
  private final String name;

  TridentBackingMap(org.apache.storm.trident.state.map.IBackingMap<T> delegate, Cells<T, C> cells, String name) {
    this.delegate = Objects.requireNonNull(delegate, "backing map");
    this.cells = cells;
    this.name = name;
  }

  @Override
  public Map<List<Object>, C> multiGet(Collection<? extends List<Object>> keys) {
    List<List<Object>> list = new ArrayList<>(keys.size());
    for (List<Object> key : keys) {
      list.add(Objects.requireNonNull(key, "key"));
    }
    if (list.isEmpty()) {
      return Map.of();
    }
    List<T> stored = delegate.multiGet(list);
    if (stored == null || stored.size() != list.size()) {
      throw new EpochalException("Trident IBackingMap " + describe() + " returned "
          + (stored == null ? "null" : stored.size() + " values") + " for " + list.size() + " keys: a broken "
          + "IBackingMap (multiGet must return one value, or null, per key, in order)", null, false,
          ErrorContext.of(name, null));
    }
    Map<List<Object>, C> found = new HashMap<>(Math.max(16, list.size() * 2));
    for (int i = 0; i < list.size(); i++) {
      T cell = stored.get(i);
      if (cell != null) {
        C converted = cells.fromTrident(cell, name, list.get(i));
        if (converted != null) { // a plain Trident value of null is no value
          found.put(list.get(i), converted);
        }
      }
    }
    return Collections.unmodifiableMap(found);
  }

  @Override
  public void multiPut(Map<List<Object>, C> newCells) {
    List<List<Object>> keys = new ArrayList<>(newCells.size());
    List<T> values = new ArrayList<>(newCells.size());
    for (Map.Entry<List<Object>, C> e : newCells.entrySet()) {
      keys.add(Objects.requireNonNull(e.getKey(), "key"));
      values.add(cells.toTrident(Objects.requireNonNull(e.getValue(), "cell")));
    }
    if (!keys.isEmpty()) {
      delegate.multiPut(keys, values);
    }
  }

  @Override
  public String describe() {
    return "Trident " + delegate.getClass().getName() + " (" + name + ")";
  }

  /** A Trident cell's txid; a cell without one, or below 1, is corrupt for an Epochal map (non-retryable). */
  private static long requireTxid(Long txid, String table, Object key, String cell) {
    if (txid == null) {
      throw new StateCorruptedException(table, key, OptionalLong.empty(), new IllegalStateException(
          "a Trident " + cell + " with a null txid (written by a non-transactional stream); Trident itself cannot "
              + "apply its txid rules to it either"));
    }
    if (txid < 1) {
      throw new StateCorruptedException(table, key, OptionalLong.of(txid),
          new IllegalStateException("a Trident " + cell + " with txid " + txid + "; txids start at 1"));
    }
    return txid;
  }

  /** The value as Trident stores it: {@link TridentNullCells#REMOVED} is Trident's null. */
  private static Object tridentValue(Object value) {
    return value == TridentNullCells.REMOVED ? null : value;
  }

  private static String describe(org.apache.storm.trident.state.OpaqueValue<?> v) {
    return "[" + v.getCurrTxid() + ", " + v.getCurr() + ", " + v.getPrev() + "]";
  }
}
