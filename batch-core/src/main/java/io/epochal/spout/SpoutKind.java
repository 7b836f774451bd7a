package io.epochal.spout;

import io.epochal.api.Stable;

/** What a spout promises about replays. Decides, with the state kind, the guarantee a pipeline delivers.
 *
 * @since 0.1.0
 */
@Stable
public enum SpoutKind {
  /** Every replay of a txid emits exactly the same records; batches never overlap. */
  TRANSACTIONAL,
  /** Every record is in exactly one committed batch, but a replayed txid may emit different records. */
  OPAQUE,
  /** No promise: a failed batch may be lost or emitted differently. */
  NON_TRANSACTIONAL
}
