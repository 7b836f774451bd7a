package io.epochal.testkit;

import io.epochal.api.Evolving;

/**
 * Where in a batch's life a scheduled {@link Fault} fires, in protocol order (jqwik shrinks an enum towards its first
 * constant, so a shrunk schedule names the earliest point that still fails).
 *
 * <p>Spout points fire when the batch is <em>emitted</em> (the coordinator may emit batch {@code t} while an earlier
 * batch is still in its commit phase); every other point fires when the batch is in its commit phase (the head: last
 * committed txid + 1). The two lease points ({@link #LEASE_TAKEN_BEFORE_COMMIT}, {@link #LEASE_TAKEN_INSIDE_COMMIT})
 * are zombies: a new owner takes the lease over, and the stale worker's commit must be refused. Each other point fires
 * either a retryable {@link InjectedFailure} or a {@link SimulatedCrash}, after
 * which {@link ReplayHarness} restarts the whole process (reopening stores that have a durable part).
 *
 * @since 0.1.0
 */
@Evolving
public enum FaultPoint {
  /**
   * The spout emitted the whole batch, then the attempt fails: nothing of it reaches a state. The replay of an
   * opaque spout re-cuts the batch (the kit's spout takes the cut from {@link BatchCuts#recuts()}), and the batches
   * in flight behind it are discarded and re-emitted. Needs a spout wrapped by {@link FaultInjector#wrap(
   * io.epochal.spout.TransactionalSpout)} / {@link FaultInjector#wrap(io.epochal.spout.OpaqueSpout)} (the
   * {@link ReplayCheck} and {@link PipelineTestDriver} spouts are).
   */
  AFTER_EMIT,
  /** The state's first read of the batch fails: nothing of the batch has been written. */
  BEFORE_STATE_WRITE,
  /** A backing map's {@code multiPut} (or a map state's update) writes a prefix of its cells, then fails. */
  INSIDE_MULTIPUT,
  /** Every state of the batch is written; the coordinator's checkpoint commit fails before writing anything. */
  AFTER_STATE_WRITES,
  /**
   * The coordinator's checkpoint commit fails inside the store's own commit, after {@link Fault#prefix()} table
   * writes of that commit (the store's {@link io.epochal.store.table.CommitHook}, see
   * {@link FaultInjector#commitHook()}); under the epoch protocol that commit carries every state row of the batch,
   * so the store's atomicity decides what lands. With a store that does not call the hook, the commit fails before
   * writing anything.
   */
  INSIDE_CHECKPOINT_COMMIT,
  /** The coordinator's checkpoint commit is written, then the call fails: the coordinator cannot know it landed. */
  DURING_CHECKPOINT_COMMIT,
  /**
   * A zombie: just before this worker's checkpoint commit, a new owner takes the pipeline's lease over (as a new
   * process does when it starts), so the commit that follows is a stale worker's commit racing the new owner. A
   * fenced store must refuse it (a {@link io.epochal.errors.LeaseLostException}); the stale worker then dies and
   * the run goes on in a new incarnation. A commit that lands is a fencing violation: the check fails, whatever the
   * final state. Fires only in table-store targets whose store declares
   * {@link io.epochal.store.table.StoreCapabilities#fencing() fencing} (elsewhere it is never reached).
   */
  LEASE_TAKEN_BEFORE_COMMIT,
  /**
   * A zombie caught mid-commit: the lease is taken over between the {@code begin(lease)} and the {@code commit()} of
   * the store transaction that carries the checkpoint commit. A store that checks the lease only at {@code begin}
   * lets the commit land, which fails the check. Fires where {@link #LEASE_TAKEN_BEFORE_COMMIT} does.
   */
  LEASE_TAKEN_INSIDE_COMMIT;

  /** @return whether this point fires at emission (by the emitted txid) rather than in the commit phase */
  public boolean isSpoutPoint() {
    return this == AFTER_EMIT;
  }

  /** @return whether this point takes the pipeline's lease over (fires only where the kit can see the lease) */
  public boolean isLeasePoint() {
    return this == LEASE_TAKEN_BEFORE_COMMIT || this == LEASE_TAKEN_INSIDE_COMMIT;
  }
}
