package io.epochal.state;

import io.epochal.api.Stable;
import java.util.Optional;

/**
 * The cell rule of a txid-carrying map state ({@link TxidMap}): how a stored cell {@code C}, written by some batch,
 * is read and replaced by batch {@code t}. The rule is pure: it never touches a store. The two rules of the project
 * are {@code TransactionalValue.rule()} (skip a key already at {@code t}) and {@code OpaqueValue.rule()} (rebuild from
 * the previous value). {@link TxidMap} has already refused cells ahead of {@code t} (txid above {@code t}) before it
 * asks the rule about them.
 *
 * <p>Implementations are stateless and thread-safe.
 *
 * @param <V> the value type
 * @param <C> the stored cell type
 * @since 0.3.0
 */
@Stable
public interface TxidRule<V, C> {

  /**
   * The txid a cell carries.
   *
   * @param cell a stored cell, or one written in the running attempt
   * @return the txid of the batch that wrote {@code cell}
   */
  long txid(C cell);

  /**
   * The value a cell holds now.
   *
   * @param cell a stored cell, or one written in the running attempt
   * @return the current value of {@code cell} (what a read sees of a cell written in the running attempt)
   */
  V value(C cell);

  /**
   * The value batch {@code txid} sees in a stored cell.
   *
   * @param cell the stored cell, not ahead of {@code txid}
   * @param txid the txid of the batch reading the cell
   * @return what batch {@code txid} reads of, and builds on, the stored {@code cell} (not ahead of {@code txid});
   *     empty if the batch sees no value
   */
  Optional<V> base(C cell, long txid);

  /**
   * Trident's "already applied" test.
   *
   * @param cell the stored cell, not ahead of {@code txid}
   * @param txid the txid of the batch updating the cell
   * @return whether an update of batch {@code txid} must leave the stored {@code cell} (not ahead of {@code txid})
   *     unchanged, because that batch was already applied to it
   */
  boolean skips(C cell, long txid);

  /**
   * The cell to write for a key's new value.
   *
   * @param previous the key's cell before (stored, not ahead of {@code txid}, or written earlier in the running
   *     attempt), or {@code null} if the key has none
   * @param value the key's new value, not null
   * @param txid the txid of the batch writing the cell
   * @return the cell that stores {@code value} for batch {@code txid}
   */
  C next(C previous, V value, long txid);
}
