package io.epochal.pipeline;

import io.epochal.api.Stable;

/**
 * The delivery guarantee (delivery mode) of a pipeline's state updates, set with
 * {@code PipelineBuilder.guarantee(..)}. {@link #EXACTLY_ONCE} is the default and is refused at build time where the
 * spout, a state and the store cannot deliver it; the other two are explicit opt-ins that lift that refusal and change
 * what the engine does with failed batches.
 *
 * @since 0.1.0
 */
@Stable
public enum Guarantee {
  /**
   * Every record affects committed state exactly once, whatever fails and however often: a failed batch is replayed
   * under its txid (a transactional spout's cut is recorded before emission, so a replay after a restart emits the
   * same records), and txid-carrying maps skip cells already written for the txid.
   */
  EXACTLY_ONCE,
  /**
   * No record of a replayable (transactional or opaque) spout is lost, but a record may be counted more than once: a
   * failed batch is replayed under its txid as in {@link #EXACTLY_ONCE}, without the work only exactly-once needs: no
   * cut is recorded before emission (one store write per batch less for a transactional spout; a replay after a
   * restart is cut anew from the committed position), and txid-carrying maps apply a replay's updates to cells the
   * failed attempt already wrote under the txid instead of skipping them
   * ({@link io.epochal.state.Epoch#skipsAppliedCells}). A non-transactional spout cannot replay, so with one a failed
   * attempt's records may still be lost.
   */
  AT_LEAST_ONCE,
  /**
   * No record is counted twice, but the records of a failed batch are lost: the batch's position (its spout metadata)
   * is recorded in the checkpoint store after the emission and before the batch is processed, and a batch whose
   * position is recorded is never replayed. On a retryable failure, and when a restarted pipeline finds such a batch
   * pending, its txid is committed with that position and nothing else, and listeners get
   * {@link PipelineListener#onBatchDropped}. A failure before the position is recorded (the spout's emission, the
   * record itself) is retried as usual: nothing was processed. A non-retryable failure still stops the pipeline; the
   * next pipeline drops the batch.
   */
  AT_MOST_ONCE
}
