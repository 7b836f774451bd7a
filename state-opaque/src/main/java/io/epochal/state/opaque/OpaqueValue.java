package io.epochal.state.opaque;

import io.epochal.api.Stable;
import io.epochal.state.TxidRule;
import java.util.Objects;
import java.util.Optional;

/**
 * A stored opaque cell: the value written by batch {@code txid} ({@code curr}), the value the key had before that
 * batch ({@code prev}), and {@code txid} (Trident's {@code OpaqueValue}, as an immutable record with a primitive
 * txid: there is no "no txid" cell).
 *
 * <p>"No previous value" (the key was first written by batch {@code txid}) is {@code prev = Optional.empty()}, never
 * {@code null}. It is exactly the base an update of a replayed first write must start from, so the replay rule
 * hands the stored {@code prev} to the {@code ValueUpdater} as is, and the normal rule's {@code Optional.of(curr)}
 * becomes the next cell's {@code prev}: no allocation beyond the one the updater's {@code Optional} argument needs.
 *
 * <p>The rule for batch {@code t} is pure: {@link #decide(long)}, {@link #base(long)} (the value {@code t} builds
 * on) and {@link #next(long, Object)} (the cell {@code t} stores):
 * <ul>
 *   <li>{@code txid < t}: base {@code curr}; next {@code (new, Optional.of(curr), t)};
 *   <li>{@code txid == t}, a replay: base {@code prev}, discarding the earlier attempt's {@code curr}; next
 *       {@code (new, prev, t)};
 *   <li>{@code txid > t}: the state is ahead of the coordinator; {@code base} and {@code next} refuse.
 * </ul>
 * Immutable and thread-safe.
 *
 * @param curr the value written by batch {@code txid}, never null
 * @param prev the value before batch {@code txid}; empty if the key had none
 * @param txid the batch that wrote {@code curr}, at least 1
 * @param <V> the value type
 * @since 0.1.0
 */
@Stable
public record OpaqueValue<V>(V curr, Optional<V> prev, long txid) {

  /** What batch {@code t} builds on, given a key's stored cell. */
  public enum Decision {
    /** The cell is older than {@code t}: build on {@code curr}. */
    BUILD_ON_CURR,
    /** The cell was written by an earlier attempt of {@code t}: discard {@code curr}, rebuild from {@code prev}. */
    REPLAY_FROM_PREV,
    /** The cell was written by a batch after {@code t}: the state is ahead of the coordinator; stop. */
    AHEAD
  }

  /**
   * Makes the cell, checking its invariants.
   *
   * @param curr the value written by batch {@code txid}, never null
   * @param prev the value before batch {@code txid}; empty if the key had none, never null
   * @param txid the batch that wrote {@code curr}, at least 1
   * @throws NullPointerException if {@code curr} or {@code prev} is null
   * @throws IllegalArgumentException if {@code txid < 1}
   */
  public OpaqueValue {
    Objects.requireNonNull(curr, "curr");
    Objects.requireNonNull(prev, "prev");
    requireTxid(txid, "txid");
  }

  /**
   * The cell of a key first written by batch {@code txid}: {@code (curr, empty, txid)}.
   *
   * @param <V> the value type
   * @param curr the value batch {@code txid} wrote, never null
   * @param txid the batch that wrote the key first, at least 1
   * @return the cell with no previous value
   * @throws NullPointerException if {@code curr} is null
   * @throws IllegalArgumentException if {@code txid < 1}
   */
  public static <V> OpaqueValue<V> first(V curr, long txid) {
    return new OpaqueValue<>(curr, Optional.empty(), txid);
  }

  /**
   * The cell {@code (curr, Optional.of(prev), txid)}.
   *
   * @param <V> the value type
   * @param curr the value batch {@code txid} wrote, never null
   * @param prev the value the key had before batch {@code txid}, never null
   * @param txid the batch that wrote {@code curr}, at least 1
   * @return the cell with a previous value
   * @throws NullPointerException if {@code curr} or {@code prev} is null
   * @throws IllegalArgumentException if {@code txid < 1}
   */
  public static <V> OpaqueValue<V> of(V curr, V prev, long txid) {
    return new OpaqueValue<>(curr, Optional.of(prev), txid);
  }

