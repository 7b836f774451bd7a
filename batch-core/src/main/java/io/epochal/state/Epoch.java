package io.epochal.state;

import io.epochal.api.Stable;
import io.epochal.spout.BatchAttempt;
import io.epochal.state.internal.PlainEpoch;
import java.util.Optional;

/**
 * One attempt of one batch, opened by the engine for {@code (txid, attempt)} before the batch's commit phase and
 * handed to every state partition of the batch once, by {@link State#begin(Epoch)}: it is the only way a state learns
 * the txid, and the only way a table-backed state reaches its staging: such states stage their rows in the epoch's
 * {@link #staging staging} (the epoch buffer of a table checkpoint store, checked for the epoch's txid when the epoch
 * is opened), which the epoch's commit makes durable in one store transaction (epoch protocol) or which writes
 * through per call (per-key protocol). The commit of the epoch (by the engine, through the checkpoint store) is the
 * one step that makes a batch durable.
 *
 * <p>Outside a pipeline, {@link #of} makes an epoch without staging (tests, benchmarks, adapters that receive a txid
 * from another engine) and {@link #readAfter} a read-only epoch for reading what is committed up to a txid.
 *
 * <p>Implementations are immutable and thread-safe (partitions of a batch use one epoch concurrently).
 *
 * @since 0.3.0
 */
@Stable
public interface Epoch {

  /** @return the pipeline whose batch this is */
  String pipeline();

  /** @return the batch and attempt this epoch was opened for */
  BatchAttempt attempt();

  /** @return the batch's txid, {@code attempt().txid()} */
  default long txid() {
    return attempt().txid();
  }

  /**
   * The staging of type {@code type} this epoch offers, e.g. {@code io.epochal.store.table.EpochBuffer} when the
   * pipeline's checkpoint store is a table checkpoint store.
   *
   * @param type the staging type the state needs
   * @param <T> the staging type
   * @return the staging, an instance of {@code type}; empty when the pipeline's checkpoint store stages nothing of
   *     that type
   */
  <T> Optional<T> staging(Class<T> type);

  /**
   * @return true for an epoch that only reads ({@link #readAfter}): map states refuse writes in it with
   *     {@link IllegalStateException}; the default is false
   */
  default boolean readOnly() {
    return false;
  }

  /**
   * Whether a txid-carrying map state skips an update of a key whose stored cell was already written for this
   * epoch's txid ({@link TxidRule#skips}): Trident's "already applied" rule, which exactly-once needs on the per-key
   * protocol. The default is true. The engine opens epochs answering false in an {@code AT_LEAST_ONCE} pipeline:
   * there a replay may be cut anew (its spout metadata is not recorded before emission), so a cell written by a failed
   * attempt under the same txid does not prove the replay's records are in it; the map then applies the update to the
   * stored value, which may count the failed attempt's records twice and never loses the replay's.
   *
   * @return true if a cell already written for this epoch's txid must not be updated again; false to apply the
   *     update to it
   * @since 0.6.0
   */
  default boolean skipsAppliedCells() {
    return true;
  }

  /**
   * An epoch for {@code attempt} of pipeline {@code pipeline} that offers no staging: for states driven outside an
   * Epochal pipeline (unit tests, benchmarks, a Storm topology passing Trident's txid). The caller vouches for the
   * txid order, as the engine does.
   *
   * @param pipeline the pipeline's name, not null
   * @param attempt the batch attempt the epoch is for, not null
   * @return a new writable epoch without staging, skipping applied cells
   * @throws NullPointerException if an argument is null
   */
  static Epoch of(String pipeline, BatchAttempt attempt) {
    return new PlainEpoch(pipeline, attempt, false);
  }

  /**
   * A read-only epoch that sees what is committed up to and including batch {@code committedTxid}: its txid is
   * {@code committedTxid + 1} (attempt 1), it offers no staging (table-backed states then read committed rows), and map
   * states refuse writes in it. Begin a state with it to read results outside a batch, then {@link State#end()}.
   *
   * @param pipeline the pipeline's name, not null
   * @param committedTxid the last committed txid, at least 0 (0: nothing committed yet)
   * @return a new read-only epoch of txid {@code committedTxid + 1}
   * @throws IllegalArgumentException if {@code committedTxid} is negative or {@link Long#MAX_VALUE}
   */
  static Epoch readAfter(String pipeline, long committedTxid) {
    if (committedTxid < 0 || committedTxid == Long.MAX_VALUE) {
      throw new IllegalArgumentException("committedTxid must be in [0, Long.MAX_VALUE), was " + committedTxid);
    }
    return new PlainEpoch(pipeline, new BatchAttempt(committedTxid + 1, 1), true);
  }
}
