package io.epochal.store.table;

import io.epochal.api.Evolving;

/**
 * How the states of a batch and the coordinator's checkpoint reach a {@link TableStore}; chosen by
 * {@link TableCheckpointStore} from the store's {@link StoreCapabilities}.
 *
 * @since 0.1.0
 */
@Evolving
public enum CommitProtocol {
  /**
   * Flow's epoch commit: state writes go to the pipeline's epoch buffer (reads see it first), and the checkpoint
   * commit writes every buffered row of every state plus the checkpoint row in one store transaction, fenced by the
   * pipeline's lease. A failed attempt leaves nothing visible. Needs
   * {@link StoreCapabilities#atomicMultiTableCommit()}.
   */
  EPOCH,
  /**
   * Trident's per-key protocol: each state write is its own store transaction (atomic per call), the stored cells
   * carry txids that make a replay idempotent, and the checkpoint is written after all states of the batch.
   */
  PER_KEY
}