  /**
   * The opaque rule for this stored cell and batch {@code batchTxid}.
   *
   * @param batchTxid the batch about to read or update the key, at least 1
   * @return {@link Decision#BUILD_ON_CURR} if this cell's {@code txid} is below {@code batchTxid},
   *     {@link Decision#REPLAY_FROM_PREV} if equal, {@link Decision#AHEAD} if above
   * @throws IllegalArgumentException if {@code batchTxid < 1}
   */
  public Decision decide(long batchTxid) {
    requireTxid(batchTxid, "batch txid");
    return txid < batchTxid ? Decision.BUILD_ON_CURR
        : txid == batchTxid ? Decision.REPLAY_FROM_PREV : Decision.AHEAD;
  }

  /**
   * The value batch {@code batchTxid} reads and builds on: {@code curr} if this cell is older, {@code prev} if it was
   * written by an earlier attempt of the same batch.
   *
   * @param batchTxid the batch about to read or update the key, at least 1
   * @return {@code Optional.of(curr)} for an older cell; {@code prev} for a replay, empty if the key had no value
   *     before this cell's batch
   * @throws IllegalArgumentException if {@code batchTxid < 1}
   * @throws IllegalStateException if this cell is ahead of {@code batchTxid} (check {@link #decide(long)} first; map
   *     states report it as {@link io.epochal.errors.StateAheadException} with the table and key)
   */
  public Optional<V> base(long batchTxid) {
    switch (decide(batchTxid)) {
      case BUILD_ON_CURR:
        return Optional.of(curr);
      case REPLAY_FROM_PREV:
        return prev;
      default:
        throw aheadOf(batchTxid);
    }
  }

  /**
   * The cell batch {@code batchTxid} stores when it sets the key to {@code newValue}:
   * {@code (newValue, base(batchTxid), batchTxid)}. Writing it again in the same attempt keeps {@code prev}.
   *
   * @param batchTxid the batch writing the key, at least 1 and not below this cell's {@code txid}
   * @param newValue the value the batch sets, never null
   * @return the new cell; this one is unchanged
   * @throws NullPointerException if {@code newValue} is null
   * @throws IllegalArgumentException if {@code batchTxid < 1}
   * @throws IllegalStateException if this cell is ahead of {@code batchTxid}
   */
  public OpaqueValue<V> next(long batchTxid, V newValue) {
    Objects.requireNonNull(newValue, "newValue");
    return new OpaqueValue<>(newValue, base(batchTxid), batchTxid);
  }

  private IllegalStateException aheadOf(long batchTxid) {
    return new IllegalStateException(
        "the cell was written by batch " + txid + ", ahead of batch " + batchTxid + ": " + this);
  }

  private static void requireTxid(long txid, String name) {
    if (txid < 1) {
      throw new IllegalArgumentException(name + " must be at least 1, was " + txid);
    }
  }

  /**
   * The opaque rule as a {@link TxidRule} (what {@link OpaqueMap} runs): a batch reads and builds on
   * {@link #base(long)}, never skips, and stores {@link #next(long, Object)} (or {@link #first} for a new key).
   *
   * @param <V> the value type
   * @return a stateless, thread-safe rule
   */
  public static <V> TxidRule<V, OpaqueValue<V>> rule() {
    return new Rule<>();
  }

  /** {@link #rule()}. Stateless. */
  private static final class Rule<V> implements TxidRule<V, OpaqueValue<V>> {
    @Override
    public long txid(OpaqueValue<V> cell) {
      return cell.txid();
    }

    @Override
    public V value(OpaqueValue<V> cell) {
      return cell.curr();
    }

    @Override
    public Optional<V> base(OpaqueValue<V> cell, long txid) {
      return cell.base(txid);
    }

    @Override
    public boolean skips(OpaqueValue<V> cell, long txid) {
      return false;
    }

    @Override
    public OpaqueValue<V> next(OpaqueValue<V> previous, V value, long txid) {
      return previous == null ? first(value, txid) : previous.next(txid, value);
    }
  }
}
