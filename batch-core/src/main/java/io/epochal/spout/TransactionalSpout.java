package io.epochal.spout;

import io.epochal.api.Stable;
import java.util.Optional;

/**
 * A spout whose batches are fixed: the coordinator part ({@link #nextBatch}) decides batch {@code txid}'s metadata
 * once, from batch {@code txid-1}'s; the emitter part ({@link #emit}) must emit exactly the same records for the same
 * metadata on every call. The engine records the metadata before the first emission, so a replay after a crash
 * re-emits the same records under the same txid.
 *
 * @param <T> the record type
 * @param <M> the batch metadata type
 *
 * @since 0.1.0
 */
@Stable
public non-sealed interface TransactionalSpout<T, M> extends Spout<T, M> {

  /**
   * Coordinator part: fixes the metadata of new batch {@code txid}.
   *
   * @param txid the txid of the new batch
   * @param previous the metadata of batch {@code txid - 1}, empty before the very first batch
   * @return the new batch's metadata, or empty when no new data is available now
   */
  Optional<M> nextBatch(long txid, Optional<M> previous);

  /**
   * Emitter part: emits the records of the batch described by {@code metadata}. Deterministic.
   *
   * @param attempt the batch attempt the records go to (a replay has the same txid and a higher attempt)
   * @param metadata the batch's metadata, as fixed by {@link #nextBatch} for {@code attempt.txid()}
   * @param out receives the records; valid for this call only
   * @throws io.epochal.errors.SourceChangedException if the input behind {@code metadata} changed
   */
  void emit(BatchAttempt attempt, M metadata, Collector<T> out);

  @Override
  default SpoutKind kind() {
    return SpoutKind.TRANSACTIONAL;
  }
}
