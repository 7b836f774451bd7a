package io.epochal.spout;

import io.epochal.api.Stable;
import io.epochal.codec.Codec;
import io.epochal.codec.Codecs;

/**
 * A spout without replay guarantees: each call emits whatever is available. A failed batch's records may be lost
 * or replaced. Pipelines with such a spout deliver at most {@code AT_LEAST_ONCE} or {@code AT_MOST_ONCE}.
 *
 * @param <T> the record type
 *
 * @since 0.1.0
 */
@Stable
public non-sealed interface NonTransactionalSpout<T> extends Spout<T, byte[]> {

  /**
   * Coordinator part: whether a new batch {@code txid} should start now.
   *
   * @param txid the txid the new batch would get
   * @return true to start batch {@code txid} now; false if nothing is available now
   */
  boolean isReady(long txid);

  /**
   * Emitter part: emits the records available now.
   *
   * @param attempt the batch attempt the records go to
   * @param out receives the records; valid for this call only
   */
  void emit(BatchAttempt attempt, Collector<T> out);

  @Override
  default SpoutKind kind() {
    return SpoutKind.NON_TRANSACTIONAL;
  }

  @Override
  default Codec<byte[]> metadataCodec() {
    return Codecs.bytes();
  }
}
