package io.epochal.state.transactional;

import io.epochal.api.Stable;
import io.epochal.state.TxidRule;
import java.util.Objects;
import java.util.Optional;

/**
 * A stored transactional cell: a value and the txid of the batch that wrote it (Trident's {@code TransactionalValue},
 * as an immutable record with a primitive txid: there is no "no txid" cell).
 *
 * <p>The update rule for batch {@code t} is the pure function {@link #decide(long)}: {@link Decision#APPLY} when the
 * cell is older than {@code t}, {@link Decision#SKIP} when {@code t} already wrote it (a replay), and
 * {@link Decision#AHEAD} when it is newer than {@code t} (the state is ahead of the coordinator; never guessed).
 * Immutable and thread-safe.
 *
 * @param value the stored value, never null
 * @param txid the batch that wrote it, at least 1
 * @param <V> the value type
 * @since 0.1.0
 */
@Stable
public record TransactionalValue<V>(V value, long txid) {

  /** What batch {@code t} does with a key's stored cell. */
  public enum Decision {
    /** The key has no cell or an older one: apply the update and store {@code (new, t)}. */
    APPLY,
    /** The cell was written by batch {@code t} (an earlier attempt): the update is already in it; write nothing. */
    SKIP,
    /** The cell was written by a batch after {@code t}: the state is ahead of the coordinator; stop. */
    AHEAD
  }

  /**
   * Makes the cell, checking its invariants.
   *
   * @param value the stored value, never null
   * @param txid the batch that wrote it, at least 1
   * @throws NullPointerException if {@code value} is null
   * @throws IllegalArgumentException if {@code txid < 1}
   */
  public TransactionalValue {
    Objects.requireNonNull(value, "value");
    if (txid < 1) {
      throw new IllegalArgumentException("txid must be at least 1, was " + txid);
    }
  }

  /**
   * The transactional rule for this stored cell and batch {@code batchTxid}.
   *
   * @param batchTxid the batch about to update the key, at least 1
   * @return {@link Decision#APPLY} if this cell's {@code txid} is below {@code batchTxid}, {@link Decision#SKIP} if
   *     equal, {@link Decision#AHEAD} if above
   * @throws IllegalArgumentException if {@code batchTxid < 1}
   */
  public Decision decide(long batchTxid) {
    requireTxid(batchTxid);
    return txid < batchTxid ? Decision.APPLY : txid == batchTxid ? Decision.SKIP : Decision.AHEAD;
  }

  /**
   * The transactional rule for a key's stored cell, if any, and batch {@code batchTxid}: {@link Decision#APPLY} for
   * a key without a cell, else {@link #decide(long)}.
   *
   * @param stored the key's stored cell; empty if the key has none
   * @param batchTxid the batch about to update the key, at least 1
   * @return {@link Decision#APPLY} if {@code stored} is empty, else the stored cell's decision
   * @throws NullPointerException if {@code stored} is null
   * @throws IllegalArgumentException if {@code batchTxid < 1}
   */
  public static Decision decide(Optional<? extends TransactionalValue<?>> stored, long batchTxid) {
    Objects.requireNonNull(stored, "stored");
    requireTxid(batchTxid);
    return stored.isPresent() ? stored.get().decide(batchTxid) : Decision.APPLY;
  }

  private static void requireTxid(long batchTxid) {
    if (batchTxid < 1) {
      throw new IllegalArgumentException("batch txid must be at least 1, was " + batchTxid);
    }
  }

  /**
   * The transactional rule as a {@link TxidRule} (what {@link TransactionalMap} runs): a batch reads the stored value,
   * skips a key it already wrote ({@link Decision#SKIP}), and stores {@code (new, t)}.
   *
   * @param <V> the value type
   * @return a stateless, thread-safe rule
   */
  public static <V> TxidRule<V, TransactionalValue<V>> rule() {
    return new Rule<>();
  }

  /** {@link #rule()}. Stateless. */
  private static final class Rule<V> implements TxidRule<V, TransactionalValue<V>> {
    @Override
    public long txid(TransactionalValue<V> cell) {
      return cell.txid();
    }

    @Override
    public V value(TransactionalValue<V> cell) {
      return cell.value();
    }

    @Override
    public Optional<V> base(TransactionalValue<V> cell, long txid) {
      return Optional.of(cell.value());
    }

    @Override
    public boolean skips(TransactionalValue<V> cell, long txid) {
      return cell.decide(txid) == Decision.SKIP;
    }

    @Override
    public TransactionalValue<V> next(TransactionalValue<V> previous, V value, long txid) {
      return new TransactionalValue<>(value, txid);
    }
  }
}
