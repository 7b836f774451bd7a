package io.epochal.spout;

import io.epochal.api.Stable;
import java.util.Optional;

/**
 * A spout that continues from the last position: the emitter part emits whatever follows {@code previous} and
 * returns the position after what it emitted. A replayed txid starts again from the last committed position and may
 * emit different records (a different cut). Every record ends up in exactly one committed batch.
 *
 * @param <T> the record type
 * @param <M> the position type
 *
 * @since 0.1.0
 */
@Stable
public non-sealed interface OpaqueSpout<T, M> extends Spout<T, M> {

  /**
   * Coordinator part: whether a new batch {@code txid} should start after {@code previous} (data is available).
   *
   * @param txid the txid the new batch would get
   * @param previous the position after batch {@code txid - 1}, empty before the very first batch
   * @return true to start batch {@code txid} now; false if no data follows {@code previous} yet
   */
  boolean isReady(long txid, Optional<M> previous);

  /**
   * Emitter part: emits the records following {@code previous}.
   *
   * @param attempt the batch attempt the records go to
   * @param previous the position after batch {@code txid - 1} (the committed one when {@code txid} is replayed)
   * @param out receives the records; valid for this call only
   * @return the position after the emitted records; {@code previous}'s value if nothing was emitted
   */
  M emit(BatchAttempt attempt, Optional<M> previous, Collector<T> out);

  @Override
  default SpoutKind kind() {
    return SpoutKind.OPAQUE;
  }
}
