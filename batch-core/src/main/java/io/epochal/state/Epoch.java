package io.epochal.state;

import io.epochal.spout.BatchAttempt;
import java.util.Optional;

/**
 * One attempt of one batch, opened by the engine for {@code (txid, attempt)} before the batch's commit phase and
 * handed to every state of the batch (through {@link StateContext#epoch()}). It is the only way a table-backed state
 * reaches its staging: such states stage their rows in the epoch's {@link #staging staging} (the epoch buffer of a
 * table checkpoint store, checked for the epoch's txid when the epoch is opened), which the epoch's commit makes
 * durable in one store transaction (epoch protocol) or which writes through per call (per-key protocol).
 *
 * <p>Implementations are immutable and thread-safe (partitions of a batch use one epoch concurrently).
 *
 * @since 0.3.0
 */
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
   * @return empty when the pipeline's checkpoint store stages nothing of that type
   */
  <T> Optional<T> staging(Class<T> type);
}
